/**
 * The costliest series writes the calendar accepts (issue 36): rules,
 * exclusions and cuts at the limits of recurrence (docs/calendar-
 * recurrence.md). Each is sent several times, one at a time, to a running
 * server; the row reports the slowest case's median, which must stay under
 * 100 ms.
 */
import { performance } from 'node:perf_hooks';
import type { Row } from './report.ts';

const EVENTS = '/calendar/events/v1/events';
const RUNS = 5;
const LIMIT_MS = 100;

const zonedExdates = Array.from({ length: 200 }, (_, at) => {
  const day = new Date(Date.UTC(2031, 2, 3 + at * 3));
  return `${day.toISOString().slice(0, 10).replace(/-/g, '')}T180000`;
});

/** Accepted series, each at one limit: occurrences, exclusions, COUNT far past what is stored, sparse days, hourly steps. */
const SERIES: Readonly<Record<string, readonly string[]>> = {
  'daily, 1,000 occurrences, 200 zoned EXDATEs': [
    'RRULE:FREQ=DAILY;COUNT=1000',
    `EXDATE;TZID=Europe/Rome:${zonedExdates.slice(0, 100).join(',')}`,
    `EXDATE;TZID=Europe/Rome:${zonedExdates.slice(100).join(',')}`,
  ],
  'every weekday, COUNT=1000': ['RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;COUNT=1000'],
  'yearly in 9 months, COUNT=999999': ['RRULE:FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9;COUNT=999999'],
  'leap days for a century (daily rule)': ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;UNTIL=21300101T000000Z'],
  'hourly, endless, every 48 hours': ['RRULE:FREQ=HOURLY;INTERVAL=48'],
};

interface Sent {
  readonly status: number;
  readonly ms: number;
  readonly body: { id?: number; events?: { id: number }[] };
}

async function send(baseUrl: string, bearer: string, method: string, path: string, body: unknown): Promise<Sent> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, body: JSON.parse(text) as Sent['body'] };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Creates each series, and cuts the yearly one with scope=following, `RUNS` times; every answer must be a success. */
export async function measureSeriesWrites(baseUrl: string, bearer: string): Promise<Row> {
  const medians = new Map<string, number>();
  const create = (recurrence: readonly string[]) =>
    send(baseUrl, bearer, 'POST', EVENTS, {
      title: 'Bench series',
      start_date: '2031-03-03 18:00',
      end_date: '2031-03-03 19:00',
      timezone: 'Europe/Rome',
      recurrence,
    });
  for (const [name, recurrence] of Object.entries(SERIES)) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const sent = await create(recurrence);
      if (sent.status !== 201) throw new Error(`${name}: ${sent.status} ${JSON.stringify(sent.body).slice(0, 300)}`);
      times.push(sent.ms);
    }
    medians.set(`create ${name}`, median(times));
  }
  const cuts: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const series = await create(SERIES['yearly in 9 months, COUNT=999999'] as readonly string[]);
    const listed = await send(
      baseUrl,
      bearer,
      'GET',
      `${EVENTS}?post_parent=${series.body.id}&start_date=2031-01-01&end_date=2032-01-01&per_page=3`,
      undefined,
    );
    const third = listed.body.events?.[2];
    if (third === undefined) throw new Error('the yearly series lists no third occurrence');
    const cut = await send(baseUrl, bearer, 'PATCH', `${EVENTS}/${third.id}`, { scope: 'following', title: 'Cut' });
    if (cut.status !== 200) throw new Error(`cut: ${cut.status} ${JSON.stringify(cut.body).slice(0, 300)}`);
    cuts.push(cut.ms);
  }
  medians.set('cut the yearly series (scope=following)', median(cuts));
  const [slowest, ms] = [...medians].reduce((a, b) => (b[1] > a[1] ? b : a));
  return {
    name: 'series-write-hostile',
    title: `slowest accepted series write (median of ${RUNS}): ${slowest}`,
    value: `${ms.toFixed(1)} ms`,
    target: `≤ ${LIMIT_MS} ms`,
    pass: ms <= LIMIT_MS,
    note: [...medians].map(([name, value]) => `${name} ${value.toFixed(1)} ms`).join('; '),
  };
}
