import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { importProblem, type ImportProblem } from '../common/import-problems.ts';
import { refusalProblem, withWriteUnits, type WriteUnit } from '../common/import-transactions.ts';
import { EventsService } from '../events/events.service.ts';
import { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import { organizerKind } from '../organizers/organizers.kind.ts';
import { venueKind } from '../venues/venues.kind.ts';
import { findTermIdsByReference } from '../terms/terms.repository.ts';
import { TermsService } from '../terms/terms.service.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../terms/terms.taxonomy.ts';
import { NAMESPACE, siteOf, type RequestContext } from '../common/context.ts';
import { MediaService } from '../media/media.service.ts';
import { ImageSideLoader } from '../media/media.sideload.ts';
import { mediaStorage } from '../media/media.storage.ts';
import type { CsvImportDeps } from './csv.import.ts';
import { ImageStore } from './tec.images.ts';
import * as repository from './imports.repository.ts';
import { isObject, TEC_DEFAULTS, TecClient, type TecClientOptions } from './tec.client.ts';
import {
  digestOf,
  eventBody,
  eventsToWrite,
  isStrippedEvent,
  isStrippedLinked,
  organizerBody,
  venueBody,
  type IdMaps,
  type Json,
} from './tec.map.ts';

/**
 * Import from The Events Calendar's REST API (docs/moving-in.md): every category, tag, venue, organizer and event
 * is read first — an API that is not one, or fails, writes nothing — then written through the services as the CSV
 * import writes its rows, each in a transaction of its own, recorded under the API's address and the remote id.
 */

export interface TecImportOptions extends TecClientOptions {
  readonly dryRun?: boolean;
  /** A page of `collection` was read. */
  readonly onFetched?: (collection: string, items: number) => void;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface TecCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** An item not imported, or imported with something to know: what it is, and the problem (`message`, `code`, `params`). */
export interface TecProblem extends ImportProblem {
  readonly kind: 'event' | 'venue' | 'organizer' | 'category' | 'tag';
  /** The remote id. */
  readonly id: number;
  readonly name: string;
}

export interface TecImportReport {
  readonly source: string;
  readonly categories: TecCounts;
  readonly tags: TecCounts;
  readonly venues: TecCounts;
  readonly organizers: TecCounts;
  readonly events: TecCounts;
  /** Items not imported, and why. */
  readonly errors: TecProblem[];
  /** Items imported with something to know: a password-protected item comes without its password. */
  readonly notices: TecProblem[];
}

const COLLECTIONS = ['categories', 'tags', 'venues', 'organizers', 'events'] as const;
type Collection = (typeof COLLECTIONS)[number];
const LINKED = { venues: venueKind, organizers: organizerKind } as const;
const TERMS = { categories: CATEGORIES, tags: TAGS } as const;
const SINGULAR = { categories: 'category', tags: 'tag', venues: 'venue', organizers: 'organizer', events: 'event' } as const;
/** Every status but trash: the reference refuses `any`. */
const ALL_STATUSES = 'publish,future,draft,pending,private';
const PROTECTED_NOTICE = importProblem('tec_protected');

type Remote = Record<Collection, Json[]>;

/** What the import writes with: the CSV import's, and the media library that keeps featured images (by default the site's, over `db`). */
export interface TecImportDeps extends CsvImportDeps {
  readonly media?: MediaService;
}

export class TecImport {
  constructor(private readonly deps: TecImportDeps) {}

  async importSite(url: string, caller: RequestContext, options: TecImportOptions): Promise<TecImportReport> {
    const client = new TecClient(url, options);
    const { remote, protectedItems } = await this.fetchAll(client, options);
    const source = `tec:${client.base.href}`;
    const counts = Object.fromEntries(COLLECTIONS.map((collection) => [collection, { created: 0, updated: 0, unchanged: 0 }])) as Record<
      Collection,
      TecCounts
    >;
    const errors: TecProblem[] = [];
    const notices: TecProblem[] = [];
    const maps = { venues: new Map(), organizers: new Map(), categories: new Map(), tags: new Map() } satisfies IdMaps;
    const events = eventsToWrite(remote.events);
    // A dry run's one transaction holds the database throughout, and the media library writes on its own: a dry
    // run leaves image URLs as they are.
    const images =
      options.dryRun === true
        ? undefined
        : new ImageStore(
            new ImageSideLoader(this.mediaLibrary(), {
              enabled: true,
              allow: options.allow,
              maxBytes: this.deps.config.mediaMaxBytes,
              timeoutMs: options.timeoutMs ?? TEC_DEFAULTS.timeoutMs,
              baseUrl: this.deps.config.baseUrl,
            }),
          );
    const total = remote.categories.length + remote.tags.length + remote.venues.length + remote.organizers.length + events.length;
    let done = 0;
    const step = () => options.onProgress?.((done += 1), total);
    const refuse = (collection: Collection, item: Json) => (error: unknown) => {
      if (!(error instanceof AppError)) throw error;
      errors.push({ kind: SINGULAR[collection], id: item.id as number, name: nameOf(collection, item), ...refusalProblem(error) });
      return undefined;
    };
    await withWriteUnits(this.deps.db, options.dryRun === true, async (unit) => {
      for (const collection of ['categories', 'tags'] as const) {
        for (const item of parentsFirst(remote[collection])) {
          const id = await unit((db) => this.writeTerm(db, TERMS[collection], item, maps[collection], caller)).catch(
            refuse(collection, item),
          );
          if (id !== undefined) {
            maps[collection].set(item.id as number, id.id);
            counts[collection][id.created ? 'created' : 'unchanged'] += 1;
          }
          step();
        }
      }
      for (const collection of ['venues', 'organizers'] as const) {
        for (const item of remote[collection]) {
          const body = collection === 'venues' ? venueBody(item) : organizerBody(item);
          const isProtected = protectedItems.has(`${collection}/${String(item.id)}`);
          const written = await this.writeItem(unit, images, source, collection, item, body, isProtected, caller).catch(
            refuse(collection, item),
          );
          if (written !== undefined) {
            maps[collection].set(item.id as number, written.id);
            counts[collection][written.outcome] += 1;
            if (written.protected)
              notices.push({
                kind: SINGULAR[collection],
                id: item.id as number,
                name: nameOf(collection, item),
                ...PROTECTED_NOTICE,
              });
          }
          step();
        }
      }
      for (const { key, item } of events) {
        const keyed = { ...item, id: key };
        const isProtected = protectedItems.has(`events/${String(item.id)}`);
        const written = await this.writeItem(unit, images, source, 'events', keyed, eventBody(item, maps), isProtected, caller).catch(
          refuse('events', keyed),
        );
        if (written !== undefined) {
          counts.events[written.outcome] += 1;
          if (written.protected) notices.push({ kind: 'event', id: key, name: nameOf('events', item), ...PROTECTED_NOTICE });
        }
        step();
      }
    });
    return { source: client.base.href, ...counts, errors, notices };
  }

  private mediaLibrary(): MediaService {
    const { db, config, translateError, media } = this.deps;
    return media ?? new MediaService(db, mediaStorage(db, config.mediaDir), siteOf(config), config.mediaMaxPixels, translateError);
  }

  /** Every item of every collection, read before anything is written; the events first, which tell a TEC API. */
  private async fetchAll(client: TecClient, options: TecImportOptions): Promise<{ remote: Remote; protectedItems: Set<string> }> {
    const authenticated = options.credentials !== undefined;
    const statuses: Record<string, string> = authenticated ? { status: ALL_STATUSES } : {};
    const read = async (collection: Collection, query: Record<string, string>) => {
      const items: Json[] = [];
      for await (const page of client.pages(collection, { per_page: '50', ...query }, collection)) {
        items.push(...page.items);
        options.onFetched?.(collection, items.length);
      }
      return items;
    };
    const events = await read('events', { start_date: '1970-01-01', end_date: '2200-12-31', ...statuses });
    const [categories, tags, venues, organizers] = await Promise.all([
      read('categories', { hide_empty: 'false' }),
      read('tags', { hide_empty: 'false' }),
      read('venues', statuses),
      read('organizers', statuses),
    ]);
    const remote: Remote = { categories, tags, venues, organizers, events };
    addEmbedded(remote);
    return { remote, protectedItems: await this.unlock(client, remote, authenticated) };
  }

  /**
   * The password-protected venues, organizers and events (`collection/id`): read stripped, as the API shows them
   * to whom did not unlock them; with credentials, read again whole (`context=edit`, as who may edit them).
   */
  private async unlock(client: TecClient, remote: Remote, authenticated: boolean): Promise<Set<string>> {
    const found = new Set<string>();
    await Promise.all(
      (['venues', 'organizers', 'events'] as const).flatMap((collection) =>
        remote[collection].map(async (item, index) => {
          const stripped = collection === 'events' ? isStrippedEvent(item) : isStrippedLinked(item, LINKED[collection].nameField);
          if (!stripped) return;
          found.add(`${collection}/${String(item.id)}`);
          if (authenticated) remote[collection][index] = await client.item(`${collection}/${String(item.id)}`, { context: 'edit' });
        }),
      ),
    );
    return found;
  }

  /** A category or tag: the one of the same slug here, else a new one (under its parent, imported before it). */
  private async writeTerm(db: Db, info: TaxonomyInfo, item: Json, map: ReadonlyMap<number, number>, caller: RequestContext) {
    const slug = String(item.slug ?? '');
    const found = slug === '' ? undefined : (await findTermIdsByReference(db, info.taxonomy, { slugs: [slug] })).slugs.get(slug);
    if (found !== undefined) return { id: found, created: false };
    const service = new TermsService(info, {
      db,
      translateError: this.deps.translateError,
      namespaceUrl: `${this.deps.config.baseUrl}/${NAMESPACE}`,
      baseUrl: this.deps.config.baseUrl,
    });
    const parent = info.hierarchical && typeof item.parent === 'number' ? map.get(item.parent) : undefined;
    const body = {
      name: String(item.name ?? ''),
      ...(slug === '' ? {} : { slug }),
      ...(typeof item.description === 'string' && item.description !== '' ? { description: item.description } : {}),
      ...(parent === undefined ? {} : { parent }),
    };
    return { id: (await service.create(body, caller)).item.id, created: true };
  }

  /** A venue, organizer or event: written when new or changed there since the last run, under the remote id. */
  private async writeItem(
    unit: WriteUnit,
    images: ImageStore | undefined,
    source: string,
    collection: 'venues' | 'organizers' | 'events',
    item: Json,
    body: Json,
    isProtected: boolean,
    caller: RequestContext,
  ) {
    const key = `${SINGULAR[collection]}/${String(item.id)}`;
    const digest = digestOf(body);
    // The image of an item to write is stored before its transaction: the media library writes on its own.
    let withImage = body;
    if (images !== undefined) {
      const before = await repository.findImported(this.deps.db, source, key);
      if (before?.digest !== digest) withImage = await images.localize(body, caller.user);
    }
    return unit(async (db) => {
      const known = await repository.findImported(db, source, key);
      if (known !== undefined && known.digest === digest) return { id: known.post_id, outcome: 'unchanged' as const, protected: false };
      // The password is set when the item is made, and left as it is (set here) from then on.
      const written = known === undefined && isProtected ? { ...withImage, password: randomBytes(18).toString('base64url') } : withImage;
      const id = await this.write(db, collection, written, known?.post_id, caller);
      if (known === undefined) await repository.insertImported(db, { source, item_key: key, post_id: id, digest });
      else await repository.updateImportedDigest(db, source, key, digest);
      return {
        id,
        outcome: known === undefined ? ('created' as const) : ('updated' as const),
        protected: known === undefined && isProtected,
      };
    });
  }

  private async write(
    db: Db,
    collection: 'venues' | 'organizers' | 'events',
    body: Json,
    id: number | undefined,
    caller: RequestContext,
  ): Promise<number> {
    if (collection === 'events') {
      const service = new EventsService({ db, config: this.deps.config, passwords: this.deps.passwords });
      if (id === undefined) return (await service.createEvent(body as never, caller)).item.id;
      await service.updateEvent({ id }, body as never, caller);
      return id;
    }
    const service = new LinkedPostsService(LINKED[collection], db, this.deps.passwords);
    if (id === undefined) return (await service.create(body, caller)).item.id as number;
    await service.update({ id }, body, caller);
    return id;
  }
}

function nameOf(collection: Collection, item: Json): string {
  const field = collection === 'events' ? 'title' : collection === 'venues' ? 'venue' : collection === 'organizers' ? 'organizer' : 'name';
  return typeof item[field] === 'string' ? item[field] : '';
}

/** Categories ordered so that a parent comes before its children (a parent not in the list counts as none). */
function parentsFirst(items: readonly Json[]): Json[] {
  const ids = new Set(items.map((item) => item.id));
  const placed = new Set<unknown>();
  const ordered: Json[] = [];
  let rest = [...items];
  while (rest.length > 0) {
    const ready = rest.filter((item) => !ids.has(item.parent) || placed.has(item.parent) || item.parent === item.id);
    // A cycle of parents: the rest are taken as they come.
    const taken = ready.length > 0 ? ready : rest;
    for (const item of taken) {
      placed.add(item.id);
      ordered.push(item);
    }
    rest = rest.filter((item) => !taken.includes(item));
  }
  return ordered;
}

/** Venues, organizers and terms the events show that their own lists did not (a draft venue, to whom may not list it). */
function addEmbedded(remote: Remote): void {
  const known = Object.fromEntries(COLLECTIONS.map((collection) => [collection, new Set(remote[collection].map((item) => item.id))]));
  for (const event of remote.events) {
    for (const [collection, field] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
      ['categories', 'categories'],
      ['tags', 'tags'],
    ] as const) {
      const value = event[field];
      for (const entry of Array.isArray(value) ? value : [value]) {
        if (!isObject(entry) || !Number.isInteger(entry.id) || known[collection]?.has(entry.id)) continue;
        known[collection]?.add(entry.id);
        remote[collection].push(entry);
      }
    }
  }
}

/** The report as the command prints it: the counts, then each item not imported and each notice. */
export function tecReportLines(report: TecImportReport, dryRun: boolean): string[] {
  const counts = COLLECTIONS.map((collection) => {
    const { created, updated, unchanged } = report[collection];
    return `${collection}: ${created} created, ${updated} updated, ${unchanged} unchanged`;
  });
  const line = (problem: TecProblem) => `${problem.kind} ${problem.id} (${problem.name}): ${problem.message}`;
  return [
    `${counts.join('; ')}; errors ${report.errors.length}${dryRun ? ' (dry run: nothing written)' : ''}`,
    ...report.errors.map(line),
    ...report.notices.map(line),
  ];
}
