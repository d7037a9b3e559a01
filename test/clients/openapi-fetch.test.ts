/**
 * Generated clients trust the OpenAPI documents (issue 18): types generated
 * by openapi-typescript from both served documents (their `plain` variants,
 * which type generators read: issue 37), compiled with
 * `tsc --strict` together with a CRUD round written with openapi-fetch and no
 * casts (test/clients/typed/crud-round.ts), then that round run against the
 * server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';

const runFile = promisify(execFile);
const TEMPLATE = path.resolve('test/clients/typed');

describe('openapi-typescript + openapi-fetch', () => {
  let server: TestServer;
  let editor: Credentials;
  let project: string;
  before(async () => {
    server = await startTestServer();
    editor = await server.admin();
    project = await mkdtemp(path.join(tmpdir(), 'almanac-typed-'));
    await symlink(path.resolve('node_modules'), path.join(project, 'node_modules'));
    await writeFile(path.join(project, 'package.json'), '{ "type": "module" }\n');
    for (const file of ['crud-round.ts', 'tsconfig.json']) await copyFile(path.join(TEMPLATE, file), path.join(project, file));
  });
  after(async () => {
    await rm(project, { recursive: true, force: true });
    await server.close();
  });

  it('compiles a CRUD round against the generated types of both documents with tsc --strict', async () => {
    for (const [file, document] of [
      // The answers to requests without _fields and _envelope: a generated type cannot depend on the arguments.
      ['calendar.ts', '/calendar/events/v1/doc?plain'],
      ['platform.ts', '/docs/openapi.json?plain'],
    ] as const) {
      await writeFile(path.join(project, file), astToString(await openapiTS(new URL(`${server.url}${document}`))));
    }
    const compiled = await runFile(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', project]).catch(
      (failure: { stdout: string }) => failure,
    );
    assert.equal(compiled.stdout, '', 'tsc reports nothing');
  });

  it('runs the round: calendar CRUD, by-slug, typed errors, entity CRUD', async () => {
    const { stdout } = await runFile(
      process.execPath,
      ['--import', 'tsx', path.join(project, 'crud-round.ts'), server.url, editor.bearer],
      {
        cwd: project,
        timeout: 60_000,
      },
    );
    const result = JSON.parse(stdout);
    assert.equal(result.steps, 'ok');
    assert.equal((await server.request(`/calendar/events/v1/events/${result.event}`)).status, 404);
  });
});
