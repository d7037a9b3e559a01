import type { FastifyRequest } from 'fastify';
import type { Config, Language } from '../../config/config.ts';
import type { Authenticator } from '../../platform/auth/authenticate.ts';
import type { Session, SessionStore } from '../../platform/auth/sessions.ts';
import type { UsersService } from '../../platform/auth/users.service.ts';
import type { CalendarServices } from '../calendar.services.ts';
import type { AdminPage, AdminViews } from './admin.views.ts';

export const SESSION_COOKIE = 'almanac_session';
/** Before sign-in the login form's token is a cookie of its own, sent back in the form (a double submit). */
export const LOGIN_COOKIE = 'almanac_login';
export const LANGUAGE_COOKIE = 'almanac_lang';
export const YEAR_SECONDS = 365 * 86_400;

declare module 'fastify' {
  interface FastifyRequest {
    /** The editor's session of the request's cookie, `null` when signed out. */
    adminSession: Session | null;
    adminLanguage: Language;
  }
}

export interface AdminOptions {
  readonly config: Config;
  readonly services: CalendarServices;
  readonly authenticator: Authenticator;
  readonly sessions: SessionStore;
  /** Names the authors of the listed events. */
  readonly users: UsersService;
}

/** What the editor's routes share: how to render, where its cookies live, the session store. */
export interface AdminContext extends AdminOptions {
  readonly views: AdminViews;
  readonly cookiePath: string;
  readonly secure: boolean;
  page(request: FastifyRequest): AdminPage;
}
