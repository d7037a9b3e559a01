import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createClientAsync, WSSecurity, type Client } from 'soap';
import { NS } from '../../src/soap/namespaces.ts';
import { WsSecretsService } from '../../src/soap/ws-secrets.service.ts';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.ts';
import { envelope, listPings, pingBody, postSoap, SECRET_KEY } from './soap-fixtures.ts';
import { requireProgram } from '../helpers/programs.ts';

const PYTHON = '/usr/bin/python3';
const ZEEP_CLIENT = path.resolve('test/soap/zeep-ping.py');
requireProgram(PYTHON, ['-c', 'import zeep'], `Debian's python3-zeep is not installed (apt-get install python3-zeep; run with ${PYTHON})`);

const runFile = promisify(execFile);

describe('SOAP PingService interoperability', () => {
  let server: TestServer;
  let user: Credentials;
  let secret: string;
  let wsdlUrl: string;
  before(async () => {
    server = await startTestServer({ SOAP_SECRET_KEY: SECRET_KEY });
    user = await server.createUser('subscriber');
    secret = await new WsSecretsService({ db: server.server.store.db, serverKey: SECRET_KEY }).issue(user.username);
    wsdlUrl = `${server.url}/soap/PingService?wsdl`;
  });
  after(async () => server.close());

  /** The newest ping must be this input, from this user. */
  async function assertLatestPing(pingInput: string, username: string | null): Promise<void> {
    const [latest] = (await listPings(server, '?per_page=1')).pings;
    assert.equal(latest?.ping_input, pingInput);
    assert.equal(latest?.username, username);
    assert.equal(latest?.client_address, '127.0.0.1');
    assert.ok(Math.abs(Date.parse(latest?.received_at ?? '') - Date.now()) < 60_000);
  }

  it('serves the WSDL with the endpoint address from BASE_URL', async () => {
    const response = await fetch(wsdlUrl);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/xml/);
    const wsdl = await response.text();
    assert.match(wsdl, new RegExp(`<soap:address location="${server.url}/soap/PingService"/>`));
    assert.match(wsdl, new RegExp(`targetNamespace="${NS.ping}"`));
    assert.match(wsdl, /<soap:operation soapAction="pingOperation"\/>/);
    assert.match(wsdl, /<wsdl:port name="PingServicePort" binding="tns:PingSOAP">/);
    assert.doesNotMatch(wsdl, /<wsdl:output/, 'pingOperation is one-way');
  });

  it('accepts a ping with 202 and an empty body, and records it', async () => {
    const response = await fetch(`${server.url}/soap/PingService`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'pingOperation' },
      body: envelope({ body: pingBody('raw &amp; &#x263A; <![CDATA[<cdata>]]>') }),
    });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), '');
    await assertLatestPing('raw & \u263A <cdata>', null);
  });

  it('records the HTTP Basic user when there is no WS-Security header', async () => {
    assert.equal((await postSoap(server, envelope({ body: pingBody('basic') }), { authorization: user.basic })).status, 202);
    await assertLatestPing('basic', user.username);
  });

  for (const [name, body, headers] of [
    ['a qualified pingInput', `<p:pingStringInput xmlns:p="${NS.ping}"><p:pingInput>qualified</p:pingInput></p:pingStringInput>`, {}],
    [
      'a default-namespace pingStringInput',
      `<pingStringInput xmlns="${NS.ping}"><pingInput xmlns="">default ns</pingInput></pingStringInput>`,
      {},
    ],
    ['an empty quoted SOAPAction', pingBody('empty action'), { soapaction: '""' }],
    ['a blank SOAPAction', pingBody('blank action'), { soapaction: '' }],
    ['no SOAPAction header', pingBody('no action'), { soapaction: undefined }],
  ] as const) {
    it(`accepts ${name}`, async () => {
      const response = await postSoap(server, envelope({ body }), headers);
      assert.equal(response.status, 202, response.text);
    });
  }

  it('ignores header blocks it need not understand: optional ones, and those for another actor', async () => {
    const header =
      '<tx:Trace xmlns:tx="urn:example:tx">1</tx:Trace>' +
      `<tx:Route xmlns:tx="urn:example:tx" soap:actor="urn:example:gateway" soap:mustUnderstand="1">2</tx:Route>`;
    assert.equal((await postSoap(server, envelope({ header, body: pingBody('headers') }))).status, 202);
    await assertLatestPing('headers', null);
  });

  describe('node-soap client built from the served WSDL', () => {
    let client: Client;
    before(async () => {
      client = await createClientAsync(wsdlUrl);
    });

    it('pings without credentials', async () => {
      client.clearSoapHeaders();
      await client.pingOperationAsync({ pingInput: 'node-soap plain' });
      await assertLatestPing('node-soap plain', null);
    });

    it('pings with a PasswordText UsernameToken', async () => {
      client.setSecurity(new WSSecurity(user.username, user.password, { passwordType: 'PasswordText' }));
      await client.pingOperationAsync({ pingInput: 'node-soap text' });
      await assertLatestPing('node-soap text', user.username);
    });

    it('pings with a PasswordDigest UsernameToken', async () => {
      client.setSecurity(new WSSecurity(user.username, secret, { passwordType: 'PasswordDigest', mustUnderstand: true }));
      await client.pingOperationAsync({ pingInput: 'node-soap digest' });
      await assertLatestPing('node-soap digest', user.username);
    });

    it('surfaces a fault as an error', async () => {
      client.setSecurity(new WSSecurity(user.username, 'wrong-secret', { passwordType: 'PasswordDigest' }));
      await assert.rejects(client.pingOperationAsync({ pingInput: 'refused' }), /FailedAuthentication/);
    });
  });

  describe('Python zeep client built from the served WSDL', () => {
    // Asynchronous on purpose: zeep calls back into this process's server.
    const zeep = (...args: string[]) => runFile(PYTHON, [ZEEP_CLIENT, wsdlUrl, ...args], { timeout: 60_000 });

    it('pings without credentials', async () => {
      await zeep('zeep plain');
      await assertLatestPing('zeep plain', null);
    });

    it('pings with a PasswordText UsernameToken', async () => {
      await zeep('zeep text', 'text', user.username, user.password);
      await assertLatestPing('zeep text', user.username);
    });

    it('pings with a PasswordDigest UsernameToken', async () => {
      await zeep('zeep digest', 'digest', user.username, secret);
      await assertLatestPing('zeep digest', user.username);
    });

    it('receives a fault for a wrong secret', async () => {
      await assert.rejects(zeep('refused', 'digest', user.username, 'wrong-secret'), /username or password is incorrect/);
    });
  });
});
