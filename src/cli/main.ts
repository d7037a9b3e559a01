#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from 'node:util';
import cluster from 'node:cluster';
import { ConfigError, loadConfig, workerCount, type Config } from '../config/config.ts';
import { AppError } from '../platform/errors.ts';
import { createDb, migrateToLatest, type Store } from '../platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../migrations.ts';
import { progressBar } from './progress.ts';
import { readFile } from 'node:fs/promises';
import { PasswordHasher } from '../platform/auth/passwords.ts';
import { UsersService } from '../platform/auth/users.service.ts';

// Each command imports what only it needs when it runs (scripts/bundle.mjs makes those imports chunks of
// their own): a command then loads in a fraction of the time the whole server takes.

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

interface Command {
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Whether it takes arguments besides its options (a file). */
  readonly positionals?: boolean;
  /** Its exit code, when not 0. */
  readonly run: (options: Options, config: Config, positionals: readonly string[]) => Promise<number | void>;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** Opens the database, runs `work`, closes it. */
async function withOpenStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = createDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous, sqliteBusyWaitMs: config.sqliteBusyWaitMs });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Opens the database, migrated, runs `work`, closes it. */
async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  return withOpenStore(config, async (store) => {
    await migrateToLatest(store.db, MIGRATION_FOLDERS);
    return work(store);
  });
}

/** Runs `work` with the users service over the migrated database. */
function withUsers<T>(config: Config, work: (users: UsersService) => Promise<T>): Promise<T> {
  return withStore(config, (store) => work(new UsersService(store, new PasswordHasher(config.passwordHashCost))));
}

/** Who an import writes as (`--as`, else the first administrator) and what its importer writes with. */
async function importerOf(store: Store, config: Config, options: Options) {
  const { commandLineCaller } = await import('../calendar/ical/ical.import.ts');
  const { PostPasswords } = await import('../calendar/posts/posts.passwords.ts');
  const caller = await commandLineCaller(store.db, config, optional(options, 'as'));
  return { caller, deps: { db: store.db, config, passwords: new PostPasswords(store.db, config), translateError: store.translateError } };
}

const json = { json: { type: 'boolean' } } as const;
const importOptions = { 'dry-run': { type: 'boolean' }, as: { type: 'string' }, ...json } as const;

