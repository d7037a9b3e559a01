import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { compileOncePerSchema, serializersOncePerSchema } from '../../src/platform/http/compile-once.ts';
import { finiteNumbersPlugin } from '../../src/platform/http/finite-numbers.ts';

const page = () => ({ type: 'object', properties: { page: { type: 'integer', minimum: 1 } } });

describe('compiling each distinct schema once per server', () => {
  it('gives equal schemas one validator, and different schemas their own', () => {
    const ajv = compileOncePerSchema(finiteNumbersPlugin(new Ajv({ coerceTypes: true })));
    const first = ajv.compile(page());
    assert.equal(ajv.compile(page()), first);
    const other = ajv.compile({ type: 'object', properties: { page: { type: 'integer', minimum: 2 } } });
    assert.notEqual(other, first);
    assert.equal(first({ page: 1 }), true);
    assert.equal(other({ page: 1 }), false);
  });

  it('keeps what the plugins before it add: a shared validator still refuses a non-finite number', () => {
    const ajv = compileOncePerSchema(finiteNumbersPlugin(new Ajv({ coerceTypes: true })));
    const distance = () => ({ type: 'object', properties: { km: { type: 'number' } } });
    ajv.compile(distance());
    const validate = ajv.compile(distance());
    assert.equal(validate({ km: '1e309' }), false);
    assert.equal(validate.errors?.[0]?.message, 'must be a finite number');
  });

  it('gives equal response schemas one serializer, per set of shared schemas and options', () => {
    const factory = serializersOncePerSchema();
    const compile = factory({}, {});
    const route = (schema: object) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
    const title = { type: 'object', properties: { title: { type: 'string' } } };
    const first = compile(route(title));
    assert.equal(compile({ ...route(structuredClone(title)), url: '/y', httpStatus: '404' }), first);
    assert.equal(first({ title: 'Jazz', secret: 'x' }), '{"title":"Jazz"}');
    const withId = compile(route({ type: 'object', properties: { id: { type: 'integer' } } }));
    assert.notEqual(withId, first);
    assert.equal(withId({ id: 3, title: 'Jazz' }), '{"id":3}');
    assert.equal(factory({}, {}), compile);
    assert.notEqual(factory({ Shared: { $id: 'Shared', type: 'string' } }, {}), compile);
  });
});
