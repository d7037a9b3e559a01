import type { EventCard } from './pages.present.ts';

/**
 * Multi-day events drawn as bars across a week row of a grid. Each day keeps its events in the list's order (what a
 * screen reader and the phone's agenda go by); a bar's lane only places it, the same on each of its days, so that
 * the piece drawn on its first day of the row can run over the next ones, where its title is not drawn again.
 */

/** Lanes a row may give bars: a day shows few events, and the others stay chips. */
const MAX_LANES = 4;

/** Days in a row, the longest a bar can be. */
const ROW_DAYS = 7;

/** The stylesheet's rules of bars' lengths (`span-N`, which calendar.css turns into widths), one per length a row allows. */
export const BAR_RULES = [...Array(ROW_DAYS - 1).keys()].map((index) => `table.month li.span-${index + 2}{--span:${index + 2}}`).join('\n');

/** An event of a day as a grid row draws it. */
export interface PlacedCard {
  readonly card: EventCard;
  /** Its bar's lane in the row; undefined: a chip (one day, or no lane left). */
  readonly lane?: number;
  /** On the first day of its bar in the row: how many days the bar covers; 0 on the days it runs over. */
  readonly span: number;
  /** A bar's piece that the row's edge clips: the event began before the row's first day, or goes on after its last. */
  readonly before?: boolean;
  readonly after?: boolean;
}

/** A day of a grid row: its events placed, and the lanes it leaves empty (kept free so that the bars line up). */
export interface PlacedDay {
  readonly events: PlacedCard[];
  readonly gaps: number[];
}

interface Segment {
  readonly href: string;
  readonly start: number;
  end: number;
  lane?: number;
}

/**
 * The events of a row's days (`days`, consecutive, in order, their dates `dates`) placed: bars for the events shown on
 * consecutive days, each piece saying whether the event runs on before or after it.
 */
export function placeBars(days: ReadonlyArray<readonly EventCard[]>, dates: readonly string[]): PlacedDay[] {
  const segments: Segment[] = [];
  const open = new Map<string, Segment>();
  days.forEach((events, index) => {
    for (const card of events) {
      if (!card.spans) continue;
      const running = open.get(card.href);
      if (running !== undefined && running.end === index - 1) running.end = index;
      else {
        const segment = { href: card.href, start: index, end: index };
        segments.push(segment);
        open.set(card.href, segment);
      }
    }
  });
  // The earliest first, the longest first among them: the usual lane order of calendars.
  const busy: number[][] = days.map(() => []);
  for (const segment of segments.sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (segment.end === segment.start) continue;
    const covered = busy.slice(segment.start, segment.end + 1);
    const lane = [...Array(MAX_LANES).keys()].find((candidate) => covered.every((lanes) => !lanes.includes(candidate)));
    if (lane === undefined) continue;
    segment.lane = lane;
    for (const lanes of covered) lanes.push(lane);
  }
  const lanesUsed = Math.max(0, ...busy.flat().map((lane) => lane + 1));
  const segmentOf = (href: string, index: number) =>
    segments.find((segment) => segment.href === href && segment.start <= index && index <= segment.end && segment.lane !== undefined);
  return days.map((events, index) => ({
    events: events.map((card) => {
      const segment = card.spans ? segmentOf(card.href, index) : undefined;
      if (segment === undefined) return { card, span: 1 };
      if (segment.start !== index) return { card, lane: segment.lane!, span: 0 };
      const before = card.firstDay < dates[segment.start]!;
      const after = card.lastDay > dates[segment.end]!;
      return { card, lane: segment.lane!, span: segment.end - segment.start + 1, before, after };
    }),
    gaps: [...Array(lanesUsed).keys()].filter((lane) => !busy[index]!.includes(lane)),
  }));
}
