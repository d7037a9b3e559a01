import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformErrors } from '../../platform/errors.ts';
import { can } from '../calendar.capabilities.ts';
import { requestContext, type RequestContext } from '../common/context.ts';
import { fill, type ImportProblem } from '../common/import-problems.ts';
import { IcalImport, IcalSyntaxError } from '../ical/ical.import.ts';
import { CsvImport, CsvImportError, type CsvFiles } from '../import/csv.import.ts';
import { TecImportError } from '../import/tec.client.ts';
import { TecImport } from '../import/tec.import.ts';
import { WxrImport, WxrImportError } from '../import/wxr.import.ts';
import type { AdminContext } from './admin.context.ts';
import type { AdminDictionary } from './admin.i18n.ts';
import { problemText } from './admin.import.i18n.ts';

/**
 * `/admin/import` (editors and above): a file or an API address in, the importers of the command line run as
 * the signed-in user, their report out. The form is multipart, read as every form with files of the editor is.
 */

/** A file part of the form: its name as the browser sent it, and its bytes. */
interface FilePart {
  readonly filename: string;
  readonly bytes: Buffer;
}

type ImportForm = Record<string, string | FilePart | undefined>;

/** One line of the report's table. */
interface ReportRow {
  readonly kind: string;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

interface Report {
  readonly rows: ReportRow[];
  readonly problems: string[];
  readonly dryRun: boolean;
}

/** A form that cannot be imported: the sentence shown above it, nothing written. */
class FormProblem extends Error {}

/** The page's words: its dictionary, and what an importer says (a problem) in the page's language. */
interface Words {
  readonly t: AdminDictionary;
  readonly say: (problem: ImportProblem) => string;
}

const CSV_FILES = ['events', 'venues', 'organizers'] as const;

/**
 * The sources the form offers, each one field. The WordPress export (WXR) importer is added here, with its
 * field in templates/import.eta, when it is built.
 */
const SOURCES = ['ics', 'events', 'wxr', 'url'] as const;

export async function importRoutes(app: FastifyInstance, { context }: { context: AdminContext }): Promise<void> {
  app.get('/admin/import', { config: { access: 'edit' }, schema: { hide: true }, handler: importPage(context) });
  app.post('/admin/import', {
    config: { access: 'edit' },
    schema: { hide: true },
    handler: runImport(context),
  });
}

/** Editors and above: importing writes others' items and creates tags. */
function assertImporter(request: FastifyRequest): void {
  const user = request.adminSession?.user;
  if (user === undefined || !can(user.role, 'edit_others')) throw PlatformErrors.forbidden(true);
}

function render(
  context: AdminContext,
  request: FastifyRequest,
  reply: FastifyReply,
  model: { error?: string; report?: Report; url?: string; dryRun?: boolean },
  status = 200,
) {
  const page = context.page(request);
  return context.views.send(
    reply,
    context.views.render(page, page.t.importTitle, 'import', { error: undefined, report: undefined, url: '', dryRun: false, ...model }),
    status,
  );
}

function importPage(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    assertImporter(request);
    return render(context, request, reply, {});
  };
}

const fileOf = (value: ImportForm[string]): FilePart | undefined =>
  typeof value === 'object' && value.filename !== '' && value.bytes.length > 0 ? value : undefined;

function runImport(context: AdminContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    assertImporter(request);
    const { t, language } = context.page(request);
    const words: Words = { t, say: (problem) => problemText(language, problem) };
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as ImportForm;
    const url = typeof form.url === 'string' ? form.url.trim() : '';
    const dryRun = form.dry_run === '1';
    const given = SOURCES.filter((source) => (source === 'url' ? url !== '' : fileOf(form[source]) !== undefined));
    try {
      if (given.length !== 1) throw new FormProblem(given.length === 0 ? t.importNothing : t.importOne);
      if (given[0] !== 'events' && CSV_FILES.some((kind) => fileOf(form[kind]) !== undefined))
        throw new FormProblem(t.importCsvWithoutEvents);
      const caller = requestContext(request, context.services.deps);
      const run = { ics: importIcs, events: importCsv, wxr: importWxr, url: importTec }[given[0] as (typeof SOURCES)[number]];
      const report = await run(context, form, url, caller, dryRun, words);
      return render(context, request, reply, { report, url, dryRun });
    } catch (error) {
      if (!(error instanceof FormProblem)) throw error;
      return render(context, request, reply, { error: error.message, url, dryRun }, 400);
    }
  };
}

type Run = (context: AdminContext, form: ImportForm, url: string, caller: RequestContext, dryRun: boolean, words: Words) => Promise<Report>;

function depsOf(context: AdminContext) {
  const { store, config, passwords } = context.services.deps;
  return { db: store.db, config, passwords, translateError: store.translateError };
}

/** The bytes as UTF-8 text, or the form's error: a binary file or another encoding is no file of these kinds. */
function textOf(file: FilePart, t: AdminDictionary): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
    if (!text.includes('\0')) return text;
  } catch {
    // Not UTF-8: said below.
  }
  throw new FormProblem(`${file.filename}: ${t.importNotText}`);
}

