import type { Language } from '../../config/config.ts';

/** The site's title in each language: the pages' header and the name of every feed. */
export const SITE_TITLES: Readonly<Record<Language, string>> = { en: 'Calendar', it: 'Calendario' };

/**
 * A feed's name (X-WR-CALNAME, and Outlook's when a page subscribes to it): the site's title, then the names of
 * what the feed is filtered by, then its search. One function, so that an app names a feed as the page offering it does.
 */
export function feedName(language: Language, filters: readonly string[], search?: string): string {
  return [SITE_TITLES[language], ...filters, ...(search === undefined || search === '' ? [] : [`“${search}”`])].join(' · ');
}
