import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply } from 'fastify';
import { LANGUAGES } from '../../config/config.ts';
import type { Answer } from '../../platform/http/cached-answers.ts';
import { siteTagline, siteTitle } from '../common/site-title.ts';
import { OG_LOCALE } from './pages.i18n.ts';
import type { PageRequest } from './pages.service.ts';
import { themeHref } from './pages.theme.ts';
import { BAR_RULES } from './pages.bars.ts';
import type { PageImage } from './pages.images.ts';

// This folder in the sources; once bundled (scripts/bundle.mjs) the module is dist/almanac.mjs and the files are at the same path under dist/.
const HERE = path.dirname(fileURLToPath(import.meta.url));
const FILES = [HERE, path.join(HERE, 'calendar/pages')].find((folder) => existsSync(path.join(folder, 'templates'))) ?? HERE;

/**
 * The pages' Content-Security-Policy: no script runs (JSON-LD is data, not executed), styles and images from the
 * site (images also from https: and data:), forms post to the site only.
 */
/**
 * No script may run. `connect-src 'self'` grants a page nothing, having no script, but lets tools that load through
 * the page's frame (Lighthouse reads robots.txt so) reach the site.
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The embed's: the same, but the sites of `EMBED_ORIGINS` may frame it (every other page refuses to be framed). */
export function embedCsp(origins: readonly string[]): string {
  return PAGE_CSP.replace("frame-ancestors 'none'", `frame-ancestors ${origins.length === 0 ? "'none'" : origins.join(' ')}`);
}

/** Where the list for other sites' `<iframe>`s is served, below the site root. */
export const EMBED_PATH = '/embed/events/';

const HTML = 'text/html; charset=utf-8';

/** Where the stylesheet is served, below the site root. */
export const STYLESHEET_PATH = '/events/assets/calendar.css';

/** Where the site's logo (setting `site_logo`, a media id) is found, below the site root: `{LOGO_PATH}{id}`. */
export const LOGO_PATH = '/events/assets/logo/';

/** What every page says of itself besides its body. */
export interface PageHead {
  readonly title: string;
  /** The page's path from the site root (its canonical URL, and the language links). */
  readonly path: string;
  readonly current?: 'month' | 'week' | 'day' | 'list';
  readonly description?: string;
  /** The image link previews show (`og:image`). */
  readonly image?: PageImage;
  readonly ogType?: string;
  /** JSON-LD, already made safe for a script element (`jsonForScript`). */
  readonly jsonLd?: string;
  readonly noindex?: boolean;
}

/** Eta templates with automatic escaping, read once; the stylesheet (with the bars' lengths) with a content hash for its URL. */
export class PageViews {
  private readonly eta = new Eta({ views: path.join(FILES, 'templates'), autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
  readonly stylesheet = Buffer.concat([readFileSync(path.join(FILES, 'assets', 'calendar.css')), Buffer.from(`${BAR_RULES}\n`)]);
  private readonly stylesheetVersion = createHash('sha256').update(this.stylesheet).digest('hex').slice(0, 12);

  /** `template` rendered in the layout: HTML in the page's language. */
  render(page: PageRequest, head: PageHead, template: string, model: object): Answer & { payload: string; type: string } {
    const { links, language, t } = page;
    const nav = {
      month: links.to(`/events/month/${page.today.slice(0, 7)}/`),
      week: links.to(`/events/week/${page.today}/`),
      day: links.to('/events/today/'),
      list: links.to('/events/list/'),
    };
    const languages = LANGUAGES.map((code) => {
      const href = links.inLanguage(head.path, code);
      // Search engines take alternates only as absolute URLs.
      return {
        code,
        label: code === 'en' ? 'English' : 'Italiano',
        href,
        url: new URL(href, links.baseUrl).href,
        current: code === language.language,
      };
    });
    const { settings } = page.caller;
    const site = {
      title: siteTitle(settings, language.language),
      tagline: siteTagline(settings, language.language),
      logo: settings.site_logo > 0 ? `${links.basePath}${LOGO_PATH}${settings.site_logo}` : undefined,
    };
    // Every page describes itself to search results: a view by its heading and the site.
    const description = head.description || `${head.title} · ${site.tagline === '' ? `${t.calendarOf} ${site.title}` : site.tagline}`;
    const html = this.eta.render(template, {
      ...model,
      head: { ...head, description, canonical: `${links.baseUrl}${head.path}`, ogLocale: OG_LOCALE[language.language] },
      site,
      lang: language.language,
      explicitLang: language.explicit,
      t,
      nav,
      languages,
      css: `${links.basePath}${STYLESHEET_PATH}?v=${this.stylesheetVersion}`,
      theme: themeHref(links.basePath, settings.almanac_accent_color, page.colors),
      home: links.to('/events/'),
    });
    return { payload: html, type: HTML, headers: { 'content-language': language.language, vary: 'Accept-Language' } };
  }

  /** Sends a rendered page with `status` (a page no cache may store: errors, a password's answer). */
  send(reply: FastifyReply, answer: Answer, status: number): FastifyReply {
    return reply
      .code(status)
      .headers(answer.headers ?? {})
      .type(answer.type ?? HTML)
      .send(answer.payload);
  }
}
