import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { requestContext, type CalendarDeps } from '../common/context.ts';
import { LanguageQuerySchema, WpErrorSchema } from '../common/schemas.ts';
import { AppError } from '../../platform/errors.ts';
import { parseWpBoolean, WpBooleanSchema } from '../common/wire.ts';
import { IcalImport, IcalSyntaxError } from './ical.import.ts';

export const ImportReportSchema = Type.Object({
  created: Type.Integer({ description: 'Events created' }),
  updated: Type.Integer({ description: 'Events (and occurrences, for RECURRENCE-ID components) updated' }),
  skipped: Type.Integer({ description: 'Events no newer than the stored ones (SEQUENCE, LAST-MODIFIED)' }),
  errors: Type.Array(
    Type.Object({
      line: Type.Integer({ description: 'Line of the file where the event (or the faulty property) starts' }),
      uid: Type.Union([Type.String(), Type.Null()]),
      message: Type.String(),
    }),
    { description: 'Events not imported, and why; the others were imported' },
  ),
});

const ImportQuerySchema = Type.Object({
  dry_run: Type.Optional(WpBooleanSchema('true: write nothing, report what would happen')),
  ...LanguageQuerySchema.properties,
});

/**
 * `POST /events.ics` (docs/calendar-ical.md, "Import"): an iCalendar file as
 * the body. This scope reads `text/calendar` only, within its own size limit.
 */
export async function icalImportRoutes(app: FastifyInstance, deps: CalendarDeps): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const importer = new IcalImport({
    db: deps.store.db,
    config: deps.config,
    passwords: deps.passwords,
    translateError: deps.store.translateError,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('text/calendar', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  typed.post('/events.ics', {
    config: { access: 'edit_others' },
    bodyLimit: deps.config.icalImportMaxBytes,
    schema: {
      operationId: 'importEventsIcal',
      tags: ['calendar'],
      summary: 'Imports an iCalendar file (editors and above): creates or updates events by UID',
      consumes: ['text/calendar'],
      querystring: ImportQuerySchema,
      body: Type.String({ description: 'An iCalendar (RFC 5545) file' }),
      response: {
        200: ImportReportSchema,
        400: WpErrorSchema,
        401: WpErrorSchema,
        403: WpErrorSchema,
        413: WpErrorSchema,
        415: WpErrorSchema,
      },
    },
    handler: async (request) => {
      try {
        return await importer.importCalendar(request.body, requestContext(request, deps), {
          dryRun: parseWpBoolean(request.query.dry_run) === true,
        });
      } catch (error) {
        if (error instanceof IcalSyntaxError) {
          const message = `Malformed iCalendar file, ${error.message}`;
          throw new AppError(400, 'rest_invalid_param', message, { params: { body: message }, details: {}, line: error.line });
        }
        throw error;
      }
    },
  });
}
