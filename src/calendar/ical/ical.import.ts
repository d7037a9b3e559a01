import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { UniqueViolationError } from '../../platform/db/dialect/errors.ts';
import { importProblem, type ImportProblem } from '../common/import-problems.ts';
import { refusalProblem, withWriteUnits, type WriteUnit } from '../common/import-transactions.ts';
import { inSavepoint } from '../../platform/db/savepoints.repository.ts';
import { EventsService } from '../events/events.service.ts';
import Value from 'typebox/value';
import { CreateEventBodySchema, type CreateEventBody } from '../events/events.schemas.ts';
import { invalidParam } from '../common/wire.ts';
import type { PostPasswords } from '../posts/posts.passwords.ts';
import { fromWallTime } from '../common/dates.ts';
import { eventIdOfOwnUid } from './ical.uid.ts';
import { isRole } from '../../platform/auth/capabilities.ts';
import { findUserByUsername, listUsers } from '../../platform/auth/users.repository.ts';
import { can } from '../calendar.capabilities.ts';
import { siteOf, type RequestContext } from '../common/context.ts';
import { languageOfLocale, SiteSettingsService } from '../settings/settings.service.ts';
import { parseCalendar, type ParsedCalendar } from './ical.import.parse.ts';
import {
  draftOf,
  EventProblem,
  FileTimes,
  property,
  utcStamp,
  type AskedStatus,
  type Draft,
  type StatusSaid,
} from './ical.import.draft.ts';
import type { PostStatus } from '../calendar.tables.ts';
import * as repository from './ical.import.repository.ts';

export { IcalSyntaxError } from './ical.import.parse.ts';

/**
 * Import of an iCalendar file (docs/calendar-ical.md, "Import"): the whole
 * file is parsed and checked first (a malformed one is an `IcalSyntaxError`
 * and nothing is written); then each VEVENT is written through the events
 * service, as the API would write it, in a transaction of its own. An event
 * the service refuses is an error of the report and the others go on.
 */

/** An event not imported: its line, its UID, and the problem (`message`, and its `code` and `params`). */
export interface ImportError extends ImportProblem {
  readonly line: number;
  readonly uid: string | null;
}

export interface ImportReport {
  readonly created: number;
  readonly updated: number;
  readonly skipped: number;
  readonly errors: ImportError[];
}

