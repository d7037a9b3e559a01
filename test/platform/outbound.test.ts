/**
 * Outbound requests guarded against SSRF (issue 24): addresses checked at
 * connect time, redirects not followed, time and body bounded. Real servers on
 * 127.0.0.1; a refused request must not even open a connection to them.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { blockedRangeOf, checkTargetUrl, parseAllowList, postJson, type ResolveAll } from '../../src/platform/http/outbound.ts';

interface Receiver {
  readonly port: number;
  readonly requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  connections: number;
  close(): Promise<void>;
}

async function startReceiver(answer: (response: http.ServerResponse, port: number) => void): Promise<Receiver> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    port: (server.address() as AddressInfo).port,
    requests: [],
    connections: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => (receiver.connections += 1));
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      receiver.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      answer(response, receiver.port);
    });
  });
  return receiver;
}

const NONE = parseAllowList('');
const SECRET = 'whsec_c2VjcmV0LXRoYXQtbXVzdC1ub3QtbGVhaw';
const PAYLOAD = JSON.stringify({ type: 'event.created', data: { id: 7 } });

/** A resolver that answers `addresses` for every name, as a DNS server under someone else's control could. */
const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('parseAllowList', () => {
  it('reads host names, addresses and CIDR ranges, ignoring case, spaces, a trailing dot and empty entries', () => {
    const allow = parseAllowList(' LocalHost. , hooks.internal,,127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8,');
    assert.deepEqual([...allow.hosts], ['localhost', 'hooks.internal']);
    assert.deepEqual(
      allow.ranges.map(([address, bits]) => `${address.toString()}/${bits}`),
      ['127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::/8'],
    );
  });

  it('allows nothing when empty', () => {
    const allow = parseAllowList('');
    assert.equal(allow.hosts.size + allow.ranges.length, 0);
  });

  it('throws an error naming the bad entry', () => {
    for (const entry of [
      'http://hooks',
      '*.example.com',
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.0/x',
      '127.1',
      '0x7f.0.0.1',
      '1234',
      'fe80::1%eth0',
      'a b',
    ]) {
      assert.throws(
        () => parseAllowList(`localhost,${entry}`),
        (error: Error) => error.message.includes(`"${entry}"`),
        entry,
      );
    }
  });
});

describe('blockedRangeOf', () => {
  it('passes plain public unicast only, judging IPv4-mapped addresses as the IPv4 address they carry', () => {
    const cases: Record<string, string[]> = {
      unicast: ['93.184.215.14', '2606:4700:4700::1111', '::ffff:93.184.215.14'],
      loopback: ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'],
      linkLocal: ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1', 'fe80::1%eth0'],
      private: ['10.0.0.1', '172.16.5.4', '192.168.1.1'],
      uniqueLocal: ['fd00::1', 'fc00::1'],
      unspecified: ['0.0.0.0', '0.1.2.3', '::'],
      carrierGradeNat: ['100.64.0.1'],
      multicast: ['224.0.0.1', 'ff02::1'],
      broadcast: ['255.255.255.255'],
      reserved: ['198.18.0.1', '192.0.2.1', '240.0.0.1', '2001:db8::1'],
      benchmarking: ['2001:2::1'],
      ipv4Compatible: ['::7f00:1', '::a9fe:a9fe', '::a00:1'],
      '6to4': ['2002:7f00:1::1'],
      teredo: ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
      rfc6052: ['64:ff9b::7f00:1', '64:ff9b::808:808'],
      deprecatedSiteLocal: ['fec0::1'],
      notGlobalUnicast: ['4000::1', '::2:0:0:1'],
      unparsable: ['not an address', ''],
    };
    for (const [range, addresses] of Object.entries(cases)) {
      for (const address of addresses) assert.equal(blockedRangeOf(address), range === 'unicast' ? undefined : range, address);
    }
  });
});

