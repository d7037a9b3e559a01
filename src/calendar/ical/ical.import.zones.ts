import { ExpansionBudget } from '../recurrence/recurrence.budget.ts';
import { RecurrenceError } from '../recurrence/recurrence.grammar.ts';
import { instantOfWall, isValidZoneName, resolveZone } from '../common/dates.ts';
import { ICAL_LIMITS, IcalSyntaxError, type Component } from './ical.import.parse.ts';
import { countBefore, DAY_MS, readObservance, startOfYear, wallMillis, type Observance } from './ical.import.observances.ts';

/**
 * The time zone of an imported time. An IANA TZID is used as it is (its
 * VTIMEZONE, if any, is only a copy of tz data). Any other TZID — Outlook's
 * Windows names such as "W. Europe Standard Time", or a name of the sender's
 * own — is read through the VTIMEZONE the file gives for it, and the event
 * takes an IANA zone whose offsets agree with that VTIMEZONE on every day of
 * the event's year and the next, so that a series keeps its wall time across
 * daylight saving changes; when none agrees, the fixed offset of the start
 * (`UTC+01:00`).
 *
 * A VTIMEZONE is read here rather than by ical.js, whose Timezone expands
 * every observance from its DTSTART to the year asked, at once: an hourly
 * rule from 1601 held the process for 38 s and ran it out of memory. Here
 * each observance is expanded one year at a time, for the years asked only,
 * by the recurrence expander (which starts a rule without COUNT at the year
 * asked, not at its DTSTART), and within `ICAL_LIMITS`: yearly rules only,
 * so many changes a year, so many onsets listed, one expansion budget for
 * all of a file's zones.
 */

/**
 * What a file's zones may spend, all of them together: one expansion budget
 * (`ICAL_LIMITS.zoneExpansionMs`), checked as the rules expand; over it, the
 * file is refused, naming the VTIMEZONE. Its time is the time spent expanding
 * them, not the time since the file was opened: a zone's years are read as
 * events ask for them, between the import's writes, whose waits on the
 * database say nothing of the zone.
 */
class ZoneBudget {
  private readonly budget: ExpansionBudget;
  /** Milliseconds spent in `spend` before the one under way, and when that one started (undefined: none is). */
  private spent = 0;
  private started: number | undefined;

  constructor(private readonly clock: () => number) {
    this.budget = new ExpansionBudget(ICAL_LIMITS.zoneExpansionSteps, ICAL_LIMITS.zoneExpansionMs, () => this.spentMs());
  }

  spend<T>(vtimezone: Component, tzid: string, work: (budget: ExpansionBudget) => T): T {
    const outermost = this.started === undefined;
    if (outermost) this.started = this.clock();
    try {
      return work(this.budget);
    } catch (error) {
      if (error instanceof RecurrenceError) throw new IcalSyntaxError(vtimezone.line, 'ical_zone_refused', { tzid, detail: error.message });
      throw error;
    } finally {
      if (outermost) {
        this.spent = this.spentMs();
        this.started = undefined;
      }
    }
  }

  private spentMs(): number {
    return this.spent + (this.started === undefined ? 0 : this.clock() - this.started);
  }
}

/** The changes of a zone's offset within one (UTC) year. */
interface YearOfChanges {
  /** The offset as the year begins. */
  readonly initial: number;
  /** The instants of its changes, in order, and the offset from each on. */
  readonly at: readonly number[];
  readonly offsets: readonly number[];
}

/** A VTIMEZONE of the file, expanded one year at a time as its years are asked. */
export class FileZone {
  private readonly years = new Map<number, YearOfChanges>();
  /** The offset before any onset: what the earliest observance changes from. */
  private readonly offsetBeforeAll: number;

  constructor(
    readonly tzid: string,
    private readonly vtimezone: Component,
    private readonly observances: readonly Observance[],
    private readonly budget: ZoneBudget,
  ) {
    const earliest = observances.reduce((a, b) => (b.first < a.first ? b : a));
    this.offsetBeforeAll = earliest.offsetFrom;
  }

  /** Offset from UTC, in milliseconds, at an instant. */
  offsetAt(epochMs: number): number {
    const { initial, at, offsets } = this.year(new Date(epochMs).getUTCFullYear());
    // Instants are whole milliseconds: the changes before the next one are those at or before this one.
    return offsets[countBefore(at, epochMs + 1) - 1] ?? initial;
  }

  /**
   * The instant of a wall time (milliseconds of it read as UTC), as every
   * wall time of the calendar is read (dates.ts): a time in a gap moves
   * forward by the gap, an ambiguous one is the earlier instant.
   */
  instantOf(wallMs: number): number {
    return instantOfWall(wallMs, (epochMs) => this.offsetAt(epochMs));
  }

  /** The instants the offset changes at, from `from` to `to`. */
  changesBetween(from: number, to: number): number[] {
    const changes: number[] = [];
    for (let year = new Date(from).getUTCFullYear(); year <= new Date(to).getUTCFullYear(); year += 1) {
      changes.push(...this.year(year).at.filter((at) => at >= from && at <= to));
    }
    return changes;
  }