export interface ImportOptions {
  /** Every event is written, then everything is rolled back: the report says what would happen. */
  readonly dryRun?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface IcalImportDeps {
  readonly db: Db;
  readonly config: Config;
  readonly passwords: PostPasswords;
  /** The store's driver-error translation (`Store.translateError`). */
  readonly translateError: (error: unknown) => unknown;
}

type Outcome = 'created' | 'updated' | 'skipped';

/**
 * How a write treats stored events: an import skips what is no newer (SEQUENCE, LAST-MODIFIED); a CalDAV PUT, read
 * first (If-Match), replaces it and publishes a new event as far as the caller's role allows (a contributor's: review).
 */
type WriteMode = { readonly replace: boolean; readonly newStatus?: AskedStatus };
const IMPORTING: WriteMode = { replace: false };
const REPLACING: WriteMode = { replace: true, newStatus: 'publish' };

/** Newer than what is stored: a higher SEQUENCE, or the same one with a LAST-MODIFIED after the stored event's last change. */
function isNewer(draft: Draft, target: repository.ImportTarget): boolean {
  if (draft.sequence !== target.sequence) return draft.sequence > target.sequence;
  return draft.lastModifiedMs !== undefined && draft.lastModifiedMs > Date.parse(`${target.modified_utc.replace(' ', 'T')}Z`);
}

/** How widely a status shows an event. */
const REACH: Readonly<Record<PostStatus, number>> = { trash: 0, draft: 1, pending: 1, private: 2, future: 3, publish: 4 };
const reach = (status: string): number => (status in REACH ? REACH[status as PostStatus] : 0);

/**
 * The status an import writes, undefined to keep `current` (or take the API's default for a new event): the one the
 * file asks for, and never above what its STATUS or CLASS allows. Feeds say CONFIRMED or TENTATIVE of events anonymous
 * readers never see, so a file an app sends back raises nothing unless it asks.
 */
function statusToWrite({ asked, atMost }: StatusSaid, current: string): PostStatus | undefined {
  return atMost !== undefined && reach(asked ?? current) > reach(atMost) ? atMost : asked;
}

/** What a feed leaves out of a password-protected event, by the property that would carry it. */
const GUARDED_BY_PASSWORD = {
  description: 'DESCRIPTION',
  venue: 'LOCATION',
  organizer: 'ORGANIZER',
  categories: 'CATEGORIES',
  website: 'URL',
} as const;

/**
 * A write to `target` without what the file does not say of a protected event: its feed leaves that out, so a file
 * sent back from the feed would otherwise erase the event's content.
 */
function withoutUnsaid<T extends Partial<CreateEventBody>>(body: T, draft: Draft, target: repository.ImportTarget | undefined): T {
  if (target === undefined || target.password_hash === null) return body;
  const retained = { ...body };
  for (const [field, name] of Object.entries(GUARDED_BY_PASSWORD)) if (!draft.propertyNames.has(name)) delete retained[field as keyof T];
  return retained;
}

/** A file without URL removes the website `target` was given; an event without one keeps showing its page. */
function websiteOf(draft: Draft, target: repository.ImportTarget | undefined): Pick<CreateEventBody, 'website'> {
  return draft.body.website !== undefined || !target?.website ? {} : { website: '' };
}

/** What a write may change but says nothing of the event itself. */
const BOOKKEEPING = new Set(['modified', 'modified_utc']);

/** An event as the importing caller reads it, for comparing before and after a write. */
async function readable(db: Db, service: EventsService, id: number, caller: RequestContext): Promise<string> {
  const { item } = await service.written(db, id, caller);
  return JSON.stringify(Object.entries(item).filter(([key]) => !BOOKKEEPING.has(key)));
}

/** Thrown to undo a write that changed nothing. */
const UNCHANGED = Symbol('unchanged');

/**
 * `write` to the event `id`, kept when the event reads differently after it: an update that changes nothing is undone
 * (its `modified` and SEQUENCE stay) and reported as such, so a file imported again reports nothing updated.
 */
async function writeIfChanged(
  db: Db,
  service: EventsService,
  id: number,
  caller: RequestContext,
  write: () => Promise<unknown>,
): Promise<'updated' | 'skipped'> {
  const before = await readable(db, service, id, caller);
  try {
    await inSavepoint(db, async () => {
      await write();
      if ((await readable(db, service, id, caller)) === before) throw UNCHANGED;
    });
    return 'updated';
  } catch (error) {
    if (error === UNCHANGED) return 'skipped';
    throw error;
  }
}

const COORDINATE_TOLERANCE = 0.001;

export class IcalImport {
  constructor(private readonly deps: IcalImportDeps) {}

  /** Imports `text` as `caller`; throws `IcalSyntaxError` (nothing written) when the file is malformed. */
  async importCalendar(text: string, caller: RequestContext, options: ImportOptions = {}): Promise<ImportReport> {
    const calendar = parseCalendar(text);
    const times = new FileTimes(calendar, caller.site.timezone);
    // An event with a problem is its report's error as it stands.
    const drafts: (Draft | ImportError)[] = calendar.events.map((event) => {
      try {
        return draftOf(event, times);
      } catch (error) {
        if (error instanceof EventProblem) return { line: error.line, uid: property(event, 'UID')?.value.trim() || null, ...error.problem };
        throw error;
      }
    });
    const isError = (draft: Draft | ImportError): draft is ImportError => 'code' in draft;
    // Series before the exceptions to their occurrences, each group in file order.
    const ordered = [
      ...drafts.filter((draft) => isError(draft) || draft.recurrenceId === undefined),
      ...drafts.filter((draft) => !isError(draft) && draft.recurrenceId !== undefined),
    ];
    const counts = { created: 0, updated: 0, skipped: 0 };
    const errors: ImportError[] = [];
    const run = async (unit: WriteUnit) => {
      let done = 0;
      for (const draft of ordered) {
        if (isError(draft)) {
          errors.push(draft);
        } else {
          try {
            counts[await unit((db) => this.importEvent(db, draft, caller))] += 1;
          } catch (error) {
            if (error instanceof EventProblem) errors.push({ line: error.line, uid: draft.uid, ...error.problem });
            else if (error instanceof AppError) errors.push({ line: lineOf(error, draft), uid: draft.uid, ...refusalProblem(error) });
            // Two imports of one new UID at once: the second one's event is rolled back.
            else if (this.deps.translateError(error) instanceof UniqueViolationError) {
              errors.push({ line: draft.line, uid: draft.uid, ...importProblem('ical_uid_taken_meanwhile') });
            } else throw error;
          }
        }
        done += 1;
        options.onProgress?.(done, ordered.length);
      }
    };
    await withWriteUnits(this.deps.db, options.dryRun === true, run);
    errors.sort((a, b) => a.line - b.line);
    return { ...counts, errors };
  }

