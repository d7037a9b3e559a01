import type { FastifyRequest } from 'fastify';
import { LANGUAGES, type Config, type Language } from '../../config/config.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { Store } from '../../platform/db/database.ts';

/** What every calendar resource module is registered with. */
export interface CalendarDeps {
  readonly config: Config;
  readonly store: Store;
  /** `{base_url}/calendar/events/v1` (no trailing slash). */
  readonly namespaceUrl: string;
}

/** Per request: who asks, in which language. */
export interface RequestContext {
  readonly user: AuthUser | null;
  readonly language: Language;
  readonly defaultLanguage: Language;
}

export function requestContext(request: FastifyRequest, config: Config): RequestContext {
  return { user: request.user, language: languageOf(request, config), defaultLanguage: config.defaultLanguage };
}

/** The validated `translation_language` of the request, or the default language. */
export function languageOf(request: FastifyRequest, config: Config): Language {
  const query = request.query as { translation_language?: unknown } | undefined;
  const body = request.body as { translation_language?: unknown } | undefined;
  const asked = body?.translation_language ?? query?.translation_language;
  return LANGUAGES.find((language) => language === asked) ?? config.defaultLanguage;
}
