import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';
import { LANGUAGES, type Language } from '../../config/config.ts';
import type { AuthUser } from '../../platform/auth/authenticate.ts';
import type { AdminDictionary } from './admin.i18n.ts';
import { EditorScript } from './admin.script.ts';
import { screensFor } from './admin.screens.ts';

// This folder in the sources; once bundled (scripts/bundle.mjs) the files are at the same path under dist/.
const HERE = path.dirname(fileURLToPath(import.meta.url));
const FILES = [HERE, path.join(HERE, 'calendar/admin')].find((folder) => existsSync(path.join(folder, 'templates'))) ?? HERE;

/** No script at all, styles from the site only, forms post to the site only, never framed. */
export const ADMIN_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Where the editor's stylesheet is served, below the site root. */
export const ADMIN_STYLESHEET_PATH = '/admin/assets/admin.css';

/** What every editor page knows of its request. */
export interface AdminPage {
  readonly language: Language;
  readonly t: AdminDictionary;
  readonly user: AuthUser | null;
  /** The session's form token (absent before sign-in). */
  readonly csrf: string;
  readonly basePath: string;
  /** The request's path and query, below the site root. */
  readonly path: string;
}

/** The editor's Eta templates (escaping by default), its stylesheet, read once, and its script. */
export class AdminViews {
  private readonly eta = new Eta({ views: path.join(FILES, 'templates'), autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
  readonly stylesheet = readFileSync(path.join(FILES, 'assets', 'admin.css'));
  private readonly stylesheetVersion = createHash('sha256').update(this.stylesheet).digest('hex').slice(0, 12);
  readonly script = new EditorScript(path.join(FILES, 'assets'));

  render(page: AdminPage, title: string, template: string, model: object): string {
    const to = (target: string) => `${page.basePath}${target}`;
    const url = new URL(page.path, 'http://x');
    const languages = LANGUAGES.map((code) => {
      url.searchParams.set('lang', code);
      return {
        code,
        label: code === 'en' ? 'English' : 'Italiano',
        href: to(`${url.pathname}${url.search}`),
        current: code === page.language,
      };
    });
    return this.eta.render(template, {
      ...model,
      page,
      title,
      lang: page.language,
      t: page.t,
      to,
      current: url.pathname,
      languages,
      screens: screensFor(page.user?.role ?? null),
      css: `${to(ADMIN_STYLESHEET_PATH)}?v=${this.stylesheetVersion}`,
    });
  }

  send(reply: FastifyReply, html: string, status = 200): FastifyReply {
    return reply.code(status).type('text/html; charset=utf-8').send(html);
  }
}
