import type { Kysely, KyselyPlugin } from 'kysely';

/**
 * A handle on `db` that counts the statements run through it. Counted per
 * result: a plugin also transforms each arm of a union, once per statement.
 */
export function countingStatements<DB>(db: Kysely<DB>): { readonly db: Kysely<DB>; count(): number; reset(): void } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements += 1;
      return args.result;
    },
  };
  return {
    db: db.withPlugin(plugin),
    count: () => statements,
    reset: () => {
      statements = 0;
    },
  };
}
