import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import qs from 'qs';
import { PARAMETER_LIMITS, parseParameters, parseQuerystring, unreadableQuery } from '../../src/platform/http/querystring.ts';
import { ValidationError } from '../../src/platform/http/classify-error.ts';

/** A parsed value as ordinary objects, for deepEqual. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
import { redactUrl } from '../../src/platform/http/redact.ts';
import { parseAuthorization } from '../../src/platform/auth/authenticate.ts';
import { AppError } from '../../src/platform/errors.ts';

describe('parseParameters', () => {
  it('reads PHP and jQuery bracket notation: lists in index order, objects, nesting', () => {
    assert.deepEqual(
      plain(
        parseParameters(
          'organizer[1]=7&organizer[0]=2&venue[venue]=Hall&venue[city]=Rome&categories[]=music&categories[]=jazz&cost[0]=0&cost[1]=20',
        ),
      ),
      { organizer: ['2', '7'], venue: { venue: 'Hall', city: 'Rome' }, categories: ['music', 'jazz'], cost: ['0', '20'] },
    );
    assert.deepEqual(plain(parseParameters('organizer[0][organizer]=Ann&organizer[0][email]=a%40x.it&organizer[1]=5')), {
      organizer: [{ organizer: 'Ann', email: 'a@x.it' }, '5'],
    });
    assert.deepEqual(plain(parseParameters('a%5B0%5D=x&filter%5BCity%5D=Brescia')), { a: ['x'], filter: { City: 'Brescia' } });
  });

  it('turns repeated keys into arrays and keeps empty values', () => {
    assert.deepEqual(plain(parseParameters('y=1&y=2&z=&w')), { y: ['1', '2'], z: '', w: '' });
  });

  it('keeps __proto__ and constructor as plain keys at any depth, polluting nothing', () => {
    const flat = parseParameters('__proto__=polluted&constructor=x');
    assert.equal(flat.__proto__, 'polluted');
    assert.equal(flat.constructor, 'x');
    const nested = parseParameters('filter[__proto__]=x&a[__proto__][admin]=1&__proto__[admin]=1');
    assert.deepEqual(Object.keys(nested.filter as object), ['__proto__']);
    assert.equal((nested.filter as Record<string, unknown>).__proto__, 'x');
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('keeps a malformed percent-escape as written', () => {
    assert.deepEqual(plain(parseParameters('a=%FF&b=%&c=caf%C3%A9')), { a: '%FF', b: '%', c: 'café' });
    assert.deepEqual(plain(parseParameters('a[0]=%FF&a[1]=%')), { a: ['%FF', '%'] });
  });

  it('refuses, by name, nesting deeper than the limit, a huge index and too many parameters', () => {
    const refusal = (text: string) => {
      try {
        parseParameters(text);
      } catch (error) {
        assert.ok(error instanceof ValidationError);
        return error.invalid;
      }
      assert.fail(`accepted ${text.slice(0, 60)}`);
    };
    const deep = `organizer${'[0]'.repeat(PARAMETER_LIMITS.depth + 1)}=1`;
    assert.match(refusal(`page=1&${deep}`).organizer ?? '', /deeper/);
    assert.doesNotThrow(() => parseParameters(`organizer${'[0]'.repeat(PARAMETER_LIMITS.depth)}=1`));
    assert.match(refusal(`include[${PARAMETER_LIMITS.arrayItems}]=1`).include ?? '', /index/);
    const many = Array.from({ length: PARAMETER_LIMITS.parameters + 1 }, (_, index) => `p${index}=1`).join('&');
    assert.ok(refusal(many).parameters);
    const repeated = Array.from({ length: PARAMETER_LIMITS.parameters + 1 }, () => 'a=1').join('&');
    assert.ok(refusal(repeated).parameters);
  });

  it('reads flat text exactly as qs does (the fast path and the bracket path agree)', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !/[[\]]|__proto__/.test(k));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.string({ maxLength: 8 })), { maxLength: 12 }), (pairs) => {
        const text = new URLSearchParams(pairs).toString();
        assert.deepEqual(plain(parseParameters(text)), plain(qs.parse(text, { plainObjects: true, depth: 0 })));
      }),
    );
  });

  it('groups the values of repeated, [] and [n] keys in order, whatever the text', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !/[[\]%]|__proto__/.test(k) && k.trim() === k);
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { maxLength: 4 }),
        fc.constantFrom('repeat', 'brackets', 'indices'),
        fc.array(fc.tuple(fc.nat(), fc.string()), { maxLength: 12 }),
        (keys, style, pairs) => {
          fc.pre(keys.length > 0);
          const sent = pairs.map(([which, value]) => [keys[which % keys.length]!, value] as const);
          const counters = new Map<string, number>();
          const name = (key: string) => {
            const index = counters.get(key) ?? 0;
            counters.set(key, index + 1);
            return style === 'repeat' ? key : style === 'brackets' ? `${key}[]` : `${key}[${index}]`;
          };
          const text = new URLSearchParams(sent.map(([key, value]) => [name(key), value])).toString();
          const expected: Record<string, string | string[]> = {};
          for (const [key] of sent) {
            const values = sent.filter(([other]) => other === key).map(([, value]) => value);
            expected[key] = style === 'repeat' && values.length === 1 ? (values[0] as string) : values;
          }
          assert.deepEqual(plain(parseParameters(text)), expected);
        },
      ),
    );
  });
});

describe('parseQuerystring', () => {
  it('never throws: text over a limit yields an empty query carrying the refusal', () => {
    const query = parseQuerystring(`a${'[x]'.repeat(20)}=1&b=2`);
    assert.deepEqual(plain(query), {});
    assert.ok(unreadableQuery(query) instanceof ValidationError);
    assert.equal(unreadableQuery(parseQuerystring('a[x]=1')), undefined);
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