describe('checkTargetUrl', () => {
  it('accepts an https URL on a public name or address', () => {
    const urls = 'https://hooks.example.com/in?x=1 https://93.184.215.14:8443/ https://[2606:4700:4700::1111]/ https://HOOKS.example.com./';
    for (const url of urls.split(' ')) assert.equal(checkTargetUrl(url, NONE), undefined, url);
  });

  it('refuses with a sentence naming the problem', () => {
    // WHATWG URL parsing turns decimal, hex and octal IPv4 forms into dotted decimal, and refuses IPv6 zone ids.
    const cases: Record<string, string[]> = {
      'absolute URL': ['hooks.example.com/in', '', 'https://[fe80::1%25eth0]/'],
      'must use https.': ['ftp://hooks.example.com/', 'javascript:alert(1)', 'file:///etc/passwd'],
      'must use https (http is accepted only for hosts allowed by configuration)': ['http://hooks.example.com/', 'http://93.184.215.14/'],
      'user name or password': ['https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/'],
      fragment: ['https://hooks.example.com/#part', 'https://hooks.example.com/#'],
      'host 127.0.0.1 is in a blocked address range (loopback)': [
        'https://127.0.0.1/',
        'https://2130706433/',
        'https://0x7f.1/',
        'https://0177.0.0.1/',
        'https://127.0.0.1./',
      ],
      'host ::1 is in a blocked address range (loopback)': ['https://[::1]/'],
      'host ::ffff:7f00:1 is in a blocked address range (loopback)': ['https://[::ffff:127.0.0.1]/'],
      '(ipv4Compatible)': ['https://[::127.0.0.1]/'],
      '(linkLocal)': ['https://169.254.169.254/latest/meta-data/', 'https://[fe80::1]/'],
      '(private)': ['https://10.0.0.1/', 'https://192.168.0.10:8443/'],
      '(unspecified)': ['https://0.0.0.0/', 'https://0/', 'https://[::]/'],
      '(carrierGradeNat)': ['https://100.64.0.1/'],
      '(uniqueLocal)': ['https://[fd00::1]/'],
      'host localhost is a loopback name': ['https://localhost/', 'https://LOCALHOST./'],
      'host api.localhost is a loopback name': ['https://api.localhost/'],
    };
    for (const [problem, urls] of Object.entries(cases)) {
      for (const url of urls) assert.ok(checkTargetUrl(url, NONE)?.includes(problem), `${url}: ${checkTargetUrl(url, NONE)}`);
    }
  });

  it('accepts http and blocked addresses only for what the allow list names', () => {
    const allow = parseAllowList('localhost,hooks.internal,127.0.0.0/8,fd00::/8');
    for (const url of [
      'http://localhost:8080/',
      'http://HOOKS.internal./x',
      'http://127.0.0.1:3000/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'https://[fd00::5]/',
    ]) {
      assert.equal(checkTargetUrl(url, allow), undefined, url);
    }
    // Names match exactly: allowing `localhost` does not allow its subdomains.
    assert.match(checkTargetUrl('https://api.localhost/', allow) ?? '', /loopback name/);
    for (const url of ['http://hooks.example.com/', 'http://10.0.0.1/', 'https://10.0.0.1/', 'http://[::1]/', 'http://other.internal/']) {
      assert.notEqual(checkTargetUrl(url, allow), undefined, url);
    }
  });

  it('never throws and answers undefined or a sentence, for any string and allow list', () => {
    const allowLists = fc.constantFrom('', 'localhost', '127.0.0.0/8,::1,hooks.internal').map(parseAllowList);
    const pieces = fc.constantFrom(...'http https : // / @ [ ] :: %25 # ? . 0x 127 1 localhost ä'.split(' '));
    const urlish = fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), urlish), allowLists, (url, allow) => {
        const problem = checkTargetUrl(url, allow);
        assert.ok(problem === undefined || (typeof problem === 'string' && problem.length > 0));
      }),
      { numRuns: 2000 },
    );
  });

  it('parseAllowList either returns a list or throws an Error naming an entry, for any string', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.ipV4(), fc.ipV6(), fc.domain()), { maxLength: 5 }), (entries) => {
        try {
          parseAllowList(entries.join(','));
        } catch (error) {
          assert.ok(error instanceof Error && /^allow list entry ".*"/.test(error.message));
        }
      }),
    );
  });
});

