import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.ts';
import { toAction, type Action } from './actions/action-definition.ts';
import { bumpDefinitionsVersion, listActionRows, readDefinitionsVersion } from './actions/actions.repository.ts';
import { DefinitionError } from './definition-error.ts';
import { Catalog } from './mapping/catalog.ts';
import { listEntityTypes } from './mapping/catalog.repository.ts';

/** The back-end's definitions as one process holds them; replaced whole, never changed in place. */
export interface DefinitionsSnapshot {
  readonly version: number;
  readonly catalog: Catalog;
  readonly actions: ReadonlyMap<string, Action>;
}

/** A definition that could not be loaded, as `reloadActions` reports it. */
export interface DefinitionProblem {
  readonly code: string;
  readonly error: string;
}

export interface ReloadOutcome {
  /** Actions in memory after the reload (the old list when it was refused). */
  readonly loaded: number;
  readonly version: number;
  readonly errors: readonly DefinitionProblem[];
}

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** How often a process looks for definitions changed by another one. */
export const DEFINITIONS_POLL_MS = 3_000;

interface Built {
  readonly catalog?: Catalog;
  readonly actions: Map<string, Action>;
  readonly problems: DefinitionProblem[];
}

function problemOf(error: unknown): DefinitionProblem {
  if (error instanceof DefinitionError) return { code: error.subject, error: error.message };
  throw error;
}

async function build(db: Kysely<Database>): Promise<Built> {
  const actions = new Map<string, Action>();
  let catalog: Catalog;
  try {
    catalog = new Catalog(await listEntityTypes(db));
  } catch (error) {
    return { actions, problems: [problemOf(error)] };
  }
  const problems: DefinitionProblem[] = [];
  for (const row of await listActionRows(db)) {
    try {
      actions.set(row.code, toAction(row, catalog));
    } catch (error) {
      problems.push(problemOf(error));
    }
  }
  return { catalog, actions, problems };
}

/**
 * Entity types, field maps and actions in memory. Readers take `current`
 * once per request, so a reload never changes a request half-way. A reload
 * is all or nothing: any broken definition keeps the old snapshot.
 */
export class Definitions {
  private seenVersion: number;
  // Reloads and polls run one at a time.
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: Kysely<Database>,
    private snapshot: DefinitionsSnapshot,
    private readonly log: Logger,
  ) {
    this.seenVersion = snapshot.version;
  }

  /** At start-up there is no old list: broken actions are logged and left out; a broken catalog stops the start. */
  static async load(db: Kysely<Database>, log: Logger): Promise<Definitions> {
    const version = await readDefinitionsVersion(db);
    const built = await build(db);
    if (built.catalog === undefined) throw new Error(`entity definitions are broken: ${built.problems[0]?.error ?? ''}`);
    for (const problem of built.problems) log.error({ action: problem.code }, `action not loaded: ${problem.error}`);
    return new Definitions(db, { version, catalog: built.catalog, actions: built.actions }, log);
  }

  get current(): DefinitionsSnapshot {
    return this.snapshot;
  }

  /** Re-reads everything; on success bumps the shared version so other processes follow. */
  reload(): Promise<ReloadOutcome> {
    return this.serialized(async () => {
      const built = await build(this.db);
      if (built.catalog === undefined || built.problems.length > 0) {
        return { loaded: this.snapshot.actions.size, version: this.snapshot.version, errors: built.problems };
      }
      const version = await bumpDefinitionsVersion(this.db);
      this.snapshot = { version, catalog: built.catalog, actions: built.actions };
      this.seenVersion = version;
      return { loaded: built.actions.size, version, errors: [] };
    });
  }

  /** Follows a newer version stamp written by any process. */
  refresh(): Promise<void> {
    return this.serialized(async () => {
      const version = await readDefinitionsVersion(this.db);
      if (version <= this.seenVersion) return;
      this.seenVersion = version;
      const built = await build(this.db);
      if (built.catalog === undefined || built.problems.length > 0) {
        for (const problem of built.problems) this.log.error({ action: problem.code }, `definitions not reloaded: ${problem.error}`);
        return;
      }
      this.snapshot = { version, catalog: built.catalog, actions: built.actions };
      this.log.info({ version }, 'entity definitions reloaded');
    });
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
