import { sql, type Kysely } from 'kysely';

/**
 * Tables and columns that legitimately change on a refused request: failed
 * logins are counted (lockout), tokens record their last use, and SOAP
 * WS-Security nonces are remembered whatever the outcome (replay protection).
 */
const VOLATILE_TABLES = new Set(['auth_failures', 'soap_nonces', 'kysely_migration', 'kysely_migration_lock']);
const VOLATILE_COLUMNS = new Set(['api_tokens.last_used_at']);

interface TablePlan {
  readonly name: string;
  readonly query: string;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * A cheap digest of the whole database: per table, the row count and, per
 * column, aggregates (min, max, total length, and the sum of numeric
 * columns) computed in one scan. Two equal fingerprints mean, for every
 * practical purpose, that nothing was inserted, deleted or rewritten.
 */
export class Fingerprinter {
  private plans: TablePlan[] | undefined;

  constructor(private readonly db: Kysely<any>) {}

  /** Re-reads the table list (call after migrations or when a surface lands mid-run: never needed in one server's life). */
  private async planTables(): Promise<TablePlan[]> {
    const tables = await this.db.introspection.getTables();
    return tables
      .filter((table) => !table.isView && !VOLATILE_TABLES.has(table.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((table) => {
        const parts = ['count(*)'];
        for (const column of table.columns) {
          if (VOLATILE_COLUMNS.has(`${table.name}.${column.name}`)) continue;
          const text = `cast(${quote(column.name)} as text)`;
          parts.push(`min(${text})`, `max(${text})`, `sum(length(${text}))`);
          if (/int|real|double|numeric|float|serial/i.test(column.dataType)) parts.push(`sum(${quote(column.name)})`);
        }
        const select = parts.map((part, i) => `${part} as c${i}`).join(', ');
        return { name: table.name, query: `select ${select} from ${quote(table.name)}` };
      });
  }

  async take(): Promise<string> {
    this.plans ??= await this.planTables();
    const rows = await Promise.all(
      this.plans.map(async (plan) => {
        const result = await sql.raw(plan.query).execute(this.db);
        return `${plan.name}:${JSON.stringify(Object.values(result.rows[0] as object), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
      }),
    );
    return rows.join('\n');
  }
}

/** Names the tables whose digest differs between two fingerprints. */
export function changedTables(before: string, after: string): string[] {
  const a = new Map(before.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line] as const));
  return after
    .split('\n')
    .filter((line) => a.get(line.slice(0, line.indexOf(':'))) !== line)
    .map((line) => line.slice(0, line.indexOf(':')));
}
