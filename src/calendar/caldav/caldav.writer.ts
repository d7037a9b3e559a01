import type { Config } from '../../config/config.ts';
import type { Db } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/errors.ts';
import { classifyError } from '../../platform/http/classify-error.ts';
import { can } from '../calendar.capabilities.ts';
import { checkPrecondition } from '../changes/changes.preconditions.ts';
import type { RequestContext } from '../common/context.ts';
import { findEventById, findEventForWrite } from '../events/events.repository.ts';
import type { EventsService } from '../events/events.service.ts';
import { EventProblem } from '../ical/ical.import.draft.ts';
import { IcalSyntaxError, messageOf, type IcalImport } from '../ical/ical.import.ts';
import { parseCalendar, type ParsedCalendar } from '../ical/ical.import.parse.ts';
import { eventIdOfOwnUid } from '../ical/ical.uid.ts';
import { canEdit } from '../posts/posts.access.ts';
import { listedEtags } from '../../platform/http/entity-tags.ts';
import { davErrors } from './caldav.errors.ts';
import type { Collection, DavPaths } from './caldav.paths.ts';
import type { CaldavReader, Representation } from './caldav.reader.ts';
import { findEventIdOfImportedUid, findEventIdOfResourceName, insertResourceName } from './caldav.repository.ts';

/** What the writer is built with, once, by the CalDAV service. */
export interface CaldavWriterDeps {
  readonly db: Db;
  readonly config: Config;
  readonly events: EventsService;
  readonly importer: IcalImport;
}

/** A write as its request says it: the body and its media type, and the conditional headers. */
export interface DavWrite {
  readonly contentType: string | undefined;
  readonly body: string;
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
}

/** What a PUT did: created or replaced the event, and how the event reads now. */
export interface PutOutcome {
  readonly created: boolean;
  readonly shown: Representation | undefined;
}

/** The components a calendar object resource may hold besides its events (RFC 4791 §4.1). */
const COMPANIONS = new Set(['VEVENT', 'VTIMEZONE']);

/**
 * The writes of the main calendar (docs/caldav.md, "Writes"): a PUT is one
 * resource, read by the import's iCalendar mapping and written by its
 * events service as an import writes (the roles and rules of the API), with
 * RFC 4791's preconditions checked before anything is written; a DELETE
 * trashes the event as the API's does. Category calendars are views: they
 * take no writes.
 */
export class CaldavWriter {
  constructor(
    private readonly deps: CaldavWriterDeps,
    private readonly reader: CaldavReader,
    private readonly paths: DavPaths,
  ) {}

  private get ctx(): RequestContext {
    return this.reader.ctx;
  }

  /** Whether the caller may add events to `collection` (what its privileges tell clients). */
  static mayWrite(ctx: RequestContext, collection: Collection): boolean {
    return collection.kind === 'all' && ctx.user !== null && can(ctx.user.role, 'edit');
  }

  private checkWriter(collection: Collection, method: string): void {
    if (CaldavWriter.mayWrite(this.ctx, collection)) return;
    const why =
      collection.kind === 'all'
        ? `${method} is refused: adding and changing events takes a contributor or above.`
        : `${method} is refused: a category's calendar is a view; write events in /dav/calendars/events/.`;
    throw davErrors.needPrivileges(why);
  }

