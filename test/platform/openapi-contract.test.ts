/**
 * The OpenAPI documents as a contract typed clients and strict contract
 * proxies can trust (issue 18), and the suite's own enforcement of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describeReshapedAnswers } from '../../src/platform/wp-rest/reshaped-answers.ts';
import { Contract } from '../helpers/contract.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'];

function operations(document: Json): { path: string; method: string; operation: Json }[] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => ({ path, method, operation: item[method] as Json })),
  );
}

describe('the OpenAPI contract', () => {
  let server: TestServer;
  let whole: Json;
  let calendar: Json;
  /** The plain variant, which type generators read: the answers to requests without _fields and _envelope. */
  let plainCalendar: Json;
  before(async () => {
    server = await startTestServer();
    whole = (await server.request('/docs/openapi.json')).body;
    calendar = (await server.request('/calendar/events/v1/doc')).body;
    plainCalendar = (await server.request('/calendar/events/v1/doc?plain')).body;
  });
  after(async () => server.close());

  it('names every operation with a unique operationId, in both documents', () => {
    for (const document of [whole, calendar]) {
      const ids = operations(document).map(({ operation }) => operation.operationId);
      assert.ok(
        ids.every((id) => typeof id === 'string' && id !== ''),
        'every operation has an id',
      );
      assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    }
    const byId = new Map(operations(calendar).map(({ path, method, operation }) => [operation.operationId, `${method} ${path}`]));
    assert.equal(byId.get('listEvents'), 'get /events');
    assert.equal(byId.get('updateEventPatch'), 'patch /events/{id}');
    assert.equal(byId.get('getVenueBySlug'), 'get /venues/by-slug/{slug}');
  });

  it('applies security to every operation: optional credentials on public reads, required on writes', () => {
    for (const { path, method, operation } of operations(whole)) {
      assert.ok(Array.isArray(operation.security) && operation.security.length > 0, `${method} ${path}`);
    }
    const list = calendar.paths['/events'].get.security;
    assert.ok(
      list.some((requirement: Json) => Object.keys(requirement).length === 0),
      'anonymous reads allowed',
    );
    const create = calendar.paths['/events'].post.security;
    assert.ok(
      create.every((requirement: Json) => Object.keys(requirement).length > 0),
      'a write needs credentials',
    );
  });

  it('documents the platform statuses of every operation with the surface’s error body', () => {
    for (const { path, method, operation } of operations(whole)) {
      for (const status of ['400', '401', '429']) assert.ok(operation.responses[status], `${method} ${path} ${status}`);
      if (method !== 'get')
        for (const status of ['413', '415', '503']) assert.ok(operation.responses[status], `${method} ${path} ${status}`);
    }
    const tagCreate = calendar.paths['/tags'].post.responses;
    assert.ok(tagCreate['403'] && tagCreate['401'] && tagCreate['400']);
    const entityError =
      whole.paths['/apiservice/api/services/entity-management/{entity-type}'].post.responses['415'].content['application/json'].schema;
    assert.ok(JSON.stringify(entityError).includes('messages'), 'the entity surface documents its envelope');
    const pings = whole.paths['/soap/pings'].get.responses;
    assert.ok(pings['401'] && pings['403']);
  });

  it('marks no defaulted parameter required and needs no body where none is needed', () => {
    for (const { path, method, operation } of operations(whole)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) assert.equal(parameter.required, false, `${method} ${path} ${parameter.name}`);
      }
    }
    assert.equal(calendar.paths['/venues/{id}'].delete.requestBody.required, false);
    assert.equal(calendar.paths['/events/{id}'].post.requestBody.required, false);
    assert.equal(calendar.paths['/events'].post.requestBody.required, true);
  });

  it('types requests as the server accepts them: JSON and form bodies, one value or a list', () => {
    const body = calendar.paths['/events'].post.requestBody.content;
    assert.deepEqual(Object.keys(body), ['application/json', 'application/x-www-form-urlencoded']);
    const cost = body['application/json'].schema.properties.cost;
    assert.deepEqual(
      cost.anyOf.map((member: Json) => member.type),
      ['string', 'array'],
    );
    const categories = calendar.paths['/events'].get.parameters.find((parameter: Json) => parameter.name === 'categories');
    assert.equal(categories.schema.type, 'array', 'a query list: one value is a list of one');
    const filter = whole.paths['/apiservice/api/services/entity-management/{entity-type}'].get.parameters.find(
      (parameter: Json) => parameter.name === 'filter',
    );
    assert.equal(filter.style, 'deepObject');
  });

  it('requires the fields a list always has', () => {
    for (const [path, key] of [
      ['/events', 'events'],
      ['/venues', 'venues'],
      ['/organizers', 'organizers'],
      ['/categories', 'categories'],
      ['/tags', 'tags'],
    ] as const) {
      const schema = plainCalendar.paths[path].get.responses['200'].content['application/json'].schema;
      for (const field of [key, 'rest_url', 'total', 'total_pages']) assert.ok(schema.required?.includes(field), `${path} ${field}`);
      assert.ok(!JSON.stringify(schema).includes('x-always-present'));
      assert.deepEqual(calendar.paths[path].get.responses['200'].content['application/json'].schema.anyOf[0], schema);
    }
  });

  it('tells what _fields and _envelope answer, as a validating proxy reads it; the plain variant does not', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(calendar, 'calendar');
    ajv.addSchema(plainCalendar, 'plain');
    const answers = (document: string, path: string, method: string, status: number) =>
      ajv.compile({
        $ref: `${document}#/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}/content/application~1json/schema`,
      });
    const list = answers('calendar', '/events', 'get', 200);
    const page = { events: [], rest_url: 'x', total: 0, total_pages: 0 };
    assert.ok(list(page), 'the answer');
    assert.ok(list({ events: [{ id: 1, title: 'Only these' }], rest_url: 'x', total: 1, total_pages: 1 }), '_fields: each item');
    assert.ok(list({ body: { code: 'rest_invalid_param' }, status: 400, headers: { 'X-WP-Total': '1' } }), '_envelope: any answer');
    assert.ok(!list({ events: [{ id: 'one' }] }), 'the fields named keep their types');
    assert.ok(!list({ body: {}, status: '400', headers: {} }), 'an envelope has an integer status');
    assert.ok(!list({ body: {}, status: 400, headers: { Link: 1 } }), 'an envelope has text headers');
    assert.ok(!answers('plain', '/events', 'get', 200)({ events: [{ id: 1 }], rest_url: 'x', total: 1, total_pages: 1 }));
    assert.ok(answers('plain', '/events', 'get', 200)(page));
    // An operation without a JSON 200 answers one with _envelope: a create, a feed.
    const created = answers('calendar', '/events', 'post', 200);
    assert.ok(created({ body: { id: 1 }, status: 201, headers: { Location: 'x' } }));
    assert.ok(!created({ id: 1 }));
    assert.ok(answers('calendar', '/events', 'post', 201)({ id: 1 }), '_fields on a create');
    assert.ok(answers('calendar', '/events.ics', 'get', 200)({ body: { code: 'x' }, status: 404, headers: {} }));
    assert.equal(plainCalendar.paths['/events'].post.responses['200'], undefined);
    assert.ok(!JSON.stringify(plainCalendar).includes('WpEnvelope'));
    // The entity-management surface takes neither: its answers are what they are.
    const entities =
      whole.paths['/apiservice/api/services/entity-management/{entity-type}'].get.responses['200'].content['application/json'];
    assert.equal(entities.schema.anyOf, undefined);
  });

  it("roots the namespace document at the namespace URL with the reference's trailing slash", () => {
    assert.equal(calendar.servers[0].url, `${server.url}/calendar/events/v1/`);
    assert.ok(calendar.paths['/events']);
  });

  describe('the suite holds every answer to the document', () => {
    const document = {
      openapi: '3.1.0',
      paths: {
        '/things/{id}': {
          get: {
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
              { name: '_fields', in: 'query', schema: { type: 'string' } },
              { name: '_envelope', in: 'query', schema: { type: 'string' } },
            ],
            responses: {
              200: {
                content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } } },
              },
            },
          },
        },
      },
    };
    const contract = new Contract(describeReshapedAnswers(structuredClone(document)), '', document);
    const check = (path: string, status: number, body: unknown) => () =>
      contract.check('GET', new URL(`http://x${path}`), {}, status, 'application/json', body);

    it('accepts a listed status with a matching body', () => {
      assert.doesNotThrow(check('/things/1', 200, { id: 1 }));
    });

    it('fails a status the operation does not list', () => {
      assert.throws(check('/things/1', 403, { code: 'x' }), /does not document status 403/);
    });

    it('fails a body that does not match', () => {
      assert.throws(check('/things/1', 200, { id: 'one' }), /does not match/);
      assert.throws(check('/things/1', 200, {}), /does not match/);
    });

    it('holds _fields and _envelope answers to what the document as served tells of them', () => {
      assert.doesNotThrow(check('/things/1?_fields=name', 200, {}));
      assert.throws(check('/things/1?_fields=id', 200, { id: 'one' }), /does not match/);
      assert.doesNotThrow(check('/things/1?_envelope', 200, { body: { id: 1 }, status: 200, headers: {} }));
      assert.throws(check('/things/1?_envelope', 200, { body: {}, status: 200, headers: {} }), /enveloped.*does not match/);
      assert.throws(check('/things/1?_envelope', 200, { body: {}, status: 418, headers: {} }), /status 418/);
      assert.throws(check('/things/1?_envelope', 200, { body: {}, status: '200', headers: {} }), /does not match/);
    });

    it('fails an answer from a route the document does not list', () => {
      assert.throws(check('/things', 200, []), /does not list/);
      assert.doesNotThrow(check('/nowhere', 404, { code: 'rest_no_route' }));
    });
  });
});