  /**
   * One calendar object resource (RFC 4791 §4.1: a single event, or a series and its overrides, of one UID) written as
   * a CalDAV PUT writes it: in one transaction, after `check` has held and checked the stored event there, replacing
   * what is stored whatever its SEQUENCE, then `record` given the event's id. An `EventProblem` or a refusal of the
   * service writes nothing. The event's id.
   */
  async writeResource(
    calendar: ParsedCalendar,
    caller: RequestContext,
    check: (db: Db) => Promise<void>,
    record: (db: Db, id: number) => Promise<void>,
  ): Promise<number> {
    const times = new FileTimes(calendar, caller.site.timezone);
    const drafts = calendar.events.map((event) => draftOf(event, times));
    const ordered = [
      ...drafts.filter((draft) => draft.recurrenceId === undefined),
      ...drafts.filter((draft) => draft.recurrenceId !== undefined),
    ];
    return withWriteUnits(this.deps.db, false, (unit) =>
      unit(async (db) => {
        await check(db);
        for (const draft of ordered) await this.importEvent(db, draft, caller, REPLACING);
        const uid = ordered[0]?.uid ?? '';
        const id = (await repository.findEventIdByUid(db, uid)) ?? eventIdOfOwnUid(uid, this.deps.config.baseUrl);
        if (id === undefined) throw new EventProblem(ordered[0]?.line ?? 1, 'ical_resource_empty');
        await record(db, id);
        return id;
      }),
    );
  }

  private async importEvent(db: Db, draft: Draft, caller: RequestContext, mode = IMPORTING): Promise<Outcome> {
    const service = new EventsService({ db, config: this.deps.config, passwords: this.deps.passwords });
    const existingId = (await repository.findEventIdByUid(db, draft.uid)) ?? eventIdOfOwnUid(draft.uid, this.deps.config.baseUrl);
    const existing = existingId === undefined ? undefined : await repository.findImportTarget(db, existingId);
    if (draft.recurrenceId !== undefined) return this.importException(db, service, draft, existing, caller, mode);
    const target = existing?.parent_id === null ? existing : undefined;
    if (target !== undefined && !mode.replace && !isNewer(draft, target)) return 'skipped';
    const said = target === undefined ? { ...draft.status, asked: draft.status.asked ?? mode.newStatus } : draft.status;
    const status = statusToWrite(said, target?.status ?? 'publish');
    const body = checked(
      withoutUnsaid(
        { ...draft.body, ...websiteOf(draft, target), ...(await this.links(db, draft)), ...(status === undefined ? {} : { status }) },
        draft,
        target,
      ),
    );
    if (target !== undefined) {
      return writeIfChanged(db, service, target.id, caller, async () => {
        await service.updateEvent({ id: target.id }, body, caller);
        await repository.raiseSequence(db, target.id, draft.sequence);
      });
    }
    // The event was published when its source says it was created; a date ahead would make it scheduled instead.
    const published = draft.created !== undefined && draft.created <= utcStamp(Date.now()) ? { date_utc: draft.created } : {};
    const { item: created } = await service.createEvent({ ...body, ...published }, caller);
    // Unique: an import of the same UID that committed meanwhile makes this one fail, and roll back, here.
    await repository.insertUid(db, draft.uid, created.id);
    await repository.raiseSequence(db, created.id, draft.sequence);
    return 'created';
  }

  /** A VEVENT with RECURRENCE-ID: a change to one occurrence of its series, written through the occurrence's id. */
  private async importException(
    db: Db,
    service: EventsService,
    draft: Draft,
    series: repository.ImportTarget | undefined,
    caller: RequestContext,
    mode: WriteMode,
  ): Promise<Outcome> {
    const line = draft.recurrenceId?.line ?? draft.line;
    if (series === undefined || series.parent_id !== null) throw new EventProblem(line, 'ical_exception_without_series');
    const moment = draft.recurrenceId?.moment;
    const originalStart =
      moment === undefined
        ? undefined
        : moment.kind === 'time'
          ? utcStamp(moment.epochMs)
          : fromWallTime(`${moment.day} 00:00:00`, series.timezone)?.utc;
    const occurrence = originalStart === undefined ? undefined : await repository.findOccurrence(db, series.id, originalStart);
    if (occurrence === undefined) {
      // Cancelled before (by this file's last import, or by hand): the series already says what the file says.
      if (draft.cancelled && originalStart !== undefined) return 'skipped';
      throw new EventProblem(line, 'ical_exception_without_occurrence');
    }
    if (occurrence.is_exception === 1 && !mode.replace && !isNewer(draft, occurrence)) return 'skipped';
    if (draft.cancelled) {
      // A cancelled occurrence leaves its series, as a DELETE through its id does.
      await service.deleteEvent({ id: occurrence.id }, {}, caller);
      return 'updated';
    }
    // An occurrence takes its status and recurrence from its series.
    const { recurrence: _recurrence, ...body } = draft.body;
    const write = checked(withoutUnsaid({ ...body, ...websiteOf(draft, occurrence), ...(await this.links(db, draft)) }, draft, occurrence));
    return writeIfChanged(db, service, occurrence.id, caller, async () => {
      await service.updateEvent({ id: occurrence.id }, write, caller);
      await repository.raiseSequence(db, occurrence.id, draft.sequence);
    });
  }

