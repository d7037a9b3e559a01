import type { FastifyInstance } from 'fastify';
import { SoapErrors, sendFault } from './faults.ts';
import { assertSoapAction, readPingRequest } from './ping-request.ts';
import type { PingService } from './ping.service.ts';
import { buildWsdl } from './wsdl.ts';

/** The endpoint's own cap (docs/soap.md); over it → a Client fault with HTTP 413. */
const SOAP_BODY_LIMIT_BYTES = 64 * 1024;

export interface PingServiceRoutesOptions {
  readonly service: PingService;
  /** The public URL of the endpoint, written into the WSDL. */
  readonly endpointUrl: string;
}

/**
 * `/PingService`: the WSDL on GET, `pingOperation` on POST. Everything that
 * fails here, platform errors included, is answered with a SOAP fault.
 */
export async function pingServiceRoutes(app: FastifyInstance, { service, endpointUrl }: PingServiceRoutesOptions): Promise<void> {
  const wsdl = buildWsdl(endpointUrl);
  app.setErrorHandler(sendFault);

  // This scope reads raw XML only; the platform's JSON and form parsers stay outside it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('text/xml', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  // SOAP 1.2 travels as application/soap+xml: answer in SOAP 1.1 that only 1.1 is spoken.
  app.addContentTypeParser('application/soap+xml', { parseAs: 'string' }, (_request, _body, done) => done(SoapErrors.versionMismatch()));
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) =>
    done(SoapErrors.client('Send the SOAP 1.1 envelope with Content-Type: text/xml.')),
  );

  app.get('/PingService', {
    config: { access: 'public' },
    schema: { hide: true },
    handler: async (_request, reply) => reply.type('text/xml; charset=utf-8').send(wsdl),
  });

  app.post('/PingService', {
    config: { access: 'public' },
    bodyLimit: SOAP_BODY_LIMIT_BYTES,
    schema: { hide: true },
    handler: async (request, reply) => {
      assertSoapAction(request.headers.soapaction);
      await service.receive({ request: readPingRequest(request.body), httpUser: request.user, address: request.ip });
      // WS-I Basic Profile R2714: a one-way operation answers 202 with no envelope.
      return reply.code(202).send();
    },
  });
}
