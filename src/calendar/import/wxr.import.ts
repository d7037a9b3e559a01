import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import type { Kysely } from 'kysely';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import type { Database } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { listUsers } from '../../platform/auth/users.repository.ts';
import { withWriteUnits, type WriteUnit } from '../common/import-transactions.ts';
import { NAMESPACE, type RequestContext } from '../common/context.ts';
import { invalidParam } from '../common/wire.ts';
import { EventsService } from '../events/events.service.ts';
import { CreateEventBodySchema, type CreateEventBody } from '../events/events.schemas.ts';
import { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import type { PostWriteInput } from '../linked-posts/linked-posts.writes.ts';
import { MediaService } from '../media/media.service.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { CreateOrganizerBodySchema } from '../organizers/organizers.schemas.ts';
import { organizerKind } from '../organizers/organizers.kind.ts';
import { TermsService } from '../terms/terms.service.ts';
import { findTermIdsByReference } from '../terms/terms.repository.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../terms/terms.taxonomy.ts';
import { CreateVenueBodySchema } from '../venues/venues.schemas.ts';
import { venueKind } from '../venues/venues.kind.ts';
import type { CsvImportDeps } from './csv.import.ts';
import * as repository from './imports.repository.ts';
import { eventBody, field, isImported, kindOf, metaOf, organizerBody, venueBody, type Body, type Links, type WxrKind } from './wxr.map.ts';
import { readWxr, WxrFileError, type WxrItem, type WxrTerm } from './wxr.read.ts';

type Db = Kysely<Database>;

/**
 * Import of a WordPress export of a site with The Events Calendar (docs/moving-in.md). The file is read three
 * times, each in one stream: once to check it and gather what items name (authors, terms, attachments), once to
 * write venues and organizers, once to write events, which link to them. Each item is written in a transaction of
 * its own through the services, as the API would, and records where it came from (the site and its post id) with a
 * digest of what the export said: the same export imported again writes nothing, an edited one only what changed.
 */

const SOURCE = 'wordpress';
const MAX_LISTED_ERRORS = 1000;
const KINDS = ['events', 'venues', 'organizers', 'images', 'categories', 'tags'] as const;
type CountedKind = (typeof KINDS)[number];
const SINGULAR: Readonly<Record<WxrKind | 'images', string>> = {
  events: 'event',
  venues: 'venue',
  organizers: 'organizer',
  images: 'image',
};
const TAXONOMIES: Readonly<Record<string, { info: TaxonomyInfo; kind: 'categories' | 'tags' }>> = {
  tribe_events_cat: { info: CATEGORIES, kind: 'categories' },
  post_tag: { info: TAGS, kind: 'tags' },
};

/** A file that is no WordPress export of The Events Calendar, or one refused: the one line the command prints. */
export class WxrImportError extends Error {}

export interface WxrCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface WxrItemError {
  /** The line of the export the item starts on. */
  readonly line: number;
  /** `event 12`: its kind and its id in the export. */
  readonly item: string;
  readonly title: string;
  readonly message: string;
}

export interface WxrImportReport extends Record<CountedKind, WxrCounts> {
  /** Logins of the export's authors no user here has (by login or e-mail): their items are the importing user's. */
  readonly unmatched_authors: string[];
  readonly errors: WxrItemError[];
  readonly error_count: number;
}

export interface WxrImportOptions {
  /** The site's wp-content/uploads folder: featured images are taken from it and stored here. */
  readonly uploads?: string;
  readonly dryRun?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

/** A featured image: its file in the uploads folder, and its address on the exported site. */
interface Attachment {
  readonly file: string;
  readonly url: string;
  readonly line: number;
}

/** What the first reading gathers: small things items name, and how many items each pass writes. */
interface Survey {
  site: string;
  readonly authors: Map<string, string>;
  readonly terms: Map<string, WxrTerm>;
  readonly attachments: Map<string, Attachment>;
  readonly thumbnails: Set<string>;
  readonly items: Record<WxrKind, number>;
}

const termKey = (taxonomy: string, slug: string) => `${taxonomy}/${slug}`;
const digestOf = (body: Body) => createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);

/** A write as the API's schema takes it: what the route would refuse is refused here too, naming the field. */
function checked<T>(schema: TSchema, body: unknown): T {
  if (Value.Check(schema, body)) return body as T;
  const [first] = Value.Errors(schema, body);
  const param = first?.instancePath.split('/')[1] || 'body';
  throw invalidParam(param, first === undefined ? 'Invalid parameter.' : `${first.instancePath} ${first.message}`);
}

export class WxrImport {
  constructor(private readonly deps: CsvImportDeps) {}

  async importFile(path: string, caller: RequestContext, options: WxrImportOptions = {}): Promise<WxrImportReport> {
    const survey = await this.survey(path);
    const uploads = options.uploads === undefined ? undefined : await uploadsFolder(options.uploads);
    const authors = await this.authorIds(survey.authors, caller);
    const unmatched = new Set<string>();
    const authorOf = (item: WxrItem) => {
      const login = field(item, 'dc:creator');
      const id = authors.get(login);
      if (id === undefined && login !== '') unmatched.add(login);
      return id ?? (caller.user?.id as number);
    };
    const counts = Object.fromEntries(KINDS.map((kind) => [kind, { created: 0, updated: 0, unchanged: 0 }])) as Record<
      CountedKind,
      WxrCounts
    >;
    const errors: WxrItemError[] = [];
    let errorCount = 0;
    const images = uploads === undefined ? [] : [...survey.thumbnails];
    const total = survey.items.events + survey.items.venues + survey.items.organizers + images.length;
    let done = 0;
    const progress = () => options.onProgress?.((done += 1), total);
    const dryRun = options.dryRun === true;
    await withWriteUnits(this.deps.db, dryRun, async (unit) => {
      const termIds = await this.writeTerms(unit, survey, caller, counts);
      const writer = new ItemWriter(this.deps, unit, caller, survey, termIds);
      const attempt = async (kind: WxrKind | 'images', id: string, title: string, line: number, write: () => Promise<Outcome>) => {
        try {
          counts[kind][await write()] += 1;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          errorCount += 1;
          const params = (error.data as { params?: Record<string, string> }).params;
          const message = params === undefined ? error.message : `${error.message}: ${Object.values(params).join(' ')}`;
          if (errors.length < MAX_LISTED_ERRORS) errors.push({ line, item: `${SINGULAR[kind]} ${id}`, title, message });
        }
        progress();
      };
      for (const id of images) {
        const attachment = survey.attachments.get(id) as Attachment;
        await attempt('images', id, attachment.file, attachment.line, () => writer.image(id, attachment, uploads as string, dryRun));
      }
      for (const pass of [['venues', 'organizers'], ['events']] as const) {
        for await (const item of this.tecItems(path)) {
          const kind = kindOf(item) as WxrKind;
          if (!(pass as readonly string[]).includes(kind)) continue;
          const id = field(item, 'wp:post_id');
          await attempt(kind, id, field(item, 'title'), item.line, () => writer.item(kind, item, authorOf(item)));
        }
      }
    });
    return { ...counts, unmatched_authors: [...unmatched].sort(), errors, error_count: errorCount };
  }

  /** The first reading: the export checked through, and what its items name gathered. */
  private async survey(path: string): Promise<Survey> {
    const survey: Survey = {
      site: '',
      authors: new Map(),
      terms: new Map(),
      attachments: new Map(),
      thumbnails: new Set(),
      items: { events: 0, venues: 0, organizers: 0 },
    };
    const declared = new Map<string, WxrTerm>();
    try {
      for await (const record of readWxr(path)) {
        if (record.kind === 'channel') survey.site = record.site;
        else if (record.kind === 'author') survey.authors.set(record.login, record.email.toLowerCase());
        else if (record.kind === 'term') declared.set(termKey(record.taxonomy, record.slug), record);
        else if (field(record, 'wp:post_type') === 'attachment') {
          const file = metaOf(record, '_wp_attached_file') ?? '';
          survey.attachments.set(field(record, 'wp:post_id'), { file, url: field(record, 'wp:attachment_url'), line: record.line });
        } else this.surveyItem(survey, record, declared);
      }
    } catch (error) {
      if (error instanceof WxrFileError) throw new WxrImportError(`${path}: ${error.message}; nothing imported`);
      throw error;
    }
    if (survey.items.events + survey.items.venues + survey.items.organizers === 0)
      throw new WxrImportError(
        `${path}: a WordPress export without The Events Calendar's events, venues or organizers (tribe_events, tribe_venue, tribe_organizer); nothing imported`,
      );
    for (const id of survey.thumbnails) if (!survey.attachments.has(id)) survey.thumbnails.delete(id);
    // Every category of The Events Calendar, with the parents of those events name.
    for (const term of declared.values())
      if (term.taxonomy === 'tribe_events_cat') survey.terms.set(termKey(term.taxonomy, term.slug), term);
    for (const [key, term] of survey.terms) survey.terms.set(key, declared.get(key) ?? term);
    return survey;
  }

  private surveyItem(survey: Survey, item: WxrItem, declared: ReadonlyMap<string, WxrTerm>): void {
    const kind = kindOf(item);
    if (kind === undefined || !isImported(item)) return;
    survey.items[kind] += 1;
    const thumbnail = metaOf(item, '_thumbnail_id');
    if (thumbnail !== undefined && thumbnail !== '0') survey.thumbnails.add(thumbnail);
    for (const term of item.terms) {
      if (TAXONOMIES[term.taxonomy] === undefined || term.slug === '') continue;
      const key = termKey(term.taxonomy, term.slug);
      if (!survey.terms.has(key)) survey.terms.set(key, { kind: 'term', ...term, parent: '', description: '' });
      // Its parents, which the export declares before it.
      for (let parent = declared.get(key)?.parent; parent; parent = declared.get(termKey(term.taxonomy, parent))?.parent) {
        const parentKey = termKey(term.taxonomy, parent);
        if (survey.terms.has(parentKey) || !declared.has(parentKey)) break;
        survey.terms.set(parentKey, declared.get(parentKey) as WxrTerm);
      }
    }
  }

  /** The export's items of The Events Calendar that are imported, in file order. */
  private async *tecItems(path: string): AsyncGenerator<WxrItem> {
    for await (const record of readWxr(path))
      if (record.kind === 'item' && kindOf(record) !== undefined && isImported(record)) yield record;
  }

  /** Each author's user here: the one of the same login, else of the same e-mail. */
  private async authorIds(authors: ReadonlyMap<string, string>, caller: RequestContext): Promise<Map<string, number>> {
    const users = await listUsers(this.deps.db);
    const ids = new Map<string, number>();
    for (const [login, email] of authors) {
      const user = users.find((row) => row.username === login) ?? users.find((row) => email !== '' && row.email.toLowerCase() === email);
      if (user !== undefined) ids.set(login, user.id);
    }
    if (caller.user !== null) ids.set(caller.user.username, ids.get(caller.user.username) ?? caller.user.id);
    return ids;
  }

  /**
   * Categories (parents first) and tags: each one found here by its slug, else created with the export's name,
   * description and parent. A term already here is used as it is. Returns each term's id by `termKey`.
   */
  private async writeTerms(unit: WriteUnit, survey: Survey, caller: RequestContext, counts: Record<CountedKind, WxrCounts>) {
    const ids = new Map<string, number>();
    const { config, translateError } = this.deps;
    const write = async (term: WxrTerm, path: ReadonlySet<string>): Promise<number | undefined> => {
      const key = termKey(term.taxonomy, term.slug);
      if (ids.has(key) || path.has(key)) return ids.get(key);
      const parentTerm = term.parent === '' ? undefined : survey.terms.get(termKey(term.taxonomy, term.parent));
      const parent = parentTerm === undefined ? undefined : await write(parentTerm, new Set([...path, key]));
      const { info, kind } = TAXONOMIES[term.taxonomy] as (typeof TAXONOMIES)[string];
      const { id, outcome } = await unit(async (db) => {
        const found = (await findTermIdsByReference(db, info.taxonomy, { ids: [], slugs: [term.slug], nameKeys: [] })).slugs.get(term.slug);
        if (found !== undefined) return { id: found, outcome: 'unchanged' as const };
        const service = new TermsService(info, {
          db,
          translateError,
          namespaceUrl: `${config.baseUrl}/${NAMESPACE}`,
          baseUrl: config.baseUrl,
        });
        const body = { name: term.name, slug: term.slug, ...(term.description === '' ? {} : { description: term.description }) };
        const created = await service.create({ ...body, ...(parent === undefined || !info.hierarchical ? {} : { parent }) }, caller);
        return { id: created.item.id, outcome: 'created' as const };
      });
      counts[kind][outcome] += 1;
      ids.set(key, id);
      return id;
    };
    for (const term of survey.terms.values()) await write(term, new Set());
    return ids;
  }
}

type Outcome = keyof WxrCounts;

/** The writes of one import's items, each in a unit of its own, recorded with where it came from. */
class ItemWriter {
  constructor(
    private readonly deps: CsvImportDeps,
    private readonly unit: WriteUnit,
    private readonly caller: RequestContext,
    private readonly survey: Survey,
    private readonly termIds: ReadonlyMap<string, number>,
  ) {}

  private key(kind: WxrKind | 'images', id: string): string {
    return `${this.survey.site} ${SINGULAR[kind]}/${id}`;
  }

  private async imported(db: Db, kind: WxrKind | 'images', id: string | undefined): Promise<number | undefined> {
    if (id === undefined || id === '' || id === '0') return undefined;
    return (await repository.findImported(db, SOURCE, this.key(kind, id)))?.post_id;
  }

  /** Writes the item when the export says something else than the last import wrote; what that was. */
  private recorded(key: string, body: (db: Db) => Promise<Body>, write: (db: Db, body: Body, id?: number) => Promise<number>) {
    return this.unit(async (db): Promise<Outcome> => {
      const known = await repository.findImported(db, SOURCE, key);
      const wanted = await body(db);
      const digest = digestOf(wanted);
      if (known !== undefined && known.digest === digest) return 'unchanged';
      const id = await write(db, wanted, known?.post_id);
      if (known === undefined) await repository.insertImported(db, { source: SOURCE, item_key: key, post_id: id, digest });
      else await repository.updateImportedDigest(db, SOURCE, key, digest);
      return known === undefined ? 'created' : 'updated';
    });
  }

  item(kind: WxrKind, item: WxrItem, author: number): Promise<Outcome> {
    const id = field(item, 'wp:post_id');
    return this.recorded(
      this.key(kind, id),
      async (db) => {
        const image = metaOf(item, '_thumbnail_id')?.trim();
        const links: Links = { author, image: (await this.imported(db, 'images', image)) ?? this.addressOf(image) };
        if (kind === 'venues') return venueBody(item, links);
        if (kind === 'organizers') return organizerBody(item, links);
        return eventBody(item, await this.eventLinks(db, item, links));
      },
      (db, body, existing) => (kind === 'events' ? this.writeEvent(db, body, existing) : this.writeLinked(db, kind, body, existing)),
    );
  }

  /** A featured image not stored here: its address, as an image URL is written through the API. */
  private addressOf(attachment: string | undefined): string | undefined {
    const url = attachment === undefined ? undefined : this.survey.attachments.get(attachment)?.url;
    return url !== undefined && /^https?:\/\//i.test(url) ? url : undefined;
  }

  private async eventLinks(db: Db, item: WxrItem, links: Links): Promise<Links> {
    const organizers: number[] = [];
    for (const id of item.meta.get('_EventOrganizerID') ?? []) {
      const found = await this.imported(db, 'organizers', id.trim());
      if (found !== undefined && !organizers.includes(found)) organizers.push(found);
    }
    const terms = (taxonomy: string) =>
      item.terms.flatMap((term) => (term.taxonomy === taxonomy ? (this.termIds.get(termKey(taxonomy, term.slug)) ?? []) : []));
    return {
      ...links,
      venue: (await this.imported(db, 'venues', metaOf(item, '_EventVenueID')?.trim())) ?? null,
      organizers,
      categories: terms('tribe_events_cat'),
      tags: terms('post_tag'),
    };
  }

  private async writeEvent(db: Db, body: Body, id: number | undefined): Promise<number> {
    const event = checked<CreateEventBody>(CreateEventBodySchema, body);
    const service = new EventsService({ db, config: this.deps.config, passwords: this.deps.passwords });
    if (id === undefined) return (await service.createEvent(event, this.caller)).item.id;
    await service.updateEvent({ id }, event, this.caller);
    return id;
  }

  private async writeLinked(db: Db, kind: 'venues' | 'organizers', body: Body, id: number | undefined): Promise<number> {
    const service = new LinkedPostsService(kind === 'venues' ? venueKind : organizerKind, db, this.deps.passwords);
    const input = checked<PostWriteInput>(kind === 'venues' ? CreateVenueBodySchema : CreateOrganizerBodySchema, body);
    if (id === undefined) return (await service.create(input, this.caller)).item.id as number;
    await service.update({ id }, input, this.caller);
    return id;
  }

  /**
   * A featured image: its file in the uploads folder stored as an image here, once. A dry run reads the file and
   * stores nothing.
   */
  async image(id: string, attachment: Attachment, uploads: string, dryRun: boolean): Promise<Outcome> {
    const key = this.key('images', id);
    return this.unit(async (db) => {
      if ((await repository.findImported(db, SOURCE, key)) !== undefined) return 'unchanged';
      const path = resolve(uploads, attachment.file);
      if (attachment.file === '' || !path.startsWith(`${uploads}${sep}`))
        throw new AppError(400, 'image_not_found', `the attachment's file ${JSON.stringify(attachment.file)} is not in the uploads folder`);
      const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
        throw new AppError(400, 'image_not_found', `cannot read ${path}: ${error.code ?? error.message}`);
      });
      if (dryRun) return 'created';
      const { config, translateError } = this.deps;
      const media = new MediaService(db, mediaStorage(db, config.mediaDir), this.caller.site, config.mediaMaxPixels, translateError);
      const stored = await media.upload(this.caller.user!, { bytes, filename: basename(path), fields: {} });
      await repository.insertImported(db, {
        source: SOURCE,
        item_key: key,
        post_id: stored.id,
        digest: digestOf({ file: attachment.file }),
      });
      return 'created';
    });
  }
}

/** The uploads folder given, as an absolute path; a `WxrImportError` when it is no folder. */
async function uploadsFolder(given: string): Promise<string> {
  const path = resolve(given);
  const stats = await stat(path).catch(() => undefined);
  if (stats?.isDirectory() !== true) throw new WxrImportError(`--uploads ${given}: no such folder; nothing imported`);
  return path;
}

/** The report as the command prints it: the counts, the authors not found, then each error. */
export function wxrReportLines(report: WxrImportReport, dryRun: boolean): string[] {
  const counts = KINDS.map(
    (kind) => `${kind}: ${report[kind].created} created, ${report[kind].updated} updated, ${report[kind].unchanged} unchanged`,
  );
  return [
    `${counts.join('; ')}; errors ${report.error_count}${dryRun ? ' (dry run: nothing written)' : ''}`,
    ...(report.unmatched_authors.length === 0
      ? []
      : [`authors without a user here (their items are the importing user's): ${report.unmatched_authors.join(', ')}`]),
    ...report.errors.map((error) => `line ${error.line}, ${error.item} (${error.title}): ${error.message}`),
    ...(report.error_count > report.errors.length ? [`… and ${report.error_count - report.errors.length} more errors`] : []),
  ];
}
