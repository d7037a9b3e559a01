import type { Kysely } from 'kysely';
import type { Language } from '../../src/config/config.ts';
import { CalendarVersions } from '../../src/calendar/common/calendar-version.ts';
import { cacheBudgets, ReadCache } from '../../src/platform/cache/read-cache.ts';
import { siteOf, type RequestContext } from '../../src/calendar/common/context.ts';
import { defaultSettings } from '../../src/calendar/settings/settings.service.ts';
import type { AuthUser } from '../../src/platform/auth/authenticate.ts';
import type { Database } from '../../src/platform/db/schema.ts';
import type { TestServer } from '../helpers/server.ts';

/** The request context a route would hand a calendar service, for calling services and link functions directly. */
export function contextFor(
  server: TestServer,
  user: AuthUser | null,
  options: { language?: Language; db?: Kysely<Database>; versions?: CalendarVersions } = {},
): RequestContext {
  const versions = options.versions ?? new CalendarVersions(options.db ?? server.server.store.db, new ReadCache(cacheBudgets(0)));
  // The slot a request would carry.
  const request = { calendarVersion: null };
  const context: RequestContext = {
    user,
    language: options.language ?? 'en',
    defaultLanguage: 'en',
    site: siteOf(server.config),
    settings: defaultSettings(server.config),
    address: '127.0.0.1',
    version: () => versions.of(request),
  };
  return context;
}
