import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.ts';
import { describeReshapedAnswers } from '../wp-rest/reshaped-answers.ts';
import { completeDocument } from './contract.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document as served: any shape its generator emits
type Json = Record<string, any>;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The OpenAPI document as served. By default it tells every answer, those `_fields` and `_envelope` reshape too
     * (reshaped-answers.ts): what a validating proxy reads. `plain`: only the answers to requests without them, what
     * a type generator reads (a generated type cannot depend on the request's arguments).
     */
    openApiDocument(plain: boolean): Json;
  }
}

/** The whole-service OpenAPI 3.1 document served at `/docs/openapi.json`. */
export function openApiOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Almanac',
        version: '0.1.0',
        description:
          'Calendar events (compatible with The Events Calendar REST API v1), entity management and a SOAP ping. ' +
          'Authorize with HTTP Basic (username and password) or a Bearer API token.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic' },
          bearerAuth: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ basicAuth: [] }, { bearerAuth: [] }, {}],
    },
    transformObject: (document) => completeDocument('openapiObject' in document ? document.openapiObject : document.swaggerObject),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  };
}

/** Decorates `app` with `openApiDocument`, once `@fastify/swagger` is registered: each variant is made once. */
export function decorateOpenApiDocument(app: FastifyInstance): void {
  let complete: Json | undefined;
  app.decorate('openApiDocument', (plain: boolean): Json => {
    const document = app.swagger() as Json;
    if (plain) return document;
    complete ??= describeReshapedAnswers(structuredClone(document));
    return complete;
  });
}
