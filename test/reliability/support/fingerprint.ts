import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Tables and columns that legitimately change on a refused request: failed
 * logins are counted (lockout), tokens record their last use, and SOAP
 * WS-Security nonces are recorded whatever the outcome (replay protection).
 */
const VOLATILE_TABLES = new Set(['auth_failures', 'soap_nonces', 'kysely_migration', 'kysely_migration_lock']);
const VOLATILE_COLUMNS = new Set(['api_tokens.last_used_at']);

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * A cheap digest of the whole database: per table, the row count and, per
 * column, aggregates (min, max, total length, and the sum of numeric
 * columns), all in one statement. Two equal fingerprints mean, for every
 * practical purpose, that nothing was inserted, deleted or rewritten.
 */
export class Fingerprinter {
  private plan: { readonly tables: readonly string[]; readonly query: string } | undefined;

  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<any>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  private async planQuery() {
    const tables = (await this.db.introspection.getTables())
      .filter((table) => !table.isView && !VOLATILE_TABLES.has(table.name))
      .sort((a, b) => a.name.localeCompare(b.name));
    const digests = tables.map((table) => {
      const parts = ['cast(count(*) as text)'];
      for (const column of table.columns) {
        if (VOLATILE_COLUMNS.has(`${table.name}.${column.name}`)) continue;
        const text = `cast(${quote(column.name)} as text)`;
        // PostgreSQL: a sum of per-value hashes (cheap, and order-independent); SQLite compares bytes, min/max are cheap.
        if (this.postgres) parts.push(`coalesce(cast(sum(cast(hashtext(${text}) as bigint)) as text), '')`);
        else parts.push(`coalesce(min(${text}), '')`, `coalesce(max(${text}), '')`);
        parts.push(`coalesce(cast(sum(length(${text})) as text), '')`);
        if (/int|real|double|numeric|float|serial/i.test(column.dataType))
          parts.push(`coalesce(cast(sum(${quote(column.name)}) as text), '')`);
      }
      return `(select ${parts.join(` || '|' || `)} from ${quote(table.name)}) as ${quote(table.name)}`;
    });
    return { tables: tables.map((table) => table.name), query: `select ${digests.join(', ')}` };
  }

  /** The last fingerprint taken, and the write mark read before it. */
  private last: { readonly mark: string; readonly fingerprint: string } | undefined;

  /**
   * A value that moves whenever anything is written to the database, cheap to read: PostgreSQL's WAL position
   * (every committed change is logged), SQLite's count of rows changed on its connection (the server's only
   * one, which this reads through) with the file's data version (commits by other connections).
   */
  private async writeMark(): Promise<string> {
    const query = this.postgres
      ? sql<{ mark: string }>`select cast(pg_current_wal_insert_lsn() as text) as mark`
      : sql<{ mark: string }>`select total_changes() || '/' || (select data_version from pragma_data_version) as mark`;
    const { rows } = await query.execute(this.db);
    return rows[0]?.mark ?? '';
  }

  /** The fingerprint of the database now; the whole digest is computed again only when something was written. */
  async take(): Promise<string> {
    const mark = await this.writeMark();
    if (this.last?.mark === mark) return this.last.fingerprint;
    this.plan ??= await this.planQuery();
    const { rows } = await sql.raw(this.plan.query).execute(this.db);
    const row = rows[0] as Record<string, string>;
    const fingerprint = this.plan.tables.map((table) => `${table}:${row[table]}`).join('\n');
    this.last = { mark, fingerprint };
    return fingerprint;
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
