import type { Db } from '../../platform/db/schema.ts';
import { inSavepoint } from '../../platform/db/savepoints.repository.ts';
import type { AppError } from '../../platform/errors.ts';
import { wireCodeOf } from '../errors.ts';
import type { ImportProblem } from './import-problems.ts';

/** The db of a transaction, on which the service's own `transaction()` opens a savepoint (it cannot nest transactions). */
function nestable(trx: Db): Db {
  return new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction') return () => ({ execute: <T>(work: (db: Db) => Promise<T>) => nested(target, work) });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Db;
}

function nested<T>(trx: Db, work: (db: Db) => Promise<T>): Promise<T> {
  return inSavepoint(trx, () => work(nestable(trx)));
}

function inTransaction<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => work(nestable(trx)));
}

/** How an importer runs the write of one item (`withWriteUnits`). */
export type WriteUnit = <T>(work: (db: Db) => Promise<T>) => Promise<T>;

/**
 * The units an importer writes its items in: each item in a transaction of its own, so that one refused item
 * leaves the others written; in a dry run (`dryRun`), each in a savepoint of one transaction rolled back at the end.
 */
export async function withWriteUnits<T>(db: Db, dryRun: boolean, run: (unit: WriteUnit) => Promise<T>): Promise<T> {
  if (!dryRun) return run((work) => inTransaction(db, work));
  const trx = await db.startTransaction().execute();
  try {
    return await run((work) => nested(trx, work));
  } finally {
    await trx.rollback().execute();
  }
}

/**
 * A write the services refused, as an import's report says it: the service's message with what it found wrong in
 * each parameter, the refusal's wire code, and the parameter it names first (`param`), by which the editor's import
 * page says it in its language.
 */
export function refusalProblem(error: AppError): ImportProblem {
  const params = (error.data as { params?: Record<string, string> } | undefined)?.params;
  const message = params === undefined ? error.message : `${error.message}: ${Object.values(params).join(' ')}`;
  const param = params === undefined ? undefined : Object.keys(params)[0];
  return { message, code: wireCodeOf(error), params: param === undefined ? {} : { param } };
}
