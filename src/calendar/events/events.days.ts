import { dayOf, plusCalendar, startOfDay } from '../common/dates.ts';
import type { EventSummary } from './events.mapper.ts';
import type { EventSpan } from './events.repository.ts';

/** A calendar grid's days: for each, how many events run on it and the ids of the first of them, in list order. */
export interface DayGrid {
  readonly counts: readonly number[];
  readonly firsts: ReadonlyArray<readonly number[]>;
}

/** A calendar grid as shown: each day's count of events and the summaries of its first ones. */
export interface EventDays {
  readonly counts: readonly number[];
  readonly shown: ReadonlyArray<readonly EventSummary[]>;
}

/**
 * Places `spans` (in list order) on `days` (consecutive, ascending `YYYY-MM-DD`): an event runs on every day from
 * its start's to its last (`lastDayOf`), and each day keeps the first `perDay` of its events. One pass, by position: the
 * shown days are looked up in a map, so there is no date arithmetic per event (but for one that ends at midnight).
 */
export function dayGrid(spans: readonly EventSpan[], days: readonly string[], perDay: number): DayGrid {
  const first = days[0];
  const last = days[days.length - 1];
  const counts = days.map(() => 0);
  const firsts: number[][] = days.map(() => []);
  if (first === undefined || last === undefined) return { counts, firsts };
  const position = new Map(days.map((day, index) => [day, index]));
  for (const span of spans) {
    const startDay = dayOf(span.start_local);
    const endDay = lastDayOf(span);
    const from = position.get(startDay < first ? first : startDay);
    const to = position.get(endDay > last ? last : endDay);
    if (from === undefined || to === undefined) continue;
    for (let index = from; index <= to; index += 1) {
      counts[index]! += 1;
      if (firsts[index]!.length < perDay) firsts[index]!.push(span.id);
    }
  }
  return { counts, firsts };
}

/**
 * The last day an event runs on: its end's, or the day before when it ends at midnight after it started (it has no
 * time on the day it ends, and a list of that day, `ends_after` its midnight, leaves it out too).
 */
export function lastDayOf(span: Pick<EventSpan, 'start_local' | 'end_local'>): string {
  const endsAtMidnight = span.end_local === startOfDay(span.end_local) && span.end_local > span.start_local;
  return dayOf(endsAtMidnight ? plusCalendar(span.end_local, { days: -1 }) : span.end_local);
}
