import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../config/config.ts';
import { completeDocument } from './contract.ts';

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
