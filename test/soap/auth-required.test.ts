import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { assertFault, assertFaultStoresNothing, envelope, listPings, pingBody, postSoap, securityHeader } from './soap-fixtures.ts';

describe('SOAP PingService with SOAP_AUTH=required (and no SOAP_SECRET_KEY)', () => {
  let server: TestServer;
  let author: Credentials;
  before(async () => {
    server = await startTestServer({ SOAP_AUTH: 'required', AUTH_MAX_FAILURES: '2' });
    author = await server.createUser('author');
  });
  after(async () => server.close());

  it('refuses a ping without credentials with FailedAuthentication', async () => {
    const faultstring = await assertFaultStoresNothing(server, () => postSoap(server, envelope()), 'wsse:FailedAuthentication');
    assert.match(faultstring, /required/);
  });

  it('refuses a Security header without a UsernameToken like no credentials at all', async () => {
    const header = `<wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"/>`;
    await assertFaultStoresNothing(server, () => postSoap(server, envelope({ header })), 'wsse:FailedAuthentication');
  });

  it('accepts a PasswordText UsernameToken', async () => {
    const header = securityHeader({ username: author.username, password: author.password });
    assert.equal((await postSoap(server, envelope({ header, body: pingBody('wsse') }))).status, 202);
  });

  it('accepts HTTP Basic credentials', async () => {
    assert.equal((await postSoap(server, envelope({ body: pingBody('basic') }), { authorization: author.basic })).status, 202);
  });

  it('accepts a Bearer token', async () => {
    assert.equal((await postSoap(server, envelope({ body: pingBody('bearer') }), { authorization: author.bearer })).status, 202);
  });

  it('refuses PasswordDigest while no SOAP_SECRET_KEY is configured', async () => {
    const header = securityHeader({ username: author.username, password: author.password, type: 'digest' });
    const faultstring = await assertFaultStoresNothing(server, () => postSoap(server, envelope({ header })), 'wsse:FailedAuthentication');
    assert.match(faultstring, /not enabled/);
  });

  it('answers a login lockout with a Client fault and Retry-After, even for the right password', async () => {
    const locked = await server.createUser('contributor');
    const ping = (password: string) => () =>
      postSoap(server, envelope({ header: securityHeader({ username: locked.username, password }) }));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await assertFaultStoresNothing(server, ping('wrong-password'), 'wsse:FailedAuthentication');
    }
    const response = await ping(locked.password)();
    assertFault(response, 'soap:Client');
    assert.ok(Number(response.retryAfter) > 0);
  });

  it('records who pinged', async () => {
    const { pings } = await listPings(server);
    assert.deepEqual(
      pings.map((ping) => [ping.ping_input, ping.username]),
      [
        ['bearer', author.username],
        ['basic', author.username],
        ['wsse', author.username],
      ],
    );
  });
});
