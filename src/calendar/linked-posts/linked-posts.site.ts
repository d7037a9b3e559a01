import type { Config } from '../../config/config.ts';

/** What links and dates of venues and organizers need of the site. */
export interface Site {
  readonly baseUrl: string;
  readonly timezone: string;
}

let registered: Site | undefined;

/**
 * Remembers the site when the calendar routes are registered. The functions
 * the events module calls (`loadEmbeddedVenues`, …) take only a database and
 * a request context, yet build permalinks and `global_id`s from the base URL;
 * a process serves one Config, so one registration is enough.
 */
export function registerSite(config: Config): Site {
  registered = { baseUrl: config.baseUrl, timezone: config.siteTimezone };
  return registered;
}

export function currentSite(): Site {
  if (registered === undefined) throw new Error('the calendar site is not registered yet');
  return registered;
}
