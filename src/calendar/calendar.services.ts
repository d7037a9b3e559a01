import type { Config } from '../config/config.ts';
import type { BackgroundWork } from '../platform/background.ts';
import type { Store } from '../platform/db/database.ts';
import { cacheBudgets, ReadCache } from '../platform/cache/read-cache.ts';
import { CachedAnswers } from '../platform/http/cached-answers.ts';
import { EventRepresentations } from './events/events.representations.ts';
import { EventsService } from './events/events.service.ts';
import { IcalService } from './ical/ical.service.ts';
import { LinkedPostsService } from './linked-posts/linked-posts.service.ts';
import { organizerKind } from './organizers/organizers.kind.ts';
import { PostPasswords } from './posts/posts.passwords.ts';
import { CalendarVersions } from './common/calendar-version.ts';
import { NAMESPACE, siteOf, type CalendarDeps } from './common/context.ts';
import { TermsService } from './terms/terms.service.ts';
import { CATEGORIES, TAGS } from './terms/terms.taxonomy.ts';
import { venueKind } from './venues/venues.kind.ts';
import { MediaService } from './media/media.service.ts';
import { ImageSideLoader } from './media/media.sideload.ts';
import { mediaStorage } from './media/media.storage.ts';
import { SiteSettingsService } from './settings/settings.service.ts';

/** The calendar's services, built once: the API's routes and the public pages hand them each request's caller. */
export interface CalendarServices {
  readonly deps: CalendarDeps;
  readonly events: EventsService;
  readonly ical: IcalService;
  readonly venues: LinkedPostsService;
  readonly organizers: LinkedPostsService;
  readonly categories: TermsService;
  readonly tags: TermsService;
  readonly media: MediaService;
}

/** The media library over the store (and MEDIA_DIR), for the server and for the command line. */
export function buildMediaService(config: Config, store: Store, cache?: ReadCache): MediaService {
  return new MediaService(
    store.db,
    mediaStorage(store.db, config.mediaDir),
    siteOf(config),
    config.mediaMaxPixels,
    store.translateError,
    cache,
    config.eventCacheBytes,
  );
}

export function buildCalendarServices(config: Config, store: Store, background: BackgroundWork): CalendarServices {
  const namespaceUrl = `${config.baseUrl}/${NAMESPACE}`;
  const cache = new ReadCache(cacheBudgets(config.responseCacheBytes, config.eventCacheBytes));
  const versions = new CalendarVersions(store.db, cache);
  const deps: CalendarDeps = {
    config,
    store,
    background,
    site: siteOf(config),
    passwords: new PostPasswords(store.db, config),
    versions,
    settings: new SiteSettingsService(store.db, config),
    answers: new CachedAnswers(cache, (request) => versions.of(request), config.responseCacheBytes > 0, true),
  };
  const representations = new EventRepresentations(cache);
  const media = buildMediaService(config, store, cache);
  const images = new ImageSideLoader(media, {
    enabled: config.mediaSideload,
    allow: config.mediaFetchAllowHosts,
    timeoutMs: config.mediaFetchTimeoutMs,
    maxBytes: config.mediaMaxBytes,
    baseUrl: config.baseUrl,
  });
  const events = new EventsService({ db: store.db, config, passwords: deps.passwords, representations, background, images });
  const termDeps = { db: store.db, translateError: store.translateError, namespaceUrl, baseUrl: config.baseUrl };
  const linked = {
    venues: new LinkedPostsService(venueKind, store.db, deps.passwords, images),
    organizers: new LinkedPostsService(organizerKind, store.db, deps.passwords, images),
    categories: new TermsService(CATEGORIES, termDeps),
    tags: new TermsService(TAGS, termDeps),
  };
  return { deps, events, ical: new IcalService({ db: store.db, config, events, ...linked }), ...linked, media };
}