  async put(collection: Collection, name: string, write: DavWrite): Promise<PutOutcome> {
    this.checkWriter(collection, 'PUT');
    const mediaType = write.contentType?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'text/calendar') throw davErrors.unsupportedData();
    const calendar = readCalendar(write.body);
    const uid = uidOf(calendar);
    const [named] = (await this.reader.resourceIds(collection, [name])).values();
    const owner = await this.eventOfUid(uid);
    if (named !== undefined && listedEtags(write.ifNoneMatch ?? '') === '*') {
      throw davErrors.preconditionFailed('If-None-Match: * asks for a new resource, and this one exists.');
    }
    if (named === undefined && write.ifMatch !== undefined) {
      throw davErrors.preconditionFailed('If-Match names a resource that does not exist.');
    }
    if (owner !== undefined && owner !== named) throw davErrors.uidConflict(this.paths.resource(collection, owner));
    if (named !== undefined && owner === undefined) {
      throw davErrors.invalidObject('A resource keeps its UID (RFC 4791 §4.1): send the event with the UID it has.');
    }
    // A name of the client's own is taken only for a new event, and not one another event answers to (an id, a UID).
    const kept = named === undefined && name !== uid;
    if (
      kept &&
      (/^[1-9]\d{0,14}$/.test(name) ||
        (await this.eventOfUid(name)) !== undefined ||
        (await findEventIdOfResourceName(this.deps.db, name)) !== undefined)
    ) {
      throw davErrors.invalidObject(`The name ${name}.ics is taken: put the new event at its UID (${encodeURIComponent(uid)}.ics).`);
    }
    const id = await this.asDav(() =>
      this.deps.importer.writeResource(
        calendar,
        this.ctx,
        async (db) => {
          if (named !== undefined) await this.checkHeld(db, named, write.ifMatch);
        },
        async (db, created) => {
          if (kept) await insertResourceName(db, name, created);
        },
      ),
    );
    return { created: named === undefined, shown: await this.reader.representation(id) };
  }

  async delete(collection: Collection, name: string, ifMatch: string | undefined): Promise<void> {
    this.checkWriter(collection, 'DELETE');
    const id = await this.reader.resourceId(collection, name);
    const precondition = { ifMatch, required: this.deps.config.requireIfMatch };
    await this.asDav(() => this.deps.events.deleteEvent({ id }, {}, { ...this.ctx, precondition }));
  }

  /** The event a UID names (one imported with it, or born here), if it is there. */
  private async eventOfUid(uid: string): Promise<number | undefined> {
    const imported = await findEventIdOfImportedUid(this.deps.db, uid);
    if (imported !== undefined) return imported;
    const own = eventIdOfOwnUid(uid, this.deps.config.baseUrl);
    return own !== undefined && (await findEventById(this.deps.db, own)) !== undefined ? own : undefined;
  }

  /** In the write's transaction: the event held, the caller's right to edit it, then If-Match, as the API checks them. */
  private async checkHeld(db: Db, id: number, ifMatch: string | undefined): Promise<void> {
    const row = await findEventForWrite(db, id);
    if (row === undefined) throw davErrors.preconditionFailed('The resource was deleted meanwhile.');
    if (!canEdit(this.ctx.user, row, new Date())) throw davErrors.needPrivileges('PUT is refused: you may not change this event.');
    await checkPrecondition(db, { precondition: { ifMatch, required: this.deps.config.requireIfMatch } }, 'event', id);
  }

  /** The service's and the mapping's refusals as WebDAV's: a refused right is DAV:need-privileges, a refused event invalid. */
  private async asDav<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof EventProblem) throw davErrors.invalidObject(`line ${error.line}: ${error.message}`);
      if (!(error instanceof AppError) || error.code === 'caldav') throw error;
      const refused = classifyError(error);
      if (refused.status === 403) throw davErrors.needPrivileges(refused.message);
      if (refused.status === 400) throw davErrors.invalidObject(messageOf(refused));
      throw error;
    }
  }
}

function readCalendar(body: string): ParsedCalendar {
  try {
    return parseCalendar(body);
  } catch (error) {
    if (error instanceof IcalSyntaxError) throw davErrors.invalidData(error.message);
    throw error;
  }
}

/** The one UID of a calendar object resource: its events (a series and its overrides) share it, and nothing else is in it. */
function uidOf(calendar: ParsedCalendar): string {
  const other = calendar.componentNames.find((name) => !COMPANIONS.has(name));
  if (other !== undefined) throw davErrors.unsupportedComponent(other);
  const uids = new Set(calendar.events.map((event) => event.properties.find((line) => line.name === 'UID')?.value.trim() ?? ''));
  const [uid] = uids;
  if (uid === undefined) throw davErrors.invalidObject('The resource holds no VEVENT.');
  if (uids.size > 1 || uid === '') throw davErrors.invalidObject('A resource is one event: every VEVENT in it has the same UID, and one.');
  const masters = calendar.events.filter((event) => !event.properties.some((line) => line.name === 'RECURRENCE-ID'));
  if (masters.length > 1) throw davErrors.invalidObject('A resource has one VEVENT without RECURRENCE-ID (the event or its series).');
  return uid;
}
