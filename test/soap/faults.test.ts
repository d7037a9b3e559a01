import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { startServer } from '../../src/server.ts';
import { NS } from '../../src/soap/namespaces.ts';
import { WsSecretsService } from '../../src/soap/ws-secrets.service.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { assertFault, assertFaultStoresNothing, envelope, pingBody, postSoap, SECRET_KEY, securityHeader } from './soap-fixtures.ts';

describe('SOAP PingService faults', () => {
  let server: TestServer;
  let editor: Credentials;
  let secret: string;
  before(async () => {
    server = await startTestServer({ SOAP_SECRET_KEY: SECRET_KEY });
    editor = await server.createUser('editor');
    secret = await new WsSecretsService({ db: server.server.store.db, serverKey: SECRET_KEY }).issue(editor.username);
  });
  after(async () => server.close());

  const client = (body: string, headers?: Record<string, string | undefined>) => () => postSoap(server, body, headers);

  describe('soap:Client', () => {
    it('refuses a body that is not well-formed XML', async () => {
      await assertFaultStoresNothing(server, client(`<soap:Envelope xmlns:soap="${NS.soap11}"><soap:Body>`), 'soap:Client');
    });

    it('names an unescaped "&" in the ping, and where it is', async () => {
      const body = `<p:pingStringInput xmlns:p="${NS.ping}"><pingInput>AT&T</pingInput></p:pingStringInput>`;
      const faultstring = await assertFaultStoresNothing(server, client(envelope({ body })), 'soap:Client');
      assert.match(faultstring, /an "&" begins no entity or character reference; write it as &amp; \(line \d+, column \d+\)/);
    });

    it('refuses XML that is not a SOAP envelope', async () => {
      await assertFaultStoresNothing(server, client('<ping><pingInput>hi</pingInput></ping>'), 'soap:Client');
    });

    it('refuses an empty body', async () => {
      await assertFaultStoresNothing(server, client(''), 'soap:Client');
    });

    it('refuses an envelope without a Body', async () => {
      await assertFaultStoresNothing(server, client(`<soap:Envelope xmlns:soap="${NS.soap11}"/>`), 'soap:Client');
    });

    it('refuses an empty Body (no pingStringInput)', async () => {
      await assertFaultStoresNothing(server, client(envelope({ body: '' })), 'soap:Client');
    });

    it('refuses pingStringInput without pingInput', async () => {
      const body = `<p:pingStringInput xmlns:p="${NS.ping}"/>`;
      const faultstring = await assertFaultStoresNothing(server, client(envelope({ body })), 'soap:Client');
      assert.match(faultstring, /pingInput/);
    });

    it('refuses an unknown element in the body', async () => {
      const body = `<p:dropTables xmlns:p="${NS.ping}"><pingInput>x</pingInput></p:dropTables>`;
      await assertFaultStoresNothing(server, client(envelope({ body })), 'soap:Client');
    });

    it('refuses pingStringInput in the wrong namespace', async () => {
      const body = '<pingStringInput xmlns="urn:other"><pingInput>x</pingInput></pingStringInput>';
      await assertFaultStoresNothing(server, client(envelope({ body })), 'soap:Client');
    });

    it('refuses an unexpected element inside pingStringInput', async () => {
      const body = `<p:pingStringInput xmlns:p="${NS.ping}"><pingInput>x</pingInput><extra/></p:pingStringInput>`;
      await assertFaultStoresNothing(server, client(envelope({ body })), 'soap:Client');
    });

    it('refuses a second operation element in the body', async () => {
      await assertFaultStoresNothing(server, client(envelope({ body: pingBody('a') + pingBody('b') })), 'soap:Client');
    });

    it('refuses a wrong SOAPAction', async () => {
      const faultstring = await assertFaultStoresNothing(server, client(envelope(), { soapaction: '"deleteEverything"' }), 'soap:Client');
      assert.match(faultstring, /SOAPAction/);
    });

    it('refuses a body that is not sent as text/xml', async () => {
      await assertFaultStoresNothing(server, client('{"pingInput":"hi"}', { 'content-type': 'application/json' }), 'soap:Client');
    });

    it('refuses an undeclared entity reference', async () => {
      for (const reference of ['&undeclared;', '&constructor;', '&#0;', '&#xD800;']) {
        await assertFaultStoresNothing(server, client(envelope({ body: pingBody(reference) })), 'soap:Client');
      }
    });

    it('refuses an undeclared namespace prefix', async () => {
      await assertFaultStoresNothing(
        server,
        client(envelope({ body: '<q:pingStringInput><pingInput>x</pingInput></q:pingStringInput>' })),
        'soap:Client',
      );
    });
  });

  describe('XML attacks are refused before anything is expanded or fetched', () => {
    it('refuses a billion-laughs document at once', async () => {
      const entities = ['<!ENTITY lol "lol">'];
      for (let level = 1; level <= 9; level += 1) {
        entities.push(`<!ENTITY lol${level} "${`&lol${level === 1 ? '' : level - 1};`.repeat(10)}">`);
      }
      const body = `<?xml version="1.0"?>\n<!DOCTYPE soap:Envelope [${entities.join('')}]>\n${envelope({ body: pingBody('&lol9;') }).replace(/^<\?xml[^>]*>\n/, '')}`;
      const started = Date.now();
      const faultstring = await assertFaultStoresNothing(server, client(body), 'soap:Client');
      assert.match(faultstring, /DTD/);
      assert.ok(Date.now() - started < 5_000, 'the refusal should not take time');
    });

    it('refuses an external entity and reads no file', async () => {
      const body = `<?xml version="1.0"?>\n<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n${envelope({ body: pingBody('&xxe;') }).replace(/^<\?xml[^>]*>\n/, '')}`;
      const faultstring = await assertFaultStoresNothing(server, client(body), 'soap:Client');
      assert.doesNotMatch(faultstring, /root:/);
    });

    it('refuses a parameter entity hidden after the root element', async () => {
      await assertFaultStoresNothing(server, client(`${envelope()}<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x">`), 'soap:Client');
    });

    it('answers a 1 MB body with a Client fault and HTTP 413', async () => {
      const body = envelope({ body: pingBody('x'.repeat(1024 * 1024)) });
      await assertFaultStoresNothing(server, client(body), 'soap:Client', 413);
    });

    it('caps the endpoint at 64 KiB, below the platform limit', async () => {
      const body = envelope({ body: pingBody('x'.repeat(64 * 1024)) });
      await assertFaultStoresNothing(server, client(body), 'soap:Client', 413);
    });
  });

  describe('SOAP versions and headers', () => {
    it('answers a SOAP 1.2 envelope with VersionMismatch', async () => {
      await assertFaultStoresNothing(server, client(envelope({ namespace: NS.soap12 })), 'soap:VersionMismatch');
    });

    it('answers the SOAP 1.2 media type with VersionMismatch', async () => {
      const headers = { 'content-type': 'application/soap+xml; charset=utf-8; action="pingOperation"' };
      await assertFaultStoresNothing(server, client(envelope({ namespace: NS.soap12 }), headers), 'soap:VersionMismatch');
    });

    it('answers an unknown header marked mustUnderstand with MustUnderstand', async () => {
      const header = '<tx:Transaction xmlns:tx="urn:example:tx" soap:mustUnderstand="1">42</tx:Transaction>';
      const faultstring = await assertFaultStoresNothing(server, client(envelope({ header })), 'soap:MustUnderstand');
      assert.match(faultstring, /tx:Transaction/);
    });
  });

  describe('wsse:FailedAuthentication', () => {
    const wsse = (token: Parameters<typeof securityHeader>[0]) => client(envelope({ header: securityHeader(token) }));

    it('refuses a wrong PasswordText password, with the same answer as an unknown user', async () => {
      const wrong = await assertFaultStoresNothing(
        server,
        wsse({ username: editor.username, password: 'wrong-password' }),
        'wsse:FailedAuthentication',
      );
      const unknown = await assertFaultStoresNothing(
        server,
        wsse({ username: 'nobody', password: 'wrong-password' }),
        'wsse:FailedAuthentication',
      );
      assert.equal(wrong, unknown);
    });

    it('refuses a wrong PasswordDigest secret, with the same answer as an unknown user', async () => {
      const wrong = await assertFaultStoresNothing(
        server,
        wsse({ username: editor.username, password: 'not-the-secret', type: 'digest' }),
        'wsse:FailedAuthentication',
      );
      const unknown = await assertFaultStoresNothing(
        server,
        wsse({ username: 'nobody', password: secret, type: 'digest' }),
        'wsse:FailedAuthentication',
      );
      assert.equal(wrong, unknown);
    });

    it('refuses a digest of the login password: PasswordDigest uses the WS-Security secret', async () => {
      await assertFaultStoresNothing(
        server,
        wsse({ username: editor.username, password: editor.password, type: 'digest' }),
        'wsse:FailedAuthentication',
      );
    });

    it('refuses a Created time older than 5 minutes, even with a valid digest', async () => {
      const created = new Date(Date.now() - 6 * 60_000).toISOString();
      const faultstring = await assertFaultStoresNothing(
        server,
        wsse({ username: editor.username, password: secret, type: 'digest', created }),
        'wsse:FailedAuthentication',
      );
      assert.match(faultstring, /Created/);
    });

    it('refuses a Created time more than 5 minutes ahead', async () => {
      const created = new Date(Date.now() + 6 * 60_000).toISOString();
      await assertFaultStoresNothing(
        server,
        wsse({ username: editor.username, password: secret, type: 'digest', created }),
        'wsse:FailedAuthentication',
      );
    });

    it('refuses a digest without Nonce and Created', async () => {
      const header = securityHeader({ username: editor.username, password: secret, type: 'digest' }).replace(
        /<wsse:Nonce>.*<\/wsu:Created>/,
        '',
      );
      await assertFaultStoresNothing(server, client(envelope({ header })), 'wsse:FailedAuthentication');
    });

    it('refuses a replayed nonce, also when the replay reaches another process', async () => {
      const message = envelope({ header: securityHeader({ username: editor.username, password: secret, type: 'digest' }) });
      assert.equal((await postSoap(server, message)).status, 202);
      const replay = await assertFaultStoresNothing(server, client(message), 'wsse:FailedAuthentication');
      assert.match(replay, /replay/);

      // A second server process on the same database sees the nonce too.
      const other = await startServer(loadConfig(envOf(server)), {
        print: () => undefined,
        logDestination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
      });
      try {
        const message2 = envelope({
          header: securityHeader({ username: editor.username, password: secret, type: 'digest', nonce: randomBytes(16) }),
        });
        assert.equal((await postSoap(server, message2)).status, 202);
        assertFault(await postSoap(other, message2), 'wsse:FailedAuthentication');
      } finally {
        await other.close();
      }
    });

    it('refuses bad HTTP Basic credentials with the same fault', async () => {
      const basic = `Basic ${Buffer.from(`${editor.username}:wrong-password`).toString('base64')}`;
      await assertFaultStoresNothing(server, client(envelope(), { authorization: basic }), 'wsse:FailedAuthentication');
    });

    it('refuses an unknown Bearer token with the same fault', async () => {
      await assertFaultStoresNothing(server, client(envelope(), { authorization: 'Bearer alm_not-a-token' }), 'wsse:FailedAuthentication');
    });
  });

  it('answers an internal failure with soap:Server, a request id and no details', async () => {
    // Last in the file: the server's database goes away.
    await server.server.store.close();
    const response = await postSoap(server, envelope(), { 'x-request-id': 'soap-test-500' });
    const faultstring = assertFault(response, 'soap:Server');
    assert.equal(faultstring, 'internal error (request id soap-test-500)');
  });
});

/** The environment of a second process sharing the test server's database. */
function envOf(server: TestServer): Record<string, string> {
  return { HOST: '127.0.0.1', PORT: '0', DATABASE_URL: server.config.databaseUrl, SOAP_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'silent' };
}
