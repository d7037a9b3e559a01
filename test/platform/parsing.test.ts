import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseQuerystring } from '../../src/platform/http/querystring.ts';
import { redactUrl } from '../../src/platform/http/redact.ts';
import { parseAuthorization } from '../../src/platform/auth/authenticate.ts';
import { AppError } from '../../src/platform/errors.ts';

describe('parseQuerystring', () => {
  it('turns x[]=a&x[]=b and repeated keys into arrays, keeps bracketed filter keys', () => {
    assert.deepEqual({ ...parseQuerystring('x[]=a&x[]=b&y=1&y=2&filter[City]=Brescia&z=') }, {
      x: ['a', 'b'],
      y: ['1', '2'],
      'filter[City]': 'Brescia',
      z: '',
    });
  });

  it('treats __proto__ as a plain key', () => {
    const parsed = parseQuerystring('__proto__=polluted&constructor=x');
    assert.equal(parsed.__proto__, 'polluted');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('keeps a malformed percent-escape as written', () => {
    assert.deepEqual({ ...parseQuerystring('a=%FF&b=%&c=caf%C3%A9') }, { a: '%FF', b: '%', c: 'café' });
  });

  it('groups the values of repeated and [] keys in order, whatever the text', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !k.endsWith('[]'));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, fc.boolean()), { selector: ([name]) => name, maxLength: 4 }), fc.array(fc.tuple(fc.nat(), fc.string()), { maxLength: 12 }), (keys, pairs) => {
        fc.pre(keys.length > 0);
        const sent = pairs.map(([which, value]) => [keys[which % keys.length]!, value] as const);
        const query = new URLSearchParams(sent.map(([[name, list], value]) => [list ? `${name}[]` : name, value])).toString();
        const expected: Record<string, string | string[]> = {};
        for (const [[name, list], value] of sent) {
          const values = sent.filter(([[other]]) => other === name).map(([, v]) => v);
          expected[name] = list || values.length > 1 ? values : value;
        }
        assert.deepEqual({ ...parseQuerystring(query) }, expected);
      }),
    );
  });

  it('round-trips any single-valued query built by URLSearchParams', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !k.endsWith('[]')), fc.string()), (input) => {
        const parsed = parseQuerystring(new URLSearchParams(input).toString());
        assert.deepEqual({ ...parsed }, { ...input });
      }),
    );
  });
});

describe('redactUrl', () => {
  it('hides password and token values and keeps the rest', () => {
    assert.equal(redactUrl('/events/1?password=hunter2&per_page=5'), '/events/1?password=[redacted]&per_page=5');
    assert.equal(redactUrl('/x?TOKEN=abc&password%5B%5D=p'), '/x?TOKEN=[redacted]&password%5B%5D=[redacted]');
    assert.equal(redactUrl('/plain'), '/plain');
  });

  it('never lets a password value through, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), (other, secret) => {
        const url = `/p?a=${encodeURIComponent(other)}&password=${secret}`;
        assert.ok(!redactUrl(url).includes(`password=${secret}`));
      }),
    );
  });
});

describe('parseAuthorization', () => {
  it('parses Basic and Bearer', () => {
    assert.deepEqual(parseAuthorization(`Basic ${Buffer.from('ann:pa:ss').toString('base64')}`), {
      kind: 'basic',
      username: 'ann',
      password: 'pa:ss',
    });
    assert.deepEqual(parseAuthorization('Bearer abc'), { kind: 'bearer', token: 'abc' });
  });

  it('only ever throws the 401 invalid_authorization_header AppError for arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        try {
          parseAuthorization(header);
        } catch (error) {
          assert.ok(error instanceof AppError);
          assert.equal(error.status, 401);
        }
      }),
    );
  });
});
