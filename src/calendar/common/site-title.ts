import type { Language } from '../../config/config.ts';
import type { Settings } from '../settings/settings.schemas.ts';

/** The site's title in each language until one is set (settings.service.ts). */
export const SITE_TITLES: Readonly<Record<Language, string>> = { en: 'Calendar', it: 'Calendario' };

/** The site's title in `language`: the pages' header and the name of every feed. */
export function siteTitle(settings: Settings, language: Language): string {
  return language === 'it' ? settings.title_it : settings.title;
}

/** The site's tagline in `language` (may be empty). */
export function siteTagline(settings: Settings, language: Language): string {
  return language === 'it' ? settings.description_it : settings.description;
}

/**
 * A feed's name (X-WR-CALNAME, and Outlook's when a page subscribes to it): the site's title, then the names of
 * what the feed is filtered by, then its search. One function, so that an app names a feed as the page offering it does.
 */
export function feedName(settings: Settings, language: Language, filters: readonly string[], search?: string): string {
  return [siteTitle(settings, language), ...filters, ...(search === undefined || search === '' ? [] : [`“${search}”`])].join(' · ');
}
