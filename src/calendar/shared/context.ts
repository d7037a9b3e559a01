import type { FastifyRequest } from 'fastify';
import { LANGUAGES, type Config, type Language } from '../../config/config.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { Store } from '../../platform/db/database.ts';
import type { PostPasswords } from './post-passwords.ts';

/** What every calendar resource module is registered with. */
export interface CalendarDeps {
  readonly config: Config;
  readonly store: Store;
  /** `{base_url}/calendar/events/v1` (no trailing slash). */
  readonly namespaceUrl: string;
  /** Opens protected posts to reads, with one throttle for every post type. */
  readonly passwords: PostPasswords;
}

export const NAMESPACE = 'calendar/events/v1';

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

/** Per request: who asks, in which language, on which site. */
export interface RequestContext {
  readonly user: AuthUser | null;
  readonly language: Language;
  readonly defaultLanguage: Language;
  readonly site: Site;
}

export function requestContext(request: FastifyRequest, config: Config): RequestContext {
  return {
    user: request.user,
    language: languageOf(request, config),
    defaultLanguage: config.defaultLanguage,
    site: siteOf(config),
  };
}

/** The validated `translation_language` of the request, or the default language. */
export function languageOf(request: FastifyRequest, config: Config): Language {
  const query = request.query as { translation_language?: unknown } | undefined;
  const body = request.body as { translation_language?: unknown } | undefined;
  const asked = body?.translation_language ?? query?.translation_language;
  return LANGUAGES.find((language) => language === asked) ?? config.defaultLanguage;
}