const COMMANDS: Record<string, Command> = {
  serve: {
    usage:
      'almanac serve [--workers N]   start the HTTP server (HOST, PORT, DATABASE_URL, …); N processes on one port, 1–64 (default WEB_CONCURRENCY, else 1)',
    options: { workers: { type: 'string' } },
    run: async (options, config) => {
      const { runPrimary, runWorker } = await import('../cluster.ts');
      if (cluster.isWorker) return runWorker(config);
      const flag = optional(options, 'workers');
      const workers = workerCount('--workers', flag, config.workers);
      // Each process would open a database of its own.
      if (workers > 1 && config.databaseUrl === 'sqlite::memory:')
        throw new ConfigError(
          flag === undefined ? 'WEB_CONCURRENCY' : '--workers',
          'needs a database the processes share, not sqlite::memory:',
        );
      if (workers === 1) {
        const { closeOnSignals, startServer } = await import('../server.ts');
        closeOnSignals(await startServer(config));
      } else await runPrimary(config, workers);
    },
  },
  migrate: {
    usage: 'almanac migrate          bring the database schema up to date',
    options: {},
    run: async (_options, config) => {
      const applied = await withOpenStore(config, async (store) => migrateToLatest(store.db, MIGRATION_FOLDERS));
      out(applied.length === 0 ? 'schema up to date' : `applied: ${applied.join(', ')}`);
    },
  },
  seed: {
    usage:
      "almanac seed --demo [--events N [--series M]] [--entities N]   load demo data: entity-management records (and generated customers up to N in all), N more calendar events, then M of the calendar's single events made weekly recurring series (50–60 occurrences each; RECURRENCE_* apply); progress on stderr; existing records stay as they are",
    options: { demo: { type: 'boolean' }, events: { type: 'string' }, series: { type: 'string' }, entities: { type: 'string' } },
    run: async (options, config) => {
      if (options.demo !== true) throw new UsageError('nothing to seed: pass --demo');
      const events = optional(options, 'events');
      if (events !== undefined && !/^\d+$/.test(events)) throw new UsageError('--events must be a whole number');
      const series = optional(options, 'series');
      if (series !== undefined && !/^\d+$/.test(series)) throw new UsageError('--series must be a whole number');
      if (Number(series ?? 0) > Number(events ?? 0)) throw new UsageError('--series counts among --events: at most as many');
      const customers = optional(options, 'entities');
      if (customers !== undefined && !/^\d+$/.test(customers)) throw new UsageError('--entities must be a whole number');
      const { seedDemoRecords } = await import('../entity-management/seed/demo.seed.ts');
      const { seedBulkCustomers } = await import('../entity-management/seed/bulk-customers.seed.ts');
      const { seedDemoEvents } = await import('../calendar/seed/demo-events.ts');
      const { buildMediaService } = await import('../calendar/calendar.services.ts');
      const { convertDemoEventsToSeries } = await import('../calendar/seed/demo-series.ts');
      const { seriesLimits } = await import('../calendar/recurrence/recurrence.series.ts');
      await withStore(config, async (store) => {
        const entities = await seedDemoRecords(store);
        out(`entity records: ${entities.created} created, ${entities.existing} already there`);
        if (customers !== undefined && Number(customers) > 0) {
          const added = await seedBulkCustomers(store, Number(customers), progressBar('customers'));
          out(`generated customers: ${added} added (${customers} in all)`);
        }
        if (events === undefined || Number(events) === 0) return;
        const calendar = await seedDemoEvents(store, {
          events: Number(events),
          siteTimezone: config.siteTimezone,
          onProgress: progressBar('events'),
          media: buildMediaService(config, store),
        });
        out(
          `calendar: ${calendar.events} events added (${calendar.totalEvents} in all), ${calendar.venues} venues, ${calendar.organizers} organizers, ${calendar.categories} categories, ${calendar.tags} tags`,
        );
        if (series === undefined || Number(series) === 0) return;
        const limits = seriesLimits(config);
        const made = await convertDemoEventsToSeries(store, { series: Number(series), limits, onProgress: progressBar('series') });
        out(`recurring: ${made.series} events made weekly series (${made.occurrences} occurrences stored in all)`);
      });
    },
  },
  'users add': {
    usage: 'almanac users add --username U --password P --role R [--email E] [--display-name N] [--json]',
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
      'display-name': { type: 'string' },
      ...json,
    },
    run: async (options, config) => {
      const user = await withUsers(config, (users) =>
        users.add({
          username: required(options, 'username'),
          password: required(options, 'password'),
          role: required(options, 'role'),
          email: optional(options, 'email'),
          displayName: optional(options, 'display-name'),
        }),
      );
      out(options.json === true ? JSON.stringify(user) : `id=${user.id}`);
    },
  },
  'users list': {
    usage: 'almanac users list [--json]',
    options: { ...json },
    run: async (options, config) => {
      const users = await withUsers(config, (users) => users.list());
      if (options.json === true) out(JSON.stringify(users));
      else for (const user of users) out(`${user.id}\t${user.username}\t${user.role}\t${user.email}`);
    },
  },
  'users passwd': {
    usage: 'almanac users passwd --username U --password P',
    options: { username: { type: 'string' }, password: { type: 'string' } },
    run: async (options, config) => {
      await withUsers(config, (users) => users.setPassword(required(options, 'username'), required(options, 'password')));
      out('password changed');
    },
  },
  'users role': {
    usage: 'almanac users role --username U --role R',
    options: { username: { type: 'string' }, role: { type: 'string' } },
    run: async (options, config) => {
      await withUsers(config, (users) => users.setRole(required(options, 'username'), required(options, 'role')));
      out('role changed');
    },
  },
  'users remove': {
    usage: 'almanac users remove --username U',
    options: { username: { type: 'string' } },
    run: async (options, config) => {
      await withUsers(config, (users) => users.remove(required(options, 'username')));
      out('user removed');
    },
  },
  'tokens create': {
    usage: 'almanac tokens create --username U [--name N] [--json]   (prints the token once)',
    options: { username: { type: 'string' }, name: { type: 'string' }, ...json },
    run: async (options, config) => {
      const token = await withUsers(config, (users) => users.createToken(required(options, 'username'), optional(options, 'name')));
      out(options.json === true ? JSON.stringify(token) : `id=${token.id} token=${token.token}`);
    },
  },
  'tokens list': {
    usage: 'almanac tokens list [--username U] [--json]',
    options: { username: { type: 'string' }, ...json },
    run: async (options, config) => {
      const tokens = await withUsers(config, (users) => users.listTokens(optional(options, 'username')));
      if (options.json === true) out(JSON.stringify(tokens));
      else for (const t of tokens) out(`${t.id}\t${t.username}\t${t.name}\t${t.revoked_at === null ? 'active' : 'revoked'}`);
    },
  },
  'tokens revoke': {
    usage: 'almanac tokens revoke --id ID',
    options: { id: { type: 'string' } },
    run: async (options, config) => {
      const id = required(options, 'id');
      if (!/^\d+$/.test(id)) throw new UsageError('--id must be a number');
      await withUsers(config, (users) => users.revokeToken(Number(id)));
      out('token revoked');
    },
  },
  import: {
    usage:
      'almanac import FILE.ics (or import ics FILE) [--dry-run] [--as USER] [--json]   import an iCalendar file (as USER, an editor or above; default: the first administrator); progress on stderr, the report on stdout; exit 1 and nothing written on a malformed file, exit 1 too when some events were not imported (the others were)',
    options: importOptions,
    positionals: true,
    run: async (options, config, positionals) => {
      if (positionals.length !== 1) throw new UsageError('name one iCalendar file: almanac import FILE.ics');
      const file = positionals[0] as string;
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${file}: ${error.code ?? error.message}`);
      });
      const dryRun = options['dry-run'] === true;
      const { IcalImport, IcalSyntaxError } = await import('../calendar/ical/ical.import.ts');
      const report = await withStore(config, async (store) => {
        const { caller, deps } = await importerOf(store, config, options);
        const importer = new IcalImport(deps);
        try {
          return await importer.importCalendar(text, caller, { dryRun, onProgress: progressBar('events') });
        } catch (error) {
          if (error instanceof IcalSyntaxError)
            throw new UsageError(`${file}: malformed iCalendar file, nothing imported: ${error.message}`);
          throw error;
        }
      });
      if (options.json === true) out(JSON.stringify({ ...report, dry_run: dryRun }));
      else {
        const would = dryRun ? ' (dry run: nothing written)' : '';
        out(`created ${report.created}, updated ${report.updated}, skipped ${report.skipped}, errors ${report.errors.length}${would}`);
        for (const error of report.errors) out(`line ${error.line}${error.uid === null ? '' : ` (${error.uid})`}: ${error.message}`);
      }
      // Events refused are a domain error (exit 1, as the README's CLI section says); the others were imported.
      return report.errors.length > 0 ? 1 : 0;
    },
  },
  'import ics': {
    usage: 'almanac import ics FILE [--dry-run] [--as USER] [--json]   the same as almanac import FILE.ics',
    options: importOptions,
    positionals: true,
    run: (options, config, positionals) => (COMMANDS.import as Command).run(options, config, positionals),
  },
  'import csv': {
    usage:
      'almanac import csv EVENTS.csv [--venues VENUES.csv] [--organizers ORGANIZERS.csv] [--map "Header=field,…"] [--date-order dmy|mdy] [--dry-run] [--as USER] [--json]   import spreadsheets of events, venues and organizers (docs/moving-in.md); run again, it writes only what changed; progress on stderr, the report on stdout; exit 1 and nothing written on a file that is no CSV, exit 1 too when some rows were not imported (the others were)',
    options: {
      ...importOptions,
      venues: { type: 'string' },
      organizers: { type: 'string' },
      map: { type: 'string' },
      'date-order': { type: 'string' },
    },
    positionals: true,
    run: async (options, config, positionals) => {
      if (positionals.length !== 1) throw new UsageError('name one events file: almanac import csv EVENTS.csv');
      const dryRun = options['dry-run'] === true;
      const files = { events: positionals[0], venues: optional(options, 'venues'), organizers: optional(options, 'organizers') };
      const { CsvImport, CsvImportError, csvReportLines, importSettingsOf } = await import('../calendar/import/csv.import.ts');
      const asUsage = (error: unknown): never => {
        throw error instanceof CsvImportError ? new UsageError(error.message) : error;
      };
      const settings = await Promise.resolve()
        .then(() => importSettingsOf(optional(options, 'date-order'), optional(options, 'map')))
        .catch(asUsage);
      const report = await withStore(config, async (store) => {
        const { caller, deps } = await importerOf(store, config, options);
        return new CsvImport(deps).importFiles(files, caller, { ...settings, dryRun, onProgress: progressBar('rows') }).catch(asUsage);
      });
      if (options.json === true) out(JSON.stringify({ ...report, dry_run: dryRun }));
      else for (const line of csvReportLines(report, dryRun)) out(line);
      return report.errors.length > 0 ? 1 : 0;
    },
  },
  'import wordpress': {
    usage:
      "almanac import wordpress EXPORT.xml [--uploads DIR] [--allow-hosts LIST] [--dry-run] [--as USER] [--json]   import a WordPress export of a site with The Events Calendar (docs/moving-in.md): featured images from DIR (its wp-content/uploads), else fetched from public addresses (and LIST's hosts and ranges); run again, it writes only what changed; progress on stderr, the report on stdout; exit 1 and nothing written on a file that is no such export or XML with a DOCTYPE, exit 1 too when some items were not imported (the others were)",
    options: { ...importOptions, uploads: { type: 'string' }, 'allow-hosts': { type: 'string' } },
    positionals: true,
    run: async (options, config, positionals) => {
      if (positionals.length !== 1) throw new UsageError('name one export file: almanac import wordpress EXPORT.xml');
      const dryRun = options['dry-run'] === true;
      const { WxrImport, WxrImportError, wxrReportLines } = await import('../calendar/import/wxr.import.ts');
      const { parseAllowList } = await import('../platform/http/outbound.ts');
      const allow = await Promise.resolve(optional(options, 'allow-hosts') ?? '')
        .then(parseAllowList)
        .catch((error: Error) => {
          throw new UsageError(`--allow-hosts: ${error.message}`);
        });
      const report = await withStore(config, async (store) => {
        const { caller, deps } = await importerOf(store, config, options);
        return new WxrImport(deps)
          .importFile(positionals[0] as string, caller, {
            uploads: optional(options, 'uploads'),
            allow,
            dryRun,
            onProgress: progressBar('items'),
          })
          .catch((error: unknown) => {
            throw error instanceof WxrImportError ? new UsageError(error.message) : error;
          });
      });
      // The peak memory of the whole import, for whoever watches a large one (kilobytes, as the kernel counts).
      if (options.json === true) out(JSON.stringify({ ...report, dry_run: dryRun, max_rss_kb: process.resourceUsage().maxRSS }));
      else for (const line of wxrReportLines(report, dryRun)) out(line);
      return report.error_count > 0 ? 1 : 0;
    },
  },
  'import tec': {
    usage:
      "almanac import tec URL [--user U --password P] [--allow HOSTS] [--concurrency N] [--rate N] [--timeout S] [--dry-run] [--as USER] [--json]   import categories, tags, venues, organizers and events from The Events Calendar's REST API (…/wp-json/tribe/events/v1/; an application password includes drafts and private items; --allow lets it reach hosts and ranges that are private or loopback, as WEBHOOK_ALLOW_HOSTS; at most N requests at once (default 2) and N a second (default 4), each within S seconds (default 30)); run again, it writes only what changed; progress on stderr, the report on stdout; exit 1 and nothing written on a URL that is no such API, exit 1 too when some items were not imported (the others were)",
    options: {
      ...importOptions,
      user: { type: 'string' },
      password: { type: 'string' },
      allow: { type: 'string' },
      concurrency: { type: 'string' },
      rate: { type: 'string' },
      timeout: { type: 'string' },
    },
    positionals: true,
    run: async (options, config, positionals) => {
      if (positionals.length !== 1) throw new UsageError('name one API: almanac import tec https://site.example/wp-json/tribe/events/v1/');
      const user = optional(options, 'user');
      const password = optional(options, 'password');
      if ((user === undefined) !== (password === undefined)) throw new UsageError('--user and --password go together');
      const dryRun = options['dry-run'] === true;
      const { parseAllowList } = await import('../platform/http/outbound.ts');
      let allow;
      try {
        allow = parseAllowList(optional(options, 'allow') ?? '');
      } catch (error) {
        throw new UsageError(`--allow: ${(error as Error).message}`);
      }
      const settings = {
        allow,
        credentials: user === undefined || password === undefined ? undefined : { user, password },
        concurrency: wholeNumber(options, 'concurrency', 1, 16),
        rate: wholeNumber(options, 'rate', 1, 100),
        timeoutMs: mapDefined(wholeNumber(options, 'timeout', 1, 600), (seconds) => seconds * 1000),
      };
      const { TecImport, tecReportLines } = await import('../calendar/import/tec.import.ts');
      const { TecImportError } = await import('../calendar/import/tec.client.ts');
      const report = await withStore(config, async (store) => {
        const { caller, deps } = await importerOf(store, config, options);
        const fetched = (collection: string, items: number) => process.stderr.write(`${collection}: ${items} read\n`);
        return new TecImport(deps)
          .importSite(positionals[0] as string, caller, { ...settings, dryRun, onFetched: fetched, onProgress: progressBar('items') })
          .catch((error: unknown) => {
            throw error instanceof TecImportError ? new UsageError(`${error.message}; nothing imported`) : error;
          });
      });
      if (options.json === true) out(JSON.stringify({ ...report, dry_run: dryRun }));
      else for (const line of tecReportLines(report, dryRun)) out(line);
      return report.errors.length > 0 ? 1 : 0;
    },
  },
  'changes prune': {
    usage:
      'almanac changes prune [--older-than 30d] [--json]   forget the removals the change log recorded before then (default: CHANGES_RETENTION_DAYS; units d, h, m); sync tokens from before them expire (410)',
    options: { 'older-than': { type: 'string' }, ...json },
    run: async (options, config) => {
      const given = optional(options, 'older-than');
      const { pruneChangeLog, retentionSeconds } = await import('../calendar/changes/changes.retention.ts');
      const seconds = given === undefined ? retentionSeconds(config) : durationSeconds(given);
      const { pruned, floor } = await withStore(config, (store) => pruneChangeLog(store.db, seconds));
      out(
        options.json === true
          ? JSON.stringify({ pruned, floor })
          : `pruned ${pruned} removals; sync tokens from before change ${floor} are expired`,
      );
    },
  },
  'soap secret': {
    usage: 'almanac soap secret --username U [--json]   (prints the WS-Security PasswordDigest secret once; needs SOAP_SECRET_KEY)',
    options: { username: { type: 'string' }, ...json },
    run: async (options, config) => {
      const username = required(options, 'username');
      const { WsSecretsService } = await import('../soap/ws-secrets.service.ts');
      const secret = await withStore(config, (store) =>
        new WsSecretsService({ db: store.db, serverKey: config.soapSecretKey }).issue(username),
      );
      out(options.json === true ? JSON.stringify({ username, secret }) : `secret=${secret}`);
    },
  },
};

/** A whole-number option within bounds, or undefined when not given. */
function wholeNumber(options: Options, name: string, min: number, max: number): number | undefined {
  const value = optional(options, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`--${name} takes a whole number from ${min} to ${max}: not ${value}`);
  return Number(value);
}

const mapDefined = <T, U>(value: T | undefined, map: (value: T) => U): U | undefined => (value === undefined ? undefined : map(value));

const DURATION_UNITS: Readonly<Record<string, number>> = { d: 86_400, h: 3_600, m: 60 };

/** `30d`, `12h`, `90m`: a whole number and one unit. */
function durationSeconds(text: string): number {
  const match = /^(\d{1,6})([dhm])$/.exec(text);
  if (match === null) throw new UsageError(`--older-than takes a whole number and a unit (d, h or m), such as 30d: not ${text}`);
  return Number(match[1]) * DURATION_UNITS[match[2] as string]!;
}

function help(): string {
  return ['Usage:', ...Object.values(COMMANDS).map((command) => `  ${command.usage}`), '', 'Each command takes --help.'].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [first, second] = argv;
  const twoWords = `${first ?? ''} ${second ?? ''}`;
  const name = COMMANDS[twoWords] !== undefined ? twoWords : (first ?? '');
  const command = COMMANDS[name];
  const rest = argv.slice(name.split(' ').length);
  if (command === undefined) {
    if (first === undefined || first === '--help' || first === 'help') {
      out(help());
      return 0;
    }
    process.stderr.write(`unknown command: ${argv.join(' ')}\n${help()}\n`);
    return 1;
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: { ...command.options, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: command.positionals === true,
    });
    if (values.help === true) {
      out(`Usage: ${command.usage}`);
      return 0;
    }
    const config = loadConfig();
    return (await command.run(values, config, positionals)) ?? 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof AppError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
// `serve` keeps running; every other command ends here.
if (process.argv[2] !== 'serve' || code !== 0) process.exit(code);
