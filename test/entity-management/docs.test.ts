import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN, startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { ENTITIES, makeCustomer } from './factories.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const OPERATIONS: Record<string, [method: string, path: string]> = {
  listEntities: ['get', '/apiservice/api/services/entity-management/{entity-type}'],
  createEntity: ['post', '/apiservice/api/services/entity-management/{entity-type}'],
  updateEntity: ['put', '/apiservice/api/services/entity-management/{entity-type}'],
  deleteEntity: ['delete', '/apiservice/api/services/entity-management/{entity-type}'],
  getEntityById: ['get', '/apiservice/api/services/entity-management/{entity-type}/{entity-key}'],
  updateEntityByKey: ['put', '/apiservice/api/services/entity-management/{entity-type}/{entity-key}'],
  deleteEntityByKey: ['delete', '/apiservice/api/services/entity-management/{entity-type}/{entity-key}'],
  actions: ['get', '/apiservice/api/services/actions'],
  action: ['get', '/apiservice/api/services/actions/{code}'],
  runAction: ['post', '/apiservice/api/services/actions/{code}/run'],
  reloadActions: ['post', '/apiservice/api/services/actions/reload'],
};

describe('entity-management interactive docs', () => {
  let server: TestServer;
  let editor: Credentials;
  let customer: Record<string, unknown>;

  before(async () => {
    server = await startTestServer();
    editor = await server.createUser('editor');
    customer = makeCustomer({ key: 'C-DOCS-1', CompanyName: 'Arredi Gallo S.n.c.', CityCodeDescription: 'Verona' });
    const created = await server.request(`${ENTITIES}/customers`, { method: 'POST', body: customer, auth: editor });
    assert.equal(created.status, 201);
  });
  after(async () => server.close());

  describe('the OpenAPI document', () => {
    it('is valid OpenAPI 3.1 and documents every route of the surface with its operationId', async () => {
      const response = await server.request('/docs/openapi.json');
      assert.equal(response.status, 200);
      await SwaggerParser.validate(structuredClone(response.body));
      for (const [operationId, [method, path]] of Object.entries(OPERATIONS)) {
        const operation = response.body.paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        assert.equal(operation.operationId, operationId);
        assert.ok(operation.tags.length > 0 && operation.summary, operationId);
        assert.deepEqual(operation.security, [{ basicAuth: [] }, { bearerAuth: [] }], operationId);
        assert.ok(operation.responses['200'] ?? operation.responses['201'], operationId);
        assert.ok(operation.responses['401'], operationId);
      }
    });

    it('names the path parameters as clients know them and offers the five types', async () => {
      const { body } = await server.request('/docs/openapi.json');
      const get = body.paths[OPERATIONS.getEntityById![1]].get;
      const byName = new Map(get.parameters.map((parameter: { name: string }) => [parameter.name, parameter]));
      assert.deepEqual((byName.get('entity-type') as any).schema.enum, ['collaborators', 'customers', 'items', 'projects', 'todo']);
      assert.equal((byName.get('entity-key') as any).in, 'path');
      assert.equal((byName.get('fields') as any).in, 'query');
    });

    it('serves each type’s field table as a schema, mapped fields naming their internal codes', async () => {
      const { body } = await server.request('/docs/openapi.json');
      const customers = body.components.schemas.Customers;
      assert.ok(customers, 'Customers schema');
      assert.match(customers.properties.CityCodeDescription.description, /D_I\/57/);
      assert.ok(customers.properties.CDPAG, 'unmapped fields appear under their code');
      for (const name of ['Collaborators', 'Items', 'Projects', 'Todo']) assert.ok(body.components.schemas[name], name);
      assert.match(body.components.schemas.Todo.description, /todo/);
    });

    it('carries request and response examples', async () => {
      const { body } = await server.request('/docs/openapi.json');
      const create = body.paths[OPERATIONS.createEntity![1]].post;
      assert.equal(create.requestBody.content['application/json'].example.key, 'C0100');
      const list = body.paths[OPERATIONS.listEntities![1]].get;
      assert.equal(list.responses['200'].content['application/json'].example.messages[0].code, 'OK');
      assert.equal(list.responses['404'].content['application/json'].example.payload, null);
    });
  });

  describe('in a real browser', () => {
    let browser: Browser | undefined;
    let page: Page;

    before(async () => {
      if (!existsSync(CHROMIUM)) return;
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      // Swagger UI renders a long document's operations only near the viewport: a tall one shows them all at once.
      page = await browser.newPage({ viewport: { width: 1280, height: 16000 } });
    });
    after(async () => browser?.close());

    /** Expands an operation, presses Try it out, fills parameters, executes, and returns the status and body shown. */
    async function tryItOut(operationId: string, fill: (operation: ReturnType<Page['locator']>) => Promise<void>) {
      const operation = page.locator(`[id$="-${operationId}"]`).first();
      await operation.locator('.opblock-summary').first().click();
      await operation.locator('.try-out__btn').click();
      await fill(operation);
      await operation.locator('.execute').click();
      const response = operation.locator('.live-responses-table .response').first();
      await response.waitFor({ timeout: 15_000 });
      const status = (await response.locator('.response-col_status').innerText()).trim();
      const shown = await response.locator('.response-col_description pre').first().innerText();
      return { status, body: JSON.parse(shown) as { messages: { code: string }[]; payload: any } };
    }

    it('authorizes with HTTP Basic and runs Try it out on the customers list and getEntityById with fields', async (t) => {
      if (browser === undefined) {
        t.skip(`Chromium is not installed at ${CHROMIUM} (Debian package "chromium"): browser test skipped`);
        return;
      }
      await page.goto(`${server.url}/docs`);
      await page.locator('.btn.authorize').first().click();
      const basic = page.locator('.modal-ux .auth-container').filter({ hasText: 'basicAuth' });
      await basic.locator('input[type="text"]').fill(ADMIN.username);
      await basic.locator('input[type="password"]').fill(ADMIN.password);
      await basic.locator('button.authorize').click();
      await page.locator('.modal-ux .btn-done').first().click();

      const list = await tryItOut('listEntities', async (operation) => {
        await operation.locator('tr[data-param-name="entity-type"] select').selectOption('customers');
      });
      assert.equal(list.status, '200');
      assert.equal(list.body.messages[0]!.code, 'OK');
      assert.ok(
        list.body.payload.some((record: { key: string }) => record.key === customer.key),
        JSON.stringify(list.body),
      );

      const got = await tryItOut('getEntityById', async (operation) => {
        await operation.locator('tr[data-param-name="entity-type"] select').selectOption('customers');
        await operation.locator('tr[data-param-name="entity-key"] input').fill(String(customer.key));
        const fields = operation.locator('tr[data-param-name="fields"]');
        await fields.getByRole('button', { name: /add string item/i }).click();
        await fields.locator('input').last().fill('CompanyName');
        await fields.getByRole('button', { name: /add string item/i }).click();
        await fields.locator('input').last().fill('CityCodeDescription');
      });
      assert.equal(got.status, '200');
      assert.deepEqual(got.body.payload, { key: customer.key, CompanyName: 'Arredi Gallo S.n.c.', CityCodeDescription: 'Verona' });
    });
  });
});
