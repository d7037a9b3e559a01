import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import type { Db } from '../../platform/db/schema.ts';
import type { AllowList } from '../../platform/http/outbound.ts';
import { fetchBytes } from '../../platform/http/outbound.fetch.ts';
import { filenameOfUrl } from '../media/media.names.ts';
import { ImportProblemError } from '../common/import-problems.ts';
import type { WriteUnit } from '../common/import-transactions.ts';
import type { RequestContext } from '../common/context.ts';
import { EventsService } from '../events/events.service.ts';
import { CreateEventBodySchema, type CreateEventBody } from '../events/events.schemas.ts';
import { LinkedPostsService } from '../linked-posts/linked-posts.service.ts';
import type { PostWriteInput } from '../linked-posts/linked-posts.writes.ts';
import { MediaService } from '../media/media.service.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { CreateOrganizerBodySchema } from '../organizers/organizers.schemas.ts';
import { organizerKind } from '../organizers/organizers.kind.ts';
import { CreateVenueBodySchema } from '../venues/venues.schemas.ts';
import { venueKind } from '../venues/venues.kind.ts';
import { checked, type CsvImportDeps } from './csv.import.ts';
import * as repository from './imports.repository.ts';
import { eventBody, field, metaOf, organizerBody, venueBody, type Body, type Links, type WxrKind } from './wxr.map.ts';
import type { WxrItem, WxrTerm } from './wxr.read.ts';

/** The writes of a WordPress import's items (wxr.import.ts), each recorded with the site and post id it came from. */

export const SOURCE = 'wordpress';
export const SINGULAR: Readonly<Record<WxrKind | 'images', string>> = {
  events: 'event',
  venues: 'venue',
  organizers: 'organizer',
  images: 'image',
};

/** A featured image: its file in the uploads folder, and its address on the exported site. */
export interface Attachment {
  readonly file: string;
  readonly url: string;
  readonly line: number;
}

/** What the first reading gathers: small things items name, and how many items each pass writes. */
export interface Survey {
  site: string;
  readonly authors: Map<string, string>;
  readonly terms: Map<string, WxrTerm>;
  readonly attachments: Map<string, Attachment>;
  readonly thumbnails: Set<string>;
  readonly items: Record<WxrKind, number>;
}

export const termKey = (taxonomy: string, slug: string) => `${taxonomy}/${slug}`;
const digestOf = (body: Body) => createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);

/** A large image from a slow site still arrives; a site that does not answer does not hold the import long. */
const FETCH_TIMEOUT_MS = 30_000;

export type Outcome = 'created' | 'updated' | 'unchanged';

/** Where featured images come from: the uploads folder, else their address, fetched under the outbound guard. */
export interface ImageSources {
  readonly uploads?: string;
  readonly allow: AllowList;
}

/** The writes of one import's items, each in a unit of its own, recorded with where it came from. */
export class ItemWriter {
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
   * A featured image stored here, once: its file in the uploads folder, else fetched from its address. A dry run
   * reads the file and fetches nothing.
   */
  async image(id: string, attachment: Attachment, sources: ImageSources, dryRun: boolean): Promise<Outcome> {
    const key = this.key('images', id);
    if ((await this.unit((db) => repository.findImported(db, SOURCE, key))) !== undefined) return 'unchanged';
    // Read before the transaction: a fetch can take seconds, and holds no lock.
    const image = await this.imageFile(attachment, sources, dryRun);
    if (image === undefined) return 'created';
    return this.unit(async (db) => {
      const { config, translateError } = this.deps;
      const media = new MediaService(db, mediaStorage(db, config.mediaDir), this.caller.site, config.mediaMaxPixels, translateError);
      const stored = await media.upload(this.caller.user!, { ...image, fields: {} });
      await repository.insertImported(db, {
        source: SOURCE,
        item_key: key,
        post_id: stored.id,
        digest: digestOf({ file: attachment.file }),
      });
      return 'created' as const;
    });
  }

  /** The image's bytes and file name; undefined in a dry run, which stores nothing. */
  private async imageFile(attachment: Attachment, sources: ImageSources, dryRun: boolean) {
    const { uploads } = sources;
    const inFolder = uploads === undefined || attachment.file === '' ? undefined : resolve(uploads, attachment.file);
    // `_wp_attached_file` is relative to the folder: a path that climbs out of it is not read.
    if (inFolder !== undefined && inFolder.startsWith(`${uploads}${sep}`)) {
      const bytes = await readFile(inFolder).catch(() => undefined);
      if (bytes !== undefined) return dryRun ? undefined : { bytes, filename: basename(inFolder) };
    }
    if (!/^https?:\/\//i.test(attachment.url)) throw new ImportProblemError('wxr_image_not_found', { file: attachment.file });
    if (dryRun) return undefined;
    const fetched = await fetchBytes(attachment.url, {
      maxBytes: this.deps.config.mediaMaxBytes,
      allow: sources.allow,
      // Many WordPress sites still serve their uploads over http; the addresses are checked all the same.
      anyHttp: true,
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    if (!fetched.ok) throw new ImportProblemError('wxr_image_not_fetched', { url: attachment.url, detail: fetched.error });
    return { bytes: fetched.bytes, filename: filenameOfUrl(attachment.url) };
  }
}
