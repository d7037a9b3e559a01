import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_DRIVER_PACKAGE, type SqliteDatabase } from './sqlite-driver.ts';

/** How often the committed pages of the WAL are copied back into the database file. */
const CHECKPOINT_INTERVAL_MS = 200;

/** SQLite's own default, restored on the serving connection if the checkpointing thread stops. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * The thread's whole program, run as a script (`eval`), so that it needs no file of its own beside the sources or
 * the bundle: its own connection, a PASSIVE checkpoint on a timer (never waiting for a lock: a busy database is
 * checkpointed on the next tick), a last one and a close when told to stop.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    if (!String(error.code).startsWith('SQLITE_BUSY')) throw error;
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the thread after a last checkpoint and closes its connection. */
  readonly stop: () => Promise<void>;
}

/**
 * Checkpoints `raw`'s WAL from a thread of its own. SQLite checkpoints in the connection that commits (every 1,000
 * pages by default): the copy and its two fsyncs then ran on the event loop, inside one request's commit, and held
 * every other request of the process for tens of milliseconds. With a second connection in a worker thread the
 * serving connection never checkpoints (`wal_autocheckpoint = 0`); WAL lets the two run side by side. If the thread
 * fails, the serving connection checkpoints as before.
 */
export function checkpointInBackground(raw: SqliteDatabase, file: string, onError: (error: Error) => void): Checkpointer {
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve(SQLITE_DRIVER_PACKAGE), file, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  raw.pragma('wal_autocheckpoint = 0');
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (error) => {
    if (raw.open) raw.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    onError(error);
  });
  worker.unref();
  return {
    stop: () => {
      // Held by the thread until it has closed: a process with nothing else left to do would end before it.
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}
