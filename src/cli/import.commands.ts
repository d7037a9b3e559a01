import { readFile } from 'node:fs/promises';
import type { Config } from '../config/config.ts';
import type { Store } from '../platform/db/database.ts';
import { json, optional, out, UsageError, withStore, type Command, type Options } from './command.ts';
import { progressBar } from './progress.ts';

/** Who an import writes as (`--as`, else the first administrator) and what its importer writes with. */
async function importerOf(store: Store, config: Config, options: Options) {
  const { commandLineCaller } = await import('../calendar/ical/ical.import.ts');
  const { PostPasswords } = await import('../calendar/posts/posts.passwords.ts');
  const caller = await commandLineCaller(store.db, config, optional(options, 'as'));
  return { caller, deps: { db: store.db, config, passwords: new PostPasswords(store.db, config), translateError: store.translateError } };
}

const importOptions = { 'dry-run': { type: 'boolean' }, as: { type: 'string' }, ...json } as const;

/** `almanac import FILE.ics`, also named `almanac import ics FILE`. */
const icalImport: Command = {
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
        if (error instanceof IcalSyntaxError) throw new UsageError(`${file}: malformed iCalendar file, nothing imported: ${error.message}`);
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
};

/** `almanac import …`: calendars, spreadsheets, WordPress exports and The Events Calendar sites, as the `--as` user. */
export const IMPORT_COMMANDS: Record<string, Command> = {
  import: icalImport,
  'import ics': {
    usage: 'almanac import ics FILE [--dry-run] [--as USER] [--json]   the same as almanac import FILE.ics',
    options: importOptions,
    positionals: true,
    run: icalImport.run,
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
