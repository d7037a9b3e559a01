import type { LogConfig } from 'kysely';

/**
 * Told of every statement sent to the database, transaction control included. `pipelined`: it went out behind
 * another statement of its connection still awaiting its answer (PostgreSQL), so it cost no round trip of its own.
 */
export type StatementListener = (sql: string, pipelined: boolean) => void;

/** Kysely's query log for `onStatement`, or none (no per-statement cost) without a listener. */
export function statementLog(onStatement: StatementListener | undefined): LogConfig | undefined {
  if (onStatement === undefined) return undefined;
  // A statement that failed was sent too.
  return (event) => onStatement(event.query.sql, false);
}
