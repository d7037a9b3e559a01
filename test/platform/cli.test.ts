import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabase } from '../helpers/server.ts';
import { googleCalendar, manyEvents } from '../calendar/ical.import.fixtures.ts';

const BIN = path.resolve('bin/almanac.js');

function almanac(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('configuration errors', () => {
  for (const [variable, value] of [
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['SITE_TIMEZONE', 'Mars/Olympus'],
    ['DEFAULT_LANGUAGE', 'de'],
    ['SOAP_AUTH', 'sometimes'],
    ['BASE_URL', 'not a url'],
    ['CORS_ORIGINS', 'https://ok.example,/path'],
    ['EMBED_ORIGINS', 'https://ok.example,ok.example'],
    ['AUTH_MAX_FAILURES', '-1'],
    ['RESPONSE_CACHE_MB', 'lots'],
    ['RESPONSE_CACHE_MB', '99999999'],
    ['HTTP_CACHE_MAX_AGE_SECONDS', '10s'],
    ['WEBHOOK_DELIVERY', 'sometimes'],
  ] as const) {
    it(`stops with exit code 2 and one line naming ${variable} (given "${value}")`, () => {
      const result = almanac(['migrate'], { [variable]: value });
      assert.equal(result.code, 2);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? '', new RegExp(`^Invalid configuration: ${variable} `));
      assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/);
    });
  }
});

/** The environment of CLI runs against a fresh database, made before the block's tests and dropped after them. */
function freshDatabaseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  let drop = async (): Promise<void> => undefined;
  before(async () => {
    const database = await freshDatabase();
    env.DATABASE_URL = database.url;
    drop = database.drop;
  });
  after(async () => drop());
  return env;
}

describe('CLI users and tokens', () => {
  const env = freshDatabaseEnv();

  it('adds, lists, changes and removes users, with script-friendly output', () => {
    const added = almanac(['users', 'add', '--username', 'ed', '--password', 'editor-password', '--role', 'editor'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout.trim(), /^id=\d+$/);
    const json = almanac(['users', 'add', '--username', 'sue', '--password', 'subscriber-pw', '--role', 'subscriber', '--json'], env);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout)), ['id', 'username', 'role']);

    const listed = JSON.parse(almanac(['users', 'list', '--json'], env).stdout) as { username: string; role: string }[];
    assert.deepEqual(
      listed.map((user) => [user.username, user.role]),
      [
        ['ed', 'editor'],
        ['sue', 'subscriber'],
      ],
    );
    assert.ok(!JSON.stringify(listed).includes('scrypt'), 'no password hashes in listings');

    assert.equal(almanac(['users', 'role', '--username', 'sue', '--role', 'author'], env).code, 0);
    assert.equal(almanac(['users', 'passwd', '--username', 'sue', '--password', 'a-new-password'], env).code, 0);
    assert.equal(almanac(['users', 'remove', '--username', 'sue'], env).code, 0);
    assert.equal(JSON.parse(almanac(['users', 'list', '--json'], env).stdout).length, 1);
  });

  it('exits 1 with one line for a duplicate username, an unknown role or a missing flag', () => {
    for (const args of [
      ['users', 'add', '--username', 'dup', '--password', 'password-1', '--role', 'editor'],
      ['users', 'add', '--username', 'dup', '--password', 'password-1', '--role', 'editor'],
    ])
      almanac(args, env);
    const duplicate = almanac(['users', 'add', '--username', 'dup', '--password', 'password-1', '--role', 'editor'], env);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);
    const role = almanac(['users', 'add', '--username', 'x1', '--password', 'password-1', '--role', 'wizard'], env);
    assert.equal(role.code, 1);
    assert.match(role.stderr, /Unknown role/);
    const missing = almanac(['users', 'add', '--username', 'x2'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--password is required/);
  });

  it('creates a token shown once, lists it without the secret, and revokes it', () => {
    const created = almanac(['tokens', 'create', '--username', 'ed', '--name', 'ci', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { id, token } = JSON.parse(created.stdout) as { id: number; token: string };
    assert.match(token, /^alm_[A-Za-z0-9_-]{40,}$/);
    const listed = almanac(['tokens', 'list', '--json'], env);
    assert.ok(!listed.stdout.includes(token));
    assert.equal(almanac(['tokens', 'revoke', '--id', String(id)], env).code, 0);
    assert.equal(almanac(['tokens', 'revoke', '--id', String(id)], env).code, 1);
  });

  it('prints help for every command', () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['users', 'add', '--help'],
      ['tokens', 'create', '--help'],
      ['import', 'csv', '--help'],
    ]) {
      const result = almanac(args, env);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /almanac/);
    }
  });
});

