import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AppError } from '../../platform/errors.ts';
import { listUsers } from '../../platform/auth/users.repository.ts';
import { parseAllowList, type AllowList } from '../../platform/http/outbound.ts';
import { importProblem, ImportProblemError, type ImportProblem, type OwnProblem } from '../common/import-problems.ts';
import { refusalProblem, withWriteUnits, type WriteUnit } from '../common/import-transactions.ts';
import { NAMESPACE, type RequestContext } from '../common/context.ts';
import { TermsService } from '../terms/terms.service.ts';
import { findTermIdsByReference } from '../terms/terms.repository.ts';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../terms/terms.taxonomy.ts';
import type { CsvImportDeps } from './csv.import.ts';
import { field, isImported, kindOf, metaOf, type WxrKind } from './wxr.map.ts';
import { readWxr, WxrFileError, type WxrItem, type WxrTerm } from './wxr.read.ts';
import { ItemWriter, SINGULAR, termKey, type Attachment, type Outcome, type Survey } from './wxr.write.ts';

/**
 * Import of a WordPress export of a site with The Events Calendar (docs/moving-in.md). The file is read three
 * times, each in one stream: once to check it and gather what items name (authors, terms, attachments), once to
 * write venues and organizers, once to write events, which link to them. Each item is written in a transaction of
 * its own through the services, as the API would, and records where it came from (the site and its post id) with a
 * digest of what the export said: the same export imported again writes nothing, an edited one only what changed.
 */

const MAX_LISTED_ERRORS = 1000;
const KINDS = ['events', 'venues', 'organizers', 'images', 'categories', 'tags'] as const;
type CountedKind = (typeof KINDS)[number];
const TAXONOMIES: Readonly<Record<string, { info: TaxonomyInfo; kind: 'categories' | 'tags' }>> = {
  tribe_events_cat: { info: CATEGORIES, kind: 'categories' },
  post_tag: { info: TAGS, kind: 'tags' },
};

/**
 * A file that is no WordPress export of The Events Calendar (at `path`, with the `line` that shows it when there is
 * one), or one refused: nothing is imported. The one line the command prints.
 */
export class WxrImportError extends Error {
  constructor(
    readonly problem: OwnProblem,
    readonly path?: string,
    readonly line?: number,
  ) {
    super(`${path === undefined ? '' : `${path}: `}${line === undefined ? '' : `line ${line}: `}${problem.message}; nothing imported`);
  }
}

export interface WxrCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** An item not imported: where it is, what it is, and the problem (`message`, and its `code` and `params`). */
export interface WxrItemError extends ImportProblem {
  /** The line of the export the item starts on. */
  readonly line: number;
  /** `event 12`: its kind and its id in the export. */
  readonly item: string;
  readonly title: string;
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
  /** Hosts and address ranges images may be fetched from besides public ones (`--allow-hosts`). */
  readonly allow?: AllowList;
  readonly dryRun?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

const NO_HOSTS = parseAllowList('');

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
    const total = survey.items.events + survey.items.venues + survey.items.organizers + survey.thumbnails.size;
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
          const problem =
            error instanceof AppError ? refusalProblem(error) : error instanceof ImportProblemError ? error.problem : undefined;
          if (problem === undefined) throw error;
          errorCount += 1;
          if (errors.length < MAX_LISTED_ERRORS) errors.push({ line, item: `${SINGULAR[kind]} ${id}`, title, ...problem });
        }
        progress();
      };
      const sources = { uploads, allow: options.allow ?? NO_HOSTS };
      for (const id of survey.thumbnails) {
        const attachment = survey.attachments.get(id) as Attachment;
        await attempt('images', id, attachment.file, attachment.line, () => writer.image(id, attachment, sources, dryRun));
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
      if (error instanceof WxrFileError) throw new WxrImportError(error.problem, path, error.line);
      throw error;
    }
    if (survey.items.events + survey.items.venues + survey.items.organizers === 0)
      throw new WxrImportError(importProblem('wxr_no_tec_items'), path);
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

/** The uploads folder given, as an absolute path; a `WxrImportError` when it is no folder. */
async function uploadsFolder(given: string): Promise<string> {
  const path = resolve(given);
  const stats = await stat(path).catch(() => undefined);
  if (stats?.isDirectory() !== true) throw new WxrImportError(importProblem('wxr_no_uploads_folder', { folder: given }));
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