describe('postJson', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver((response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
  });
  after(async () => receiver.close());

  it('refuses blocked address literals without opening a connection', async () => {
    const before = receiver.connections;
    const hosts = [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::127.0.0.1]',
      '169.254.169.254',
      '10.0.0.1',
      '0.0.0.0',
      '[::]',
      '2130706433',
      '0x7f.1',
    ];
    for (const host of hosts) {
      const result = await postJson(`https://${host}:${receiver.port}/hook`, {}, PAYLOAD, { allow: NONE });
      assert.equal(result.ok, false, host);
      assert.equal(result.status, undefined, host);
      assert.match(result.error ?? '', /^refused: url's host .* is in a blocked address range \(\w+\)\.$/, host);
    }
    assert.equal(receiver.connections, before);
  });

  it('refuses localhost at connect time, naming the address it resolved to', async () => {
    const before = receiver.connections;
    const result = await postJson(`https://localhost:${receiver.port}/hook`, {}, PAYLOAD, { allow: NONE });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^refused: localhost resolves to (127\.0\.0\.1|::1) \(loopback\)$/);
    assert.equal(receiver.connections, before);
  });

  it('refuses a name when any of its addresses is blocked, whatever the resolver answers at connect time', async () => {
    const before = receiver.connections;
    const answers: [string[], RegExp][] = [
      [['127.0.0.1'], /hooks\.example resolves to 127\.0\.0\.1 \(loopback\)/],
      [['93.184.215.14', '10.1.2.3'], /hooks\.example resolves to 10\.1\.2\.3 \(private\)/],
      [['2606:4700:4700::1111', '::ffff:169.254.169.254'], /resolves to ::ffff:169\.254\.169\.254 \(linkLocal\)/],
      [['fe80::1%eth0'], /resolves to fe80::1%eth0 \(linkLocal\)/],
      [[], /hooks\.example resolves to no address/],
    ];
    for (const [addresses, refusal] of answers) {
      const result = await postJson(`https://hooks.example:${receiver.port}/`, {}, PAYLOAD, {
        allow: NONE,
        resolve: resolvingTo(...addresses),
      });
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', refusal);
    }
    assert.equal(receiver.connections, before);
  });

  it('connects to the address the check saw, when an allowed range contains it', async () => {
    const before = receiver.connections;
    const allow = parseAllowList('127.0.0.0/8');
    const result = await postJson(`https://hooks.example:${receiver.port}/`, {}, PAYLOAD, { allow, resolve: resolvingTo('127.0.0.1') });
    // The receiver speaks plain HTTP: the TLS handshake fails, after connecting.
    assert.equal(result.ok, false);
    assert.doesNotMatch(result.error ?? '', /refused/);
    assert.equal(receiver.connections, before + 1);
  });

  for (const entry of ['127.0.0.1', 'localhost', '127.0.0.0/8']) {
    it(`delivers over http to a host allowed by "${entry}"`, async () => {
      const host = entry === 'localhost' ? 'localhost' : '127.0.0.1';
      const count = receiver.requests.length;
      const result = await postJson(`http://${host}:${receiver.port}/hook?x=1`, { 'webhook-id': 'msg_1' }, PAYLOAD, {
        allow: parseAllowList(entry),
        userAgent: 'Almanac-Webhooks/1',
      });
      assert.deepEqual({ ...result, durationMs: 0 }, { ok: true, status: 200, body: 'thanks', durationMs: 0 });
      assert.ok(result.durationMs >= 0 && result.durationMs < 5000);
      const received = receiver.requests[count];
      assert.ok(received);
      assert.equal(received.method, 'POST');
      assert.equal(received.url, '/hook?x=1');
      assert.equal(received.body, PAYLOAD);
      assert.equal(received.headers['content-type'], 'application/json');
      assert.equal(received.headers['user-agent'], 'Almanac-Webhooks/1');
      assert.equal(received.headers['webhook-id'], 'msg_1');
    });
  }

  it('does not follow a redirect, and counts it as a failure', async () => {
    const elsewhere = await startReceiver((response) => response.end('should not be reached'));
    const redirecting = await startReceiver((response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/moved` }).end('moved'),
    );
    try {
      const result = await postJson(`http://127.0.0.1:${redirecting.port}/`, {}, PAYLOAD, { allow: parseAllowList('127.0.0.1') });
      assert.equal(result.ok, false);
      assert.equal(result.status, 307);
      assert.equal(result.error, `redirect (307) to http://127.0.0.1:${elsewhere.port}/moved not followed`);
      assert.equal(redirecting.requests.length, 1);
      assert.equal(elsewhere.connections, 0);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });

  it('reports a 500 with its status and body', async () => {
    const failing = await startReceiver((response) => response.writeHead(500).end('{"error":"boom"}'));
    try {
      const result = await postJson(`http://127.0.0.1:${failing.port}/`, {}, PAYLOAD, { allow: parseAllowList('127.0.0.1') });
      assert.deepEqual(
        { ...result, durationMs: 0 },
        { ok: false, status: 500, error: 'status 500', body: '{"error":"boom"}', durationMs: 0 },
      );
    } finally {
      await failing.close();
    }
  });

  it('reads only the first KiB of the answer, without splitting a character', async () => {
    const chatty = await startReceiver((response) => response.end(`a${'é'.repeat(64 * 1024)}`));
    try {
      const result = await postJson(`http://127.0.0.1:${chatty.port}/`, {}, PAYLOAD, { allow: parseAllowList('127.0.0.1') });
      assert.equal(result.ok, true);
      assert.equal(result.body, `a${'é'.repeat(511)}`);
      assert.ok(Buffer.byteLength(result.body ?? '') <= 1024);
    } finally {
      await chatty.close();
    }
  });

  it('gives up after timeoutMs on a receiver that never answers', async () => {
    const silent = await startReceiver(() => undefined);
    try {
      const started = Date.now();
      const result = await postJson(`http://127.0.0.1:${silent.port}/`, {}, PAYLOAD, {
        allow: parseAllowList('127.0.0.1'),
        timeoutMs: 300,
      });
      const waited = Date.now() - started;
      assert.deepEqual(
        { ok: result.ok, status: result.status, error: result.error },
        { ok: false, status: undefined, error: 'timeout after 300 ms' },
      );
      assert.ok(waited >= 290 && waited < 2000, `waited ${waited} ms`);
    } finally {
      await silent.close();
    }
  });

  it('judges an answer whose body never ends by its status when the time is up', async () => {
    const trickle = await startReceiver((response) => response.writeHead(202).write('accepted, still talking'));
    try {
      const result = await postJson(`http://127.0.0.1:${trickle.port}/`, {}, PAYLOAD, {
        allow: parseAllowList('127.0.0.1'),
        timeoutMs: 300,
      });
      assert.deepEqual({ ...result, durationMs: 0 }, { ok: true, status: 202, body: 'accepted, still talking', durationMs: 0 });
    } finally {
      await trickle.close();
    }
  });

  it('never puts request headers or the body in its results', async () => {
    const silent = await startReceiver(() => undefined);
    const closed = await startReceiver(() => undefined);
    await closed.close();
    const headers = { 'webhook-signature': `v1,${SECRET}`, authorization: `Bearer ${SECRET}` };
    const loopback = parseAllowList('127.0.0.1');
    try {
      const results = [
        await postJson(`https://localhost:${receiver.port}/`, headers, PAYLOAD, { allow: NONE }),
        await postJson(`https://127.0.0.1:${receiver.port}/`, headers, PAYLOAD, { allow: NONE }),
        await postJson(`http://127.0.0.1:${silent.port}/`, headers, PAYLOAD, { allow: loopback, timeoutMs: 200 }),
        await postJson(`http://127.0.0.1:${closed.port}/`, headers, PAYLOAD, { allow: loopback }),
        await postJson(`https://127.0.0.1:${receiver.port}/`, headers, PAYLOAD, { allow: loopback }),
        await postJson(`http://127.0.0.1:${receiver.port}/`, { ...headers, 'x-bad': `${SECRET}\r\n` }, PAYLOAD, { allow: loopback }),
        await postJson(`http://127.0.0.1:${receiver.port}/`, headers, PAYLOAD, { allow: loopback }),
      ];
      assert.deepEqual(
        results.map((result) => result.ok),
        [false, false, false, false, false, false, true],
      );
      for (const result of results) {
        const text = JSON.stringify(result);
        assert.ok(!text.includes(SECRET) && !text.includes('event.created'), text);
      }
      assert.match(results[3]?.error ?? '', /ECONNREFUSED/);
    } finally {
      await silent.close();
    }
  });
});