describe('seed', () => {
  const env = freshDatabaseEnv();

  it('generates customers up to --entities in all, adding only what is missing on a second run', async () => {
    const first = almanac(['seed', '--demo', '--entities', '2500'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^generated customers: 2500 added \(2500 in all\)$/m);
    const second = almanac(['seed', '--demo', '--entities', '3000'], env);
    assert.match(second.stdout, /^generated customers: 500 added \(3000 in all\)$/m);
    const { createDb } = await import('../../src/platform/db/database.ts');
    const store = createDb(env.DATABASE_URL!);
    try {
      const row = await store.db
        .selectFrom('em_records')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('record_key', 'like', 'BULK%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 3000);
    } finally {
      await store.close();
    }
  });

  for (const bad of ['many', '2.5', '1e3']) {
    it(`refuses --entities ${bad} with one line and exit code 1, writing nothing`, () => {
      const result = almanac(['seed', '--demo', '--entities', bad, '--events', '5'], env);
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim(), '--entities must be a whole number');
      assert.equal(result.stdout, '');
    });
  }

  it('makes --series of the events weekly recurring series with their occurrences, the events counted once', () => {
    const result = almanac(['seed', '--demo', '--events', '40', '--series', '4'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^calendar: 40 events added \(40 in all\), /m);
    assert.match(result.stdout, /^recurring: 4 events made weekly series \(2[0-4]\d occurrences stored in all\)$/m);
    const again = almanac(['seed', '--demo', '--events', '10'], env);
    assert.match(again.stdout, /^calendar: 10 events added \(50 in all\), /m, 'occurrences are not events of their own');
  });

  for (const [args, message] of [
    [['--events', '5', '--series', 'two'], '--series must be a whole number'],
    [['--events', '5', '--series', '6'], '--series counts among --events: at most as many'],
    [['--series', '1'], '--series counts among --events: at most as many'],
  ] as const) {
    it(`refuses ${args.join(' ')} with one line and exit code 1, writing nothing`, () => {
      const result = almanac(['seed', '--demo', ...args], env);
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim(), message);
      assert.equal(result.stdout, '');
    });
  }
});

describe('import', () => {
  const env = freshDatabaseEnv();
  const dir = mkdtempSync(path.join(tmpdir(), 'almanac-import-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };
  const countEvents = async () => {
    const { createDb } = await import('../../src/platform/db/database.ts');
    const store = createDb(env.DATABASE_URL!);
    try {
      const row = await store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    } finally {
      await store.close();
    }
  };

  it('refuses to import with no administrator, and as an unknown user or one below editor, with one line and exit code 1', () => {
    const calendar = file('one.ics', manyEvents(1));
    const none = almanac(['import', calendar], env);
    assert.equal(none.code, 1);
    assert.equal(none.stderr.trim(), 'no administrator to import as: pass --as USER');
    assert.equal(almanac(['users', 'add', '--username', 'root', '--password', 'root-password-1', '--role', 'administrator'], env).code, 0);
    assert.equal(almanac(['users', 'add', '--username', 'au', '--password', 'author-password', '--role', 'author'], env).code, 0);
    const unknown = almanac(['import', calendar, '--as', 'nobody'], env);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr.trim(), 'unknown user: nobody');
    const author = almanac(['import', calendar, '--as', 'au'], env);
    assert.equal(author.code, 1);
    assert.equal(author.stderr.trim(), 'au is author: importing takes an editor or above');
    const missing = almanac(['import'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /name one iCalendar file/);
    const unreadable = almanac(['import', path.join(dir, 'absent.ics')], env);
    assert.equal(unreadable.code, 1);
    assert.match(unreadable.stderr, /cannot read .*absent\.ics: ENOENT/);
  });

  it('imports a file with a progress bar on stderr and the report on stdout, then again without duplicating anything', async () => {
    const calendar = file('google.ics', googleCalendar());
    const first = almanac(['import', calendar], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'created 2, updated 1, skipped 0, errors 0\n');
    assert.match(first.stderr, /^events \[#+\] 3\/3 100% /m);
    const stored = await countEvents();
    // The series, its 4 occurrences and the all-day event.
    assert.equal(stored, 6);
    const again = almanac(['import', calendar, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { created: 0, updated: 0, skipped: 3, errors: [], dry_run: false });
    assert.equal(await countEvents(), stored);
  });

  it('writes nothing with --dry-run and says what would happen', async () => {
    const before = await countEvents();
    const calendar = file('dry.ics', manyEvents(5).replace(/many-/g, 'cli-dry-'));
    const dry = almanac(['import', calendar, '--dry-run', '--as', 'root'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, 'created 5, updated 0, skipped 0, errors 0 (dry run: nothing written)\n');
    assert.equal(await countEvents(), before);
  });

  it('exits 1 naming the line of a malformed file, and writes nothing', async () => {
    const before = await countEvents();
    const calendar = file('bad.ics', manyEvents(3).replace('DTSTART:20270103T090000Z', 'DTSTART:20270103T096000Z'));
    const result = almanac(['import', calendar], env);
    assert.equal(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(
      lines.at(-1),
      `${calendar}: malformed iCalendar file, nothing imported: line 18: DTSTART "20270103T096000Z" is no DATE-TIME.`,
    );
    assert.equal(result.stdout, '');
    assert.equal(await countEvents(), before);
  });

  it('exits 1 and lists the events it could not import, having imported the others', async () => {
    const before = await countEvents();
    const calendar = file(
      'partly.ics',
      manyEvents(2, (index) => (index === 0 ? ['RRULE:FREQ=MINUTELY'] : [])).replace(/many-/g, 'cli-partly-'),
    );
    const result = almanac(['import', calendar], env);
    assert.equal(result.code, 1, result.stderr);
    const [summary, error] = result.stdout.trim().split('\n');
    assert.equal(summary, 'created 1, updated 0, skipped 0, errors 1');
    assert.match(error ?? '', /^line 9 \(cli-partly-0@tests\.example\): Invalid parameter\(s\): recurrence: FREQ=MINUTELY/);
    assert.equal(await countEvents(), before + 1);
  });

  it('takes the iCalendar file after `import ics` too', async () => {
    const result = almanac(['import', 'ics', file('ics-word.ics', manyEvents(2).replace(/many-/g, 'cli-ics-')), '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).created, 2);
    assert.match(almanac(['import', 'ics'], env).stderr, /name one iCalendar file/);
    assert.match(almanac(['import', '--help'], env).stdout, /almanac import FILE\.ics \(or import ics FILE\)/);
    assert.match(almanac(['--help'], env).stdout, /almanac import csv EVENTS\.csv \[--venues VENUES\.csv\]/);
  });

  it('imports CSV files with the report on stdout, then again writing nothing; exits 1 on rows it could not import', async () => {
    const before = await countEvents();
    const venues = file('venues.csv', 'Venue Name,Venue City\nCLI Hall,Pisa\n');
    const events = file(
      'events.csv',
      'Event Name,Event Start Date,Event Start Time,Event Venue Name,Notes\nCLI concert,03/12/2027,9 pm,CLI Hall,x\nCLI broken,31/02/2027,,,\n',
    );
    const args = ['import', 'csv', events, '--venues', venues, '--date-order', 'dmy'];
    const first = almanac(args, env);
    assert.equal(first.code, 1, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n'), [
      'venues: 1 created, 0 updated, 0 unchanged; organizers: 0 created, 0 updated, 0 unchanged; events: 1 created, 0 updated, 0 unchanged; errors 1',
      'events: columns not imported: Notes',
      'events.csv line 3, column 2 (Event Start Date): "31/02/2027" is no date of the calendar',
    ]);
    assert.match(first.stderr, /^rows \[#+\] 2\/2 100% /m);
    assert.equal(await countEvents(), before + 1);
    const again = almanac([...args, '--json'], env);
    const report = JSON.parse(again.stdout);
    assert.deepEqual(
      [report.events, report.venues],
      [
        { created: 0, updated: 0, unchanged: 1 },
        { created: 0, updated: 0, unchanged: 1 },
      ],
    );
    assert.equal(report.dry_run, false);
    const dry = almanac(['import', 'csv', file('dry.csv', 'Name,Start Date\nCLI dry,2027-12-04\n'), '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /events: 1 created, 0 updated, 0 unchanged; errors 0 \(dry run: nothing written\)/);
    assert.equal(await countEvents(), before + 1);
  });

  it('refuses a file that is no CSV, and bad options, with one line and exit code 1, writing nothing', async () => {
    const before = await countEvents();
    for (const [args, message] of [
      [['import', 'csv', file('binary.csv', '\u0000\u0001')], /binary\.csv: a binary file, not CSV text .*; nothing imported$/],
      [['import', 'csv', file('list.csv', 'Shopping\nmilk\n')], /list\.csv: no known header in line 1/],
      [
        ['import', 'csv', file('ok.csv', 'Name,Start Date\nX,2027-01-01\n'), '--date-order', 'ymd'],
        /^--date-order is dmy or mdy: not ymd$/,
      ],
      [['import', 'csv', file('ok2.csv', 'Name,Start Date\nX,2027-01-01\n'), '--map', 'Start=begin'], /^--map names no field begin/],
      [['import', 'csv'], /^name one events file/],
    ] as const) {
      const result = almanac([...args], env);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr.trim(), message);
    }
    assert.equal(await countEvents(), before);
  });
});

describe('serve', () => {
  it('prints the URLs and a generated admin password on first start, and shuts down gracefully on SIGTERM', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'almanac-serve-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), DATABASE_URL: `sqlite:${dir}/a.db`, ADMIN_PASSWORD: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A failed assertion must not leave the server running (and the test runner waiting on it).
    t.after(() => child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    while (!stdout.includes('admin password:')) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (child.exitCode !== null) assert.fail(`server exited early: ${stdout}`);
    }
    assert.match(stdout, new RegExp(`Almanac listening on http://127\\.0\\.0\\.1:${port}`));
    assert.match(stdout, /\/docs/);
    assert.match(stdout, /^admin password: \S{16,}$/m);
    // Image processing is loaded when first needed: a process that serves without it does not carry libvips.
    const libraries = readFileSync(`/proc/${child.pid}/maps`, 'utf8');
    assert.match(libraries, /better-sqlite3/, 'the maps list the native modules loaded');
    assert.doesNotMatch(libraries, /libvips/);

    // A request in flight (its body still arriving) is answered before the process exits 0.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/calendar/events/v1/nope',
          headers: { 'content-type': 'application/json', 'content-length': '2' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write('{');
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end('}'), 200);
      }, 100);
    });
    assert.equal(await inFlight, 404);
    assert.equal(await exited, 0);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('changes prune', () => {
  const env = freshDatabaseEnv();

  it('forgets old removals, by CHANGES_RETENTION_DAYS or --older-than, and refuses a duration it cannot read', () => {
    const byDefault = almanac(['changes', 'prune'], env);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.equal(byDefault.stdout, 'pruned 0 removals; sync tokens from before change 0 are expired\n');
    const json = almanac(['changes', 'prune', '--older-than', '12h', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { pruned: 0, floor: 0 });
    for (const bad of ['30', '3x', '-1d', 'd', '1.5d']) {
      const refused = almanac(['changes', 'prune', `--older-than=${bad}`], env);
      assert.equal(refused.code, 1, bad);
      assert.equal(refused.stderr.trim(), `--older-than takes a whole number and a unit (d, h or m), such as 30d: not ${bad}`);
    }
    const badRetention = almanac(['changes', 'prune'], { ...env, CHANGES_RETENTION_DAYS: '0' });
    assert.equal(badRetention.code, 2);
    assert.match(badRetention.stderr, /^Invalid configuration: CHANGES_RETENTION_DAYS /);
  });
});