const importIcs: Run = async (context, form, _url, caller, dryRun, { t, say }) => {
  const file = fileOf(form.ics) as FilePart;
  const text = textOf(file, t);
  try {
    const report = await new IcalImport(depsOf(context)).importCalendar(text, caller, { dryRun });
    return {
      rows: [{ kind: t.events, created: report.created, updated: report.updated, unchanged: report.skipped }],
      problems: report.errors.map((error) => `${t.line} ${error.line}${error.uid === null ? '' : ` (${error.uid})`}: ${say(error)}`),
      dryRun,
    };
  } catch (error) {
    if (error instanceof IcalSyntaxError)
      throw new FormProblem(`${file.filename}: ${t.importNotIcs} ${t.line} ${error.line}: ${say(error.problem)}`);
    throw error;
  }
};

/** The name a file was uploaded under, from the name it was written under for the import (`events-name.csv`). */
const uploadedName = (written: string) => path.basename(written).replace(/^[a-z]+-/, '');

/** The CSV importer reads files: the uploads are written to a folder of their own, under their own names, for the time of the import. */
const importCsv: Run = async (context, form, _url, caller, dryRun, { t, say }) => {
  const folder = await mkdtemp(path.join(tmpdir(), 'almanac-import-'));
  try {
    const files: CsvFiles = {};
    for (const kind of CSV_FILES) {
      const file = fileOf(form[kind]);
      if (file === undefined) continue;
      textOf(file, t);
      const name = path.basename(file.filename).replace(/[^\p{L}\p{N}._-]/gu, '_') || `${kind}.csv`;
      await writeFile(path.join(folder, `${kind}-${name}`), file.bytes);
      files[kind] = path.join(folder, `${kind}-${name}`);
    }
    const report = await new CsvImport(depsOf(context)).importFiles(files, caller, { dryRun }).catch((error: unknown) => {
      if (!(error instanceof CsvImportError)) throw error;
      throw new FormProblem(fill(t.importNotCsv, { file: uploadedName(error.path ?? ''), problem: say(error.problem) }));
    });
    return {
      rows: CSV_FILES.map((kind) => ({ kind: t[kind], ...report[kind] })),
      problems: report.errors.map(
        (error) =>
          `${uploadedName(error.file)}, ${t.line} ${error.line}${error.column === null ? '' : `, ${t.column} ${error.column} (${error.header})`}: ${say(error)}`,
      ),
      dryRun,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};

/** The WordPress importer streams a file: the upload is written to a folder of its own for the time of the import. */
const importWxr: Run = async (context, form, _url, caller, dryRun, { t, say }) => {
  const file = fileOf(form.wxr) as FilePart;
  const folder = await mkdtemp(path.join(tmpdir(), 'almanac-import-'));
  try {
    const exported = path.join(folder, 'export.xml');
    await writeFile(exported, file.bytes);
    // Images come from the old site's public addresses (and the hosts WEBHOOK_ALLOW_HOSTS allows), as the TEC import's.
    const report = await new WxrImport(depsOf(context))
      .importFile(exported, caller, { allow: context.config.webhookAllowHosts, dryRun })
      .catch((error: unknown) => {
        if (!(error instanceof WxrImportError)) throw error;
        const where = error.line === undefined ? '' : `${t.line} ${error.line}: `;
        throw new FormProblem(`${file.filename}: ${t.importNotWxr} ${where}${say(error.problem)}`);
      });
    const kinds = ['events', 'venues', 'organizers', 'images', 'categories', 'tags'] as const;
    return {
      rows: kinds.map((kind) => ({ kind: t[kind], ...report[kind] })),
      problems: [
        ...(report.unmatched_authors.length === 0 ? [] : [`${t.unmatchedAuthors} ${report.unmatched_authors.join(', ')}`]),
        ...report.errors.map((error) => `${t.line} ${error.line}, ${itemOf(error.item, t)} (${error.title}): ${say(error)}`),
      ],
      dryRun,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
};

/** `event 12` of a WordPress import's report in the page's words. */
function itemOf(item: string, t: AdminDictionary): string {
  const [, kind = '', id = ''] = /^(\w+) (.*)$/.exec(item) ?? [];
  const name = t[`${kind}Kind` as keyof AdminDictionary];
  return typeof name === 'string' ? `${name.toLowerCase()} ${id}` : item;
}

const importTec: Run = async (context, _form, url, caller, dryRun, { t, say }) => {
  const report = await new TecImport({ ...depsOf(context), media: context.services.media })
    .importSite(url, caller, { allow: context.config.webhookAllowHosts, dryRun })
    .catch((error: unknown) => {
      throw error instanceof TecImportError ? new FormProblem(`${error.url}: ${say(error.problem)}`) : error;
    });
  const kinds = ['categories', 'tags', 'venues', 'organizers', 'events'] as const;
  return {
    rows: kinds.map((kind) => ({ kind: t[kind], ...report[kind] })),
    problems: [...report.errors, ...report.notices].map(
      (problem) => `${t[`${problem.kind}Kind`]} ${problem.id} (${problem.name}): ${say(problem)}`,
    ),
    dryRun,
  };
};