  /** The venue and organizer of a draft: existing ones by their rules (docs/calendar-ical.md), else created by the service. */
  private async links(db: Db, draft: Draft): Promise<Pick<CreateEventBody, 'venue' | 'organizer'>> {
    let venue: CreateEventBody['venue'] = null;
    if (draft.location !== undefined) {
      const { name, address } = draft.location;
      const named = await repository.findVenuesNamed(db, name);
      const { geo } = draft;
      const near = (row: (typeof named)[number]) =>
        geo !== undefined &&
        row.geo_lat !== null &&
        row.geo_lng !== null &&
        Math.abs(row.geo_lat - geo.lat) <= COORDINATE_TOLERANCE &&
        Math.abs(row.geo_lng - geo.lng) <= COORDINATE_TOLERANCE;
      const match = geo === undefined ? named[0] : (named.find(near) ?? named.find((row) => row.geo_lat === null));
      venue =
        match !== undefined
          ? match.id
          : { venue: name, ...(address === '' ? {} : { address }), ...(geo === undefined ? {} : { geo_lat: geo.lat, geo_lng: geo.lng }) };
    }
    let organizer: CreateEventBody['organizer'] = [];
    if (draft.organizer !== undefined) {
      const { name, email } = draft.organizer;
      const id =
        (email === undefined ? undefined : await repository.findOrganizerByEmail(db, email)) ??
        (await repository.findOrganizerByName(db, name));
      organizer = id !== undefined ? [id] : [{ organizer: name, ...(email === undefined ? {} : { email }) }];
    }
    return { venue, organizer };
  }
}

/** A write as the API's schema takes it (lengths, counts, characters): what the route would refuse is refused here too. */
function checked<T extends Partial<CreateEventBody>>(body: T): T {
  if (Value.Check(CreateEventBodySchema, body)) return body;
  const [first] = Value.Errors(CreateEventBodySchema, body);
  const param = first?.instancePath.split('/')[1] || 'body';
  throw invalidParam(param, first === undefined ? 'Invalid parameter.' : `${first.instancePath} ${first.message}`);
}

/** The line of the property the service found wrong, else the event's. */
function lineOf(error: AppError, draft: Draft): number {
  const params = (error.data as { params?: Record<string, string> }).params;
  const param = params === undefined ? undefined : Object.keys(params)[0];
  return (param === undefined ? undefined : draft.lines[param]) ?? draft.line;
}

/** The service's refusal in words, with what it found wrong in each argument. */
export function messageOf(error: AppError): string {
  return refusalProblem(error).message;
}

/**
 * Who a command-line import writes as: `username`, or the first
 * administrator; an unknown user, or one below editor, is an error (as
 * `POST /events.ics` refuses them).
 */
export async function commandLineCaller(db: Db, config: Config, username: string | undefined): Promise<RequestContext> {
  const user =
    username === undefined ? (await listUsers(db)).find((row) => row.role === 'administrator') : await findUserByUsername(db, username);
  if (user === undefined) {
    throw new AppError(
      400,
      'unknown_user',
      username === undefined ? 'no administrator to import as: pass --as USER' : `unknown user: ${username}`,
    );
  }
  if (!isRole(user.role) || !can(user.role, 'edit_others')) {
    throw new AppError(403, 'rest_forbidden', `${user.username} is ${user.role}: importing takes an editor or above`);
  }
  const settings = await new SiteSettingsService(db, config).latest();
  const language = languageOfLocale(settings.language);
  return {
    user: { id: user.id, username: user.username, displayName: user.display_name, role: user.role },
    language,
    defaultLanguage: language,
    site: { ...siteOf(config), timezone: settings.timezone },
    settings,
    address: '127.0.0.1',
    version: () => Promise.reject(new Error('an import reads no calendar version')),
  };
}
