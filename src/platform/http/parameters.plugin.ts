import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { withHookFirst } from './route-hooks.ts';
import { parseParameters, unreadableQuery } from './querystring.ts';
import { refusedTarget } from './request-target.ts';
import { JSON_LIMITS, jsonNestingDepth, nonFinitePath } from './json-limits.ts';
import { bracketName, ValidationError } from './classify-error.ts';
import { PlatformErrors } from '../errors.ts';

/** The media types every route with a body accepts, as WordPress does. */
export const BODY_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

/**
 * How request parameters are read on every surface: query strings and form
 * bodies in bracket notation (querystring.ts), JSON bodies within
 * `JSON_LIMITS` and without non-finite numbers (json-limits.ts), and the
 * absent bodies WordPress accepts — an empty JSON body and a body-less write are `{}`.
 */
export const parametersPlugin = fp(
  async (app: FastifyInstance) => {
    // Neither the router nor the URL rewrite can refuse a request; the first hook does, in the surface's error shape.
    app.addHook('onRequest', (request, _reply, done) => done(unreadableQuery(request.query) ?? refusedTarget(request.raw)));

    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body as string;
      if (text.trim() === '') return done(null, {});
      // Counted on the text, before anything (the parser included) builds the value that later code would recurse into.
      if (jsonNestingDepth(text, JSON_LIMITS.depth) > JSON_LIMITS.depth) return done(PlatformErrors.jsonTooDeep(JSON_LIMITS.depth));
      void json(request, text, (error, parsed: unknown) => {
        if (error !== null) return done(error);
        const keys = nonFinitePath(parsed);
        if (keys === undefined) return done(null, parsed);
        done(new ValidationError({ [keys[0] ?? 'body']: `${bracketName(keys)} must be a finite number.` }, []));
      });
    });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseParameters(body as string));
      } catch (error) {
        done(error as Error);
      }
    });

    const defaultBody = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (request.body === undefined) request.body = {};
      done();
    };
    app.addHook('onRoute', (route) => {
      if (route.schema?.body !== undefined) route.preValidation = withHookFirst(defaultBody, route.preValidation);
    });
  },
  { name: 'almanac-parameters' },
);