  private year(year: number): YearOfChanges {
    const known = this.years.get(year);
    if (known !== undefined) return known;
    const from = startOfYear(year);
    const to = startOfYear(year + 1);
    const changes: { at: number; offset: number }[] = [];
    let latest: { at: number; offset: number } | undefined;
    for (const observance of this.observances) {
      this.budget.spend(this.vtimezone, this.tzid, (budget) => {
        const onsets = observance.onsetsBetween(from, to, budget);
        if (onsets.length > ICAL_LIMITS.zoneChangesPerYear) {
          const { line, name } = observance.component;
          throw new IcalSyntaxError(line, 'ical_zone_changes', { name, limit: ICAL_LIMITS.zoneChangesPerYear, year });
        }
        changes.push(...onsets.map((at) => ({ at, offset: observance.offsetTo })));
        const before = observance.onsetBefore(from, budget);
        // On a tie the later observance of the file wins, as in the changes of the year (a stable sort).
        if (before !== undefined && (latest === undefined || before >= latest.at)) latest = { at: before, offset: observance.offsetTo };
      });
    }
    changes.sort((a, b) => a.at - b.at);
    const expanded = {
      initial: latest?.offset ?? this.offsetBeforeAll,
      at: changes.map((change) => change.at),
      offsets: changes.map((change) => change.offset),
    };
    this.years.set(year, expanded);
    return expanded;
  }
}

/**
 * The VTIMEZONEs of one file, read when an event first names them: at most
 * `ICAL_LIMITS.ownZones` of them, sharing one budget of time.
 */
export class FileZones {
  private readonly read = new Map<string, FileZone>();
  private readonly budget: ZoneBudget;

  constructor(
    private readonly vtimezones: ReadonlyMap<string, Component>,
    clock: () => number = () => performance.now(),
  ) {
    this.budget = new ZoneBudget(clock);
  }

  /** The file's zone for a TZID that is not an IANA name; undefined for IANA names (and TZIDs the file does not define). */
  get(tzid: string): FileZone | undefined {
    if (isValidZoneName(tzid)) return undefined;
    const known = this.read.get(tzid);
    const vtimezone = this.vtimezones.get(tzid);
    if (known !== undefined || vtimezone === undefined) return known;
    if (this.read.size === ICAL_LIMITS.ownZones) {
      throw new IcalSyntaxError(vtimezone.line, 'ical_too_many_zones', { limit: ICAL_LIMITS.ownZones });
    }
    const observances = vtimezone.components
      .filter((component) => component.name === 'STANDARD' || component.name === 'DAYLIGHT')
      .map((component) => this.budget.spend(vtimezone, tzid, (budget) => readObservance(component, budget)));
    if (observances.length === 0) throw new IcalSyntaxError(vtimezone.line, 'ical_zone_without_observance', { tzid });
    const zone = new FileZone(tzid, vtimezone, observances, this.budget);
    this.read.set(tzid, zone);
    return zone;
  }
}

/** Preferred names among agreeing zones, for the Windows zones most often seen; only used when they agree. */
const PREFERRED: Readonly<Record<string, string>> = {
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'GMT Standard Time': 'Europe/London',
  'FLE Standard Time': 'Europe/Helsinki',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'AUS Eastern Standard Time': 'Australia/Sydney',
};

const ianaOffsetMinutes = (name: string, epochMs: number): number | undefined => resolveZone(name)?.offset(epochMs);
const fileOffsetMinutes = (zone: FileZone, epochMs: number): number => Math.round(zone.offsetAt(epochMs) / 60_000);

function agrees(name: string, zone: FileZone, instants: readonly number[]): boolean {
  return instants.every((instant) => ianaOffsetMinutes(name, instant) === fileOffsetMinutes(zone, instant));
}

/**
 * An IANA zone that agrees with a VTIMEZONE through `year` and the year
 * after, or undefined. Each zone is tried on a few days first, where zones
 * that differ nearly always do: four seasons, then the days around the
 * VTIMEZONE's own changes; only a zone that agrees on those is tried on
 * every day (a zone costs ~10 µs a day, so the few tried in full cost the
 * most; an own zone of no IANA match, 5 ms once the process has every
 * zone's formatter).
 */
export function ianaZoneMatching(tzid: string, zone: FileZone, year: number): string | undefined {
  const first = Date.UTC(year, 0, 1, 12);
  const everyDay = Array.from({ length: 731 }, (_, day) => first + day * DAY_MS);
  const seasons = [0, 90, 181, 273].map((day) => first + day * DAY_MS);
  const nearChanges = zone
    .changesBetween(first, first + 730 * DAY_MS)
    .flatMap((at) => [Math.floor((at - first) / DAY_MS), Math.min(730, Math.ceil((at - first) / DAY_MS))])
    .map((day) => first + day * DAY_MS);
  const samples = [...new Set([...seasons, ...nearChanges, ...everyDay])];
  const preferred = PREFERRED[tzid];
  const names = [...(preferred === undefined ? [] : [preferred]), ...Intl.supportedValuesOf('timeZone')];
  return names.find((name) => isValidZoneName(name) && agrees(name, zone, samples));
}

/** `UTC±HH:MM` of a VTIMEZONE at an instant. */
export function fixedOffsetName(zone: FileZone, epochMs: number): string {
  const minutes = fileOffsetMinutes(zone, epochMs);
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  return `UTC${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

/** The instant of a wall time (`YYYYMMDDTHHMMSS`) in a VTIMEZONE. */
export function instantInVtimezone(wall: string, zone: FileZone): number {
  return zone.instantOf(wallMillis(wall));
}
