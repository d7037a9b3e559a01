import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isPlatformError } from '../../platform/errors.ts';
import { classifyError } from '../../platform/http/classify-error.ts';
import { clark, errorXml, NS } from './caldav.xml.ts';

/**
 * CalDAV's refusals: a status, a message in a DAV:error body, and where the
 * RFCs name one, the precondition that failed (`data.condition`, in Clark
 * notation), which clients read to tell why.
 */

const failed = (status: number, condition: string | undefined, message: string, headers: Record<string, string> = {}, href?: string) =>
  new AppError(
    status,
    'caldav',
    message,
    { ...(condition === undefined ? {} : { condition }), ...(href === undefined ? {} : { href }) },
    headers,
  );

const BASIC_CHALLENGE = 'Basic realm="almanac", charset="UTF-8"';

export const davErrors = {
  malformed: (message: string) => failed(400, undefined, message),
  badDepth: (depth: string) => failed(400, undefined, `Depth must be 0, 1 or infinity, not "${depth}".`),
  finiteDepth: () =>
    failed(403, clark(NS.dav, 'propfind-finite-depth'), 'PROPFIND with Depth: infinity is not answered: ask with Depth 0 or 1.'),
  unsupportedReport: (name: string) =>
    failed(
      403,
      clark(NS.dav, 'supported-report'),
      `The report "${name}" is not supported: calendar-multiget, calendar-query and sync-collection are.`,
    ),
  invalidSyncToken: () =>
    failed(
      403,
      clark(NS.dav, 'valid-sync-token'),
      'The sync token has expired or was not issued here for this caller: sync again without one.',
    ),
  invalidFilter: (message: string) => failed(403, clark(NS.caldav, 'valid-filter'), message),
  unsupportedFilter: (message: string) => failed(403, clark(NS.caldav, 'supported-filter'), message),
  readOnly: (method: string) =>
    failed(
      403,
      clark(NS.dav, 'need-privileges'),
      `${method} is refused: events are written with PUT and DELETE in /dav/calendars/events/; the calendars themselves are not changed over CalDAV.`,
    ),
  needPrivileges: (message: string) => failed(403, clark(NS.dav, 'need-privileges'), message),
  unsupportedData: () =>
    failed(415, clark(NS.caldav, 'supported-calendar-data'), 'An event is written as iCalendar: send it as text/calendar.'),
  invalidData: (message: string) => failed(400, clark(NS.caldav, 'valid-calendar-data'), `Malformed iCalendar, ${message}`),
  unsupportedComponent: (name: string) =>
    failed(403, clark(NS.caldav, 'supported-calendar-component'), `This calendar holds events (VEVENT), not ${name}.`),
  invalidObject: (message: string) => failed(403, clark(NS.caldav, 'valid-calendar-object-resource'), message),
  uidConflict: (href: string) =>
    failed(403, clark(NS.caldav, 'no-uid-conflict'), `Another resource, ${href}, holds this UID: write to it instead.`, {}, href),
  tooManyMatches: (count: number, limit: number) =>
    failed(
      403,
      clark(NS.dav, 'number-of-matches-within-limits'),
      `This answer would hold ${count} events, more than the ${limit} one answer may: ask for a time range (calendar-query with a time-range).`,
    ),
  preconditionFailed: (message: string) => failed(412, undefined, message),
  notFound: () => failed(404, undefined, 'Nothing is at this address.'),
  // RFC 4918 §9.7.1: a PUT whose parent is no collection.
  noParent: () => failed(409, undefined, 'No calendar is there to hold this resource: events are put at {uid}.ics in a calendar.'),
  credentialsRequired: () =>
    failed(401, undefined, 'Sign in (HTTP Basic, with your password or an API token as the password).', {
      'www-authenticate': BASIC_CHALLENGE,
    }),
};

/** The error handler of the CalDAV scope: every refusal as a DAV:error, a 5xx as "internal error" and the request id. */
export async function sendDavError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const appError = classifyError(error);
  const { status } = appError;
  const headers: Record<string, string> = { ...appError.headers };
  // Clients that speak only Basic are told so, whatever refused their credentials.
  if (status === 401) headers['www-authenticate'] = BASIC_CHALLENGE;
  const internal = status >= 500 && !(isPlatformError(appError) && appError.reason === 'database_busy');
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  const message = internal ? `internal error (request ${request.id})` : appError.message;
  // A PUT over the body limit is the resource size RFC 4791 §5.3.2.1 names.
  const condition =
    typeof appError.data.condition === 'string'
      ? appError.data.condition
      : status === 413 && request.method === 'PUT'
        ? clark(NS.caldav, 'max-resource-size')
        : undefined;
  const href = typeof appError.data.href === 'string' ? appError.data.href : undefined;
  await reply
    .code(status)
    .headers(headers)
    .type('application/xml; charset=utf-8')
    .send(errorXml(message, condition, href));
}
