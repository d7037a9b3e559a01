import type { Kysely, KyselyPlugin, QueryId } from 'kysely';

/**
 * A handle on `db` that counts the statements run through it, and keeps their SQL. Counted per result: a plugin
 * also transforms each arm of a union (as the arm is built, before its statement), once per statement.
 */
export function countingStatements<DB>(db: Kysely<DB>): {
  readonly db: Kysely<DB>;
  count(): number;
  /** The SQL of each statement counted since the last reset. */
  statements(): readonly string[];
  reset(): void;
} {
  let statements: string[] = [];
  const texts = new WeakMap<QueryId, string>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      texts.set(args.queryId, db.getExecutor().compileQuery(args.node, args.queryId).sql);
      return args.node;
    },
    transformResult: async (args) => {
      statements.push(texts.get(args.queryId) ?? '');
      return args.result;
    },
  };
  return {
    db: db.withPlugin(plugin),
    count: () => statements.length,
    statements: () => statements,
    reset: () => {
      statements = [];
    },
  };
}
