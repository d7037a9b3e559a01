#!/usr/bin/env node
import { parseArgs } from 'node:util';
import cluster from 'node:cluster';
import { ConfigError, loadConfig, workerCount, type Config } from '../config/config.ts';
import { AppError } from '../platform/errors.ts';
import { migrateToLatest } from '../platform/db/database.ts';
import { MIGRATION_FOLDERS } from '../migrations.ts';
import { progressBar } from './progress.ts';
import { PasswordHasher } from '../platform/auth/passwords.ts';
import { UsersService } from '../platform/auth/users.service.ts';
import { json, optional, out, required, UsageError, withOpenStore, withStore, type Command } from './command.ts';
import { IMPORT_COMMANDS } from './import.commands.ts';

// Each command imports what only it needs when it runs (scripts/bundle.mjs makes those imports chunks of
// their own): a command then loads in a fraction of the time the whole server takes.

/** Runs `work` with the users service over the migrated database. */
function withUsers<T>(config: Config, work: (users: UsersService) => Promise<T>): Promise<T> {
  return withStore(config, (store) => work(new UsersService(store, new PasswordHasher(config.passwordHashCost))));
}

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
  ...IMPORT_COMMANDS,
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
