/**
 * The calendar the differential test (caches.differential.test.ts) writes: what exists, and a seeded draw of
 * the next write among every kind the API takes.
 */
import type { Random } from './differential.processes.ts';

export const NS = '/calendar/events/v1';
export const EVENTS = `${NS}/events`;

/** What the test knows of an event it wrote. */
export interface KnownEvent {
  readonly id: number;
  slug: string;
  status: string;
  title: string;
  modified: string;
  isProtected: boolean;
  readonly series: boolean;
}

/** A write to send: its request, and what the world learns from the answer. */
export interface Write {
  readonly label: string;
  readonly method: 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: Record<string, unknown>;
  /** The event it writes, whose item (in the default language) a read sent after it must show as the write answered it. */
  readonly event?: number;
  readonly learn?: (status: number, body: any) => void;
}

const WORDS = ['harbour', 'meadow', 'lantern', 'orchard', 'violin', 'quarry'];
const DAYS = [-40, -1, 0, 1, 3, 30, 200];
const STATUSES = ['publish', 'publish', 'publish', 'draft', 'private', 'pending'];

export const utcStamp = (instant: number) => new Date(instant).toISOString().slice(0, 19).replace('T', ' ');
export const utcDay = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export class World {
  readonly events = new Map<number, KnownEvent>();
  readonly venues: number[] = [];
  readonly organizers: number[] = [];
  readonly categories: number[] = [];
  readonly tags: number[] = [];
  /** The instants (ms) scheduled posts are published at: the calendar changes then without a write. */
  readonly publications: number[] = [];
  /** The event written last. */
  focus: number | undefined;
  private counter = 0;

  constructor(private readonly random: Random) {}

  /** The next write: mostly of events, some of what they embed. */
  next(): Write {
    const random = this.random;
    const live = [...this.events.values()].filter((event) => event.status !== 'trash');
    if (live.length < 3) return this.createEvent();
    const target = random.pick(live);
    return random.weighted<() => Write>([
      [8, () => this.createEvent()],
      [5, () => this.updateEvent(target, { title: this.title() })],
      [2, () => this.updateEvent(target, { description: `<p>${this.title()}</p>` })],
      [3, () => this.updateEvent(target, this.dates())],
      [4, () => this.updateEvent(target, this.status())],
      [2, () => this.updateEvent(target, { password: target.isProtected ? '' : 'opensesame' })],
      [2, () => this.updateEvent(target, { featured: random.chance(0.5) })],
      [3, () => this.updateEvent(target, this.links())],
      [2, () => this.updateEvent(target, { title: `Serata ${this.title()}` }, 'it')],
      [2, () => this.deleteEvent(target, false)],
      [2, () => this.deleteEvent(random.pick([...this.events.values()]), true)],
      [2, () => this.editSeries()],
      [3, () => this.linked(random.pick(['venues', 'organizers'] as const))],
      [3, () => this.term(random.pick(['categories', 'tags'] as const))],
      [1, () => this.siteSettings()],
    ])();
  }

  /** What the first steps create: places, people and terms to link events to. */
  setup(): Write[] {
    return [
      ...['Pier hall', 'Hill barn'].map((venue) => this.createLinked('venues', venue)),
      ...['Ada Choir', 'Brass Club'].map((organizer) => this.createLinked('organizers', organizer)),
      ...['Harbour music', 'Meadow walks'].map((name) => this.createTerm('categories', name)),
      ...['outdoors', 'family'].map((name) => this.createTerm('tags', name)),
    ];
  }

  title(): string {
    this.counter += 1;
    return `${this.random.pick(WORDS)} ${this.random.pick(WORDS)} ${this.counter}`;
  }

  /** A scheduled publication a few seconds ahead, which the reads that follow may straddle. */
  private scheduled(): { status: string; date_utc: string } {
    const at = (Math.floor(Date.now() / 1000) + 2 + this.random.int(4)) * 1000;
    this.publications.push(at);
    return { status: 'future', date_utc: utcStamp(at) };
  }

  private status(): Record<string, unknown> {
    return this.random.chance(0.15) ? this.scheduled() : { status: this.random.pick(STATUSES) };
  }

  private dates(): Record<string, string> {
    const day = utcDay(this.random.pick(DAYS));
    const hour = 8 + this.random.int(10);
    return { start_date: `${day} ${hour}:00:00`, end_date: `${day} ${hour + 1 + this.random.int(3)}:30:00` };
  }

  private links(): Record<string, unknown> {
    const random = this.random;
    return {
      venue: this.venues.length > 0 && random.chance(0.8) ? random.pick(this.venues) : 0,
      organizer: random.some(this.organizers),
      categories: random.some(this.categories),
      tags: random.some(this.tags),
    };
  }

  private createEvent(): Write {
    const random = this.random;
    const series = random.chance(0.12);
    const body: Record<string, unknown> = {
      title: this.title(),
      description: `<p>${this.title()}</p>`,
      ...this.dates(),
      ...this.links(),
      featured: random.chance(0.3),
      ...(random.chance(0.85) ? { status: random.pick(STATUSES) } : this.scheduled()),
      ...(random.chance(0.1) ? { password: 'opensesame' } : {}),
      ...(series ? { recurrence: [this.rule()] } : {}),
    };
    return {
      label: `create event${series ? ' series' : ''} ${JSON.stringify(body)}`,
      method: 'POST',
      path: EVENTS,
      body,
      learn: (status, event) => {
        if (status !== 201) return;
        this.focus = event.id;
        this.events.set(event.id, {
          id: event.id,
          slug: event.slug,
          status: event.status,
          title: event.title,
          modified: event.modified,
          isProtected: body.password !== undefined,
          series,
        });
      },
    };
  }

  private rule(): string {
    const count = 2 + this.random.int(4);
    return this.random.chance(0.5)
      ? `RRULE:FREQ=WEEKLY;COUNT=${count}`
      : `RRULE:FREQ=DAILY;INTERVAL=${1 + this.random.int(3)};COUNT=${count}`;
  }

  private updateEvent(event: KnownEvent, body: Record<string, unknown>, language?: 'it'): Write {
    const query = language === undefined ? '' : `?translation_language=${language}`;
    return {
      label: `update event ${event.id}${query} ${JSON.stringify(body)}`,
      method: 'POST',
      path: `${EVENTS}/${event.id}${query}`,
      body,
      // What a translation writes, the item shows only in its language.
      event: language === undefined ? event.id : undefined,
      learn: (status, written) => {
        if (status !== 200) return;
        this.focus = event.id;
        if (body.password !== undefined) event.isProtected = body.password !== '';
        if (language === undefined) Object.assign(event, { slug: written.slug, status: written.status, title: written.title });
        event.modified = written.modified;
      },
    };
  }

  private deleteEvent(event: KnownEvent, force: boolean): Write {
    return {
      label: `${force ? 'delete' : 'trash'} event ${event.id}`,
      method: 'DELETE',
      path: `${EVENTS}/${event.id}${force ? '?force=true' : ''}`,
      event: event.id,
      learn: (status) => {
        if (status !== 200) return;
        this.focus = event.id;
        if (force) this.events.delete(event.id);
        else event.status = 'trash';
      },
    };
  }

  /** A change of the site's settings, which cached representations, pages and feeds all show. */
  private siteSettings(): Write {
    const random = this.random;
    const choices: Array<() => Record<string, unknown>> = [
      () => ({ currency_symbol: random.pick(['$', '€', 'CHF']), currency_position: random.pick(['prefix', 'postfix']) }),
      () => ({ title: `Site ${this.title()}`, start_of_week: random.int(7), time_format: random.pick(['', 'H:i', 'g:i a']) }),
      () => ({ language: random.pick(['en_US', 'it_IT']), timezone: random.pick(['UTC', 'Europe/Rome']) }),
    ];
    const body = random.pick(choices)();
    return {
      label: `settings ${JSON.stringify(body)}`,
      method: 'POST',
      path: '/wp/v2/settings',
      body,
      learn: (status) => {
        // Every value drawn is valid: a refusal would leave the steps after it comparing nothing new.
        if (status !== 200) throw new Error(`settings ${JSON.stringify(body)} refused: ${status}`);
      },
    };
  }

  private editSeries(): Write {
    const series = [...this.events.values()].filter((event) => event.series && event.status !== 'trash');
    if (series.length === 0) return this.createEvent();
    const target = this.random.pick(series);
    const body = this.random.chance(0.5) ? { recurrence: [this.rule()] } : { title: this.title(), ...this.dates() };
    return this.updateEvent(target, body);
  }

  private linked(kind: 'venues' | 'organizers'): Write {
    const ids = this[kind];
    const name = kind === 'venues' ? 'venue' : 'organizer';
    if (ids.length < 2 || this.random.chance(0.2)) return this.createLinked(kind, this.title());
    const id = this.random.pick(ids);
    if (this.random.chance(0.2)) {
      const force = this.random.chance(0.5);
      return {
        label: `${force ? 'delete' : 'trash'} ${name} ${id}`,
        method: 'DELETE',
        path: `${NS}/${kind}/${id}${force ? '?force=true' : ''}`,
        learn: (status) => {
          if (status === 200) ids.splice(ids.indexOf(id), 1);
        },
      };
    }
    const body = this.random.chance(0.2) ? this.random.pick([{ status: 'draft' }, { status: 'publish' }]) : { [name]: this.title() };
    return { label: `update ${name} ${id} ${JSON.stringify(body)}`, method: 'POST', path: `${NS}/${kind}/${id}`, body };
  }

  private createLinked(kind: 'venues' | 'organizers', name: string): Write {
    const body = { [kind === 'venues' ? 'venue' : 'organizer']: name, status: 'publish' };
    return {
      label: `create ${JSON.stringify(body)}`,
      method: 'POST',
      path: `${NS}/${kind}`,
      body,
      learn: (status, item) => {
        if (status === 201) this[kind].push(item.id);
      },
    };
  }

  private term(kind: 'categories' | 'tags'): Write {
    const ids = this[kind];
    if (ids.length < 2 || this.random.chance(0.2)) return this.createTerm(kind, this.title());
    const id = this.random.pick(ids);
    if (this.random.chance(0.2)) {
      return {
        label: `delete ${kind} ${id}`,
        method: 'DELETE',
        path: `${NS}/${kind}/${id}`,
        learn: (status) => {
          if (status === 200) ids.splice(ids.indexOf(id), 1);
        },
      };
    }
    const body = { name: this.title() };
    return { label: `update ${kind} ${id} ${JSON.stringify(body)}`, method: 'POST', path: `${NS}/${kind}/${id}`, body };
  }

  private createTerm(kind: 'categories' | 'tags', name: string): Write {
    return {
      label: `create ${kind} ${name}`,
      method: 'POST',
      path: `${NS}/${kind}`,
      body: { name },
      learn: (status, term) => {
        if (status === 201) this[kind].push(term.id);
      },
    };
  }
}
