import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3 for the Node.js running: version 13 (Node-API) on Node 22
 * and later, where version 12 aborts the process when a statement is
 * garbage-collected on Node 24.19 and later (its `node::ObjectWrap` cleanup
 * hook, nodejs/node#65446); version 12 (`better-sqlite3-node20`) on Node
 * 20, where 13 crashes. Node 20 is past its end of life and unsupported,
 * but it is still what some machines ship: `npm start` keeps working there.
 */
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The package that is better-sqlite3 here (for a script that requires it in a process of its own). */
export const SQLITE_DRIVER_PACKAGE = nodeMajor >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

export const SqliteDatabase = createRequire(import.meta.url)(SQLITE_DRIVER_PACKAGE) as typeof BetterSqlite3;
export type SqliteDatabase = BetterSqlite3.Database;
