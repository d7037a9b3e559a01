/**
 * The caches against none, on one database (issue 37): two processes with every cache on (the default
 * configuration), one with the answer and event caches off and `almanac serve --workers 2` (two workers with
 * caches on behind one port, as operators run it) take a seeded random mix of writes of every
 * kind, each sent through any of them, and after each write every read — lists with their filters and totals,
 * items in both languages, linked posts and terms, a series' instances, `/changes`, the HTML pages, the
 * iCalendar feed and each CalDAV calendar's ctag — must be answered alike by all four: the same status, bytes and tags. An item written is
 * read, from every process, as its write answered it; bursts of writes to one event check that a read sent
 * after a write was answered, to any process, never shows an older state of it; at the end a process started
 * afresh must answer every read as the long-running ones do.
 *
 * DIFFERENTIAL_SEED picks the run (a number, or `random`; a fixed one by default) and DIFFERENTIAL_STEPS its
 * length; a failure names both, with the steps that led to it.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { pruneChangeLog } from '../../src/calendar/changes/changes.retention.ts';
import type { RunningServer } from '../../src/server.ts';
import { startSecondServer, startTestServer, type TestServer } from '../helpers/server.ts';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../reliability/support/server-process.ts';
import { pathOf, Random, sameEverywhere, seedOf, send, type Process, type Read } from './differential.processes.ts';
import { EVENTS, NS, utcDay, utcStamp, World, type KnownEvent, type Write } from './differential.world.ts';

const SEED = seedOf(process.env.DIFFERENTIAL_SEED);
const STEPS = Number(process.env.DIFFERENTIAL_STEPS ?? 60);
const CACHES_OFF = { RESPONSE_CACHE_MB: '0', EVENT_CACHE_MB: '0' };
const CTAGS = '<d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/></d:prop></d:propfind>';

describe('caches on and off, on one database', () => {
  let first: TestServer;
  const others: RunningServer[] = [];
  let cluster: ServerProcess;
  let processes: Process[];
  let bearer: string;
  /** The administrator's token as a CalDAV client sends it, as the password of HTTP Basic. */
  let basic: string;

  before(async () => {
    first = await startTestServer();
    others.push(await startSecondServer(first), await startSecondServer(first, CACHES_OFF));
    const env = { ...process.env, HOST: '127.0.0.1', PORT: '0', BASE_URL: first.url, DATABASE_URL: first.config.databaseUrl };
    cluster = await startServerProcess({ ...env, LOG_LEVEL: 'warn' }, undefined, ['--workers', '2']);
    processes = [
      { name: 'A (caches on)', url: first.url },
      { name: 'B (caches on)', url: others[0]!.url },
      { name: 'C (caches off)', url: others[1]!.url },
      { name: 'D (--workers 2, caches on)', url: cluster.url },
    ];
    bearer = (await first.admin()).bearer;
    basic = `Basic ${Buffer.from(`admin:${bearer.replace(/^Bearer /, '')}`).toString('base64')}`;
  });
  after(async () => {
    if (cluster !== undefined) await stopServerProcess(cluster, 'SIGTERM');
    for (const server of others) await server.close();
    await first.close();
  });

  it(`answer every read alike after every write (seed ${SEED}, ${STEPS} steps)`, async (t) => {
    const random = new Random(SEED);
    // Which items each step reads: drawn apart, so that the reads never change which writes a seed makes.
    const picks = new Random(SEED + 1);
    const world = new World(random);
    const log: string[] = [];
    let comparisons = 0;
    let retried = 0;
    const started = Date.now();

    const write = async (step: Write, via: Process) => {
      const response = await send(via, step.path, {
        method: step.method,
        headers: { authorization: bearer, ...(step.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: step.body === undefined ? undefined : JSON.stringify(step.body),
      });
      log.push(`${step.label} via ${via.name}: ${response.status}`);
      const body = response.headers.get('content-type')?.includes('json') ? JSON.parse(response.text) : undefined;
      step.learn?.(response.status, body);
      return { ...response, body };
    };

    /** Every read, from every process in `among`; again once past a scheduled publication or midnight that it straddled. */
    const compareAll = async (among: Process[], reads: Read[]) => {
      for (let attempt = 1; ; attempt++) {
        const from = Date.now();
        try {
          // `/changes` last: a sync records the scheduled publications that have come (a write, which moves the
          // versions their terms' and events' tags name), and would race with the reads beside it.
          const syncs = reads.filter((read) => pathOf(read).includes('/changes'));
          await Promise.all(reads.filter((read) => !syncs.includes(read)).map((read) => sameEverywhere(among, read)));
          await Promise.all(syncs.map((read) => sameEverywhere(among, read)));
          comparisons += reads.length;
          return;
        } catch (error) {
          const to = Date.now();
          const straddled = world.publications.filter((at) => at > from - 50 && at < to + 50);
          if (attempt > 3 || (straddled.length === 0 && utcDay(0) === new Date(from).toISOString().slice(0, 10))) throw error;
          retried += 1;
          await sleep(Math.max(0, ...straddled.map((at) => at + 50 - Date.now())));
        }
      }
    };

    /** What an anonymous reader must see of `event` as the write just answered: its title and modification stamp. */
    const reflects = async (event: KnownEvent, written: any) => {
      if (written?.status !== 'publish' || event.isProtected) return;
      for (const process of processes) {
        const read = await send(process, `${EVENTS}/${event.id}`);
        comparisons += 1;
        assert.equal(read.status, 200, `${process.name}: GET ${EVENTS}/${event.id}: ${read.text}`);
        const { title, modified } = JSON.parse(read.text);
        assert.deepEqual(
          { title, modified },
          { title: written.title, modified: written.modified },
          `${process.name} reads event ${event.id}`,
        );
      }
    };

    /**
     * An event published, then retitled by two writers one write after another, through random processes, while
     * three readers read it from random processes: each read must show the title of the newest write answered,
     * or read, before it was sent, or of a later one.
     */
    const burst = async () => {
      const candidates = [...world.events.values()].filter((event) => event.status !== 'trash' && !event.series);
      if (candidates.length === 0) return;
      const target = random.pick(candidates);
      const versionOf = new Map<string, number>();
      const answered: { at: number; version: number }[] = [];
      const reads: { sent: number; at: number; title: string; process: string }[] = [];
      const retitle = async (fields: Record<string, unknown> = {}) => {
        const body = { title: world.title(), ...fields };
        const response = await write(
          { label: `burst: event ${target.id} ${JSON.stringify(body)}`, method: 'POST', path: `${EVENTS}/${target.id}`, body },
          random.pick(processes),
        );
        assert.equal(response.status, 200, response.text);
        const version = Number(/^"(\d+)-/.exec(response.headers.get('etag') ?? '')?.[1]);
        versionOf.set(response.body.title, version);
        answered.push({ at: Date.now(), version });
        Object.assign(target, {
          status: response.body.status,
          title: response.body.title,
          modified: response.body.modified,
          isProtected: false,
        });
      };
      // Public from now on: published, dated in the past, without a password.
      await retitle({ status: 'publish', date_utc: utcStamp(Date.now() - 1000), password: '' });
      const writer = async () => {
        for (let write = 0; write < 5; write++) await retitle();
      };
      let writing = true;
      const reader = async () => {
        while (writing) {
          const process = random.pick(processes);
          const sent = Date.now();
          const read = await send(process, `${EVENTS}/${target.id}`);
          reads.push({ sent, at: Date.now(), title: JSON.parse(read.text).title, process: process.name });
        }
      };
      const readers = [reader(), reader(), reader()];
      await Promise.all([writer(), writer()]).finally(() => (writing = false));
      await Promise.all(readers);
      const versionRead = (read: (typeof reads)[number]) => versionOf.get(read.title) ?? -1;
      for (const read of reads) {
        comparisons += 1;
        const before = (other: { at: number }) => other.at < read.sent;
        const floor = Math.max(-1, ...answered.filter(before).map((write) => write.version), ...reads.filter(before).map(versionRead));
        assert.ok(
          versionRead(read) >= floor,
          `${read.process} read "${read.title}" (version ${versionRead(read)}) after version ${floor} of event ${target.id} was answered`,
        );
      }
    };

    const syncToken = async () => JSON.parse((await send(processes[0]!, `${NS}/changes?per_page=100`)).text).next_sync_token as string;

    const readsOf = (token: string): Read[] => {
      const events = [...world.events.values()];
      const items = [world.focus, ...(events.length === 0 ? [] : [0, 1].map(() => picks.pick(events).id))].filter((id) => id !== undefined);
      const focus = world.focus === undefined ? undefined : world.events.get(world.focus);
      const series = events.find((event) => event.series);
      const wide = `start_date=${utcDay(-60)}&end_date=${utcDay(400)}&per_page=50`;
      return [
        EVENTS,
        `${EVENTS}?per_page=3`,
        `${EVENTS}?per_page=3&page=2`,
        `${EVENTS}?${wide}`,
        `${EVENTS}?${wide}&translation_language=it`,
        `${EVENTS}?featured=true`,
        `${EVENTS}?search=harbour`,
        `${EVENTS}?start_date=${utcDay(0)}&end_date=${utcDay(0)}%2023:59:59`,
        ...world.venues.slice(-3).map((id) => `${EVENTS}?venue=${id}`),
        ...world.organizers.slice(-3).map((id) => `${EVENTS}?organizer=${id}`),
        ...world.categories.slice(-2).map((id) => `${EVENTS}?categories=${id}`),
        ...world.tags.slice(-2).map((id) => `${EVENTS}?tags=${id}`),
        ...items.flatMap((id) => [`${EVENTS}/${id}`, `${EVENTS}/${id}?translation_language=it`]),
        ...(focus === undefined ? [] : [`${EVENTS}/by-slug/${focus.slug}`, `/event/${focus.slug}/`]),
        ...(series === undefined ? [] : [`${EVENTS}/${series.id}/instances`]),
        `${NS}/venues`,
        `${NS}/organizers`,
        `${NS}/categories?hide_empty=false`,
        `${NS}/tags`,
        ...world.venues.slice(-1).map((id) => `${NS}/venues/${id}`),
        ...world.organizers.slice(-1).map((id) => `${NS}/organizers/${id}`),
        ...world.categories.slice(-1).map((id) => `${NS}/categories/${id}`),
        `${NS}/changes?per_page=100`,
        `${NS}/changes?sync_token=${token}`,
        '/events/',
        '/events/list/',
        `${EVENTS}.ics`,
        // What a CalDAV app polls: each calendar's ctag, as the administrator sees it.
        { path: '/dav/calendars/', init: { method: 'PROPFIND', headers: { depth: '1', authorization: basic }, body: CTAGS } },
      ];
    };

    try {
      for (const step of world.setup()) await write(step, random.pick(processes));
      const token = await syncToken();
      for (let step = 1; step <= STEPS; step++) {
        // Every eighth step a burst of writes to one event; now and then a prune.
        if (step % 8 === 0) await burst();
        else if (random.chance(0.03)) {
          // `almanac changes prune --older-than 0`: every removal pruned, which caches cannot learn from the log.
          log.push(`prune: ${JSON.stringify(await pruneChangeLog(first.server.store.db, 0, new Date(Date.now() + 1000)))}`);
        } else {
          const next = world.next();
          const { status, body } = await write(next, random.pick(processes));
          const event = next.event === undefined ? undefined : world.events.get(next.event);
          if (status < 300 && event !== undefined) await reflects(event, body);
        }
        await compareAll(processes, readsOf(token));
      }
      // A process started now knows nothing the others learned along the way.
      const fresh = await startSecondServer(first);
      try {
        await compareAll([...processes, { name: 'E (started afresh)', url: fresh.url }], readsOf(token));
      } finally {
        await fresh.close();
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`DIFFERENTIAL_SEED=${SEED} DIFFERENTIAL_STEPS=${STEPS}: ${message}\nlast steps:\n  ${log.slice(-30).join('\n  ')}`, {
        cause: error,
      });
    }
    t.diagnostic(
      `seed ${SEED}: ${STEPS} steps, ${log.length} writes, ${comparisons} reads compared (${retried} groups read again past a publication) in ${Date.now() - started} ms`,
    );
  });
});
