import type { FastifyRequest } from 'fastify';
import { LANGUAGES, type Config, type Language } from '../../config/config.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { BackgroundWork } from '../../platform/background.ts';
import type { Store } from '../../platform/db/database.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import type { CachedAnswers } from '../../platform/http/cached-answers.ts';
import type { CalendarVersion, CalendarVersions } from './calendar-version.ts';
import { fieldOf } from './wire.ts';
import { preconditionOf, type WritePrecondition } from '../changes/changes.preconditions.ts';
import type { Settings } from '../settings/settings.schemas.ts';
import { defaultSettings, languageOfLocale, type SiteSettingsService } from '../settings/settings.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The site's settings in effect for this request, loaded as it arrives (`loadSiteSettings`). */
    siteSettings: Settings | null;
  }
}

/** What the calendar's services are built with, once, when the plugin registers. */
export interface CalendarDeps {
  readonly config: Config;
  readonly store: Store;
  /** The server's periodic and background work (maintenance, webhook deliveries, group commits). */
  readonly background: BackgroundWork;
  readonly site: Site;
  /** Opens protected posts to reads, with one throttle for every post type. */
  readonly passwords: PostPasswords;
  readonly versions: CalendarVersions;
  /** The site's settings (title, time zone, language, formats, currency), read by every process. */
  readonly settings: SiteSettingsService;
  /** Anonymous answers, cached per calendar version (ADR 22): one budget (RESPONSE_CACHE_MB) for every route. */
  readonly answers: CachedAnswers;
}

/** Whether an answer may be cached: it depends on nothing its key does not say (no caller, no password). */
export function isCacheable(request: FastifyRequest, query: { readonly password?: string }): boolean {
  return request.user === null && query.password === undefined;
}

export const NAMESPACE = 'calendar/events/v1';
/** WordPress core's namespace, of which Almanac serves the media library and the site's settings. */
export const WP_NAMESPACE = 'wp/v2';

/** What links and dates need of the site: permalinks, `global_id`, API URLs, the site time zone. */
export interface Site {
  readonly baseUrl: string;
  /** `{base_url}/calendar/events/v1` (no trailing slash). */
  readonly namespaceUrl: string;
  readonly timezone: string;
}

export function siteOf(config: Config): Site {
  return { baseUrl: config.baseUrl, namespaceUrl: `${config.baseUrl}/${NAMESPACE}`, timezone: config.siteTimezone };
}

/** Per request: who asks, from where, in which language, on which site, at which calendar version. */
export interface RequestContext {
  readonly user: AuthUser | null;
  readonly language: Language;
  readonly defaultLanguage: Language;
  readonly site: Site;
  /** The site's settings as the request found them. */
  readonly settings: Settings;
  /** The caller's address: it throttles password guesses. */
  readonly address: string;
  /**
   * The version a read answers at, read once per request (calendar-version.ts). Never asked inside a
   * transaction (writes count what they wrote instead): on SQLite its read would wait for the transaction's connection.
   */
  readonly version: () => Promise<CalendarVersion>;
  /** What a write to the item its route names must find (If-Match, REQUIRE_IF_MATCH); absent on every other route. */
  readonly precondition?: WritePrecondition;
}

export function requestContext(request: FastifyRequest, deps: Pick<CalendarDeps, 'config' | 'site' | 'versions'>): RequestContext {
  const settings = settingsOf(request, deps.config);
  return {
    user: request.user,
    language: languageOf(request, deps.config),
    defaultLanguage: languageOfLocale(settings.language),
    site: settings.timezone === deps.site.timezone ? deps.site : { ...deps.site, timezone: settings.timezone },
    settings,
    address: request.ip,
    version: () => deps.versions.of(request),
    precondition: preconditionOf(request, deps.config),
  };
}

/** The validated `translation_language` of the request, or the site's default language. */
export function languageOf(request: FastifyRequest, config: Config): Language {
  const asked = fieldOf(request.body, 'translation_language') ?? fieldOf(request.query, 'translation_language');
  return LANGUAGES.find((language) => language === asked) ?? languageOfLocale(settingsOf(request, config).language);
}

/** The settings `request` was given as it arrived; the configuration's defaults for one refused before (a malformed URL). */
export function settingsOf(request: FastifyRequest, config: Config): Settings {
  return request.siteSettings ?? defaultSettings(config);
}

/**
 * Loads the site's settings into every request as it arrives. A read takes its calendar version at the same time,
 * from the same read of the revisions: what it caches in that version is computed with that version's settings.
 */
export function loadSiteSettings(deps: Pick<CalendarDeps, 'settings' | 'versions'>) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      request.siteSettings = await deps.settings.current(request);
      return;
    }
    const [settings] = await Promise.all([deps.settings.ofTick(), deps.versions.of(request)]);
    request.siteSettings = settings;
  };
}
