import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { createLogger, lazyChildLogger } from '../../src/platform/logger.ts';
import { startTestServer } from '../helpers/server.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('per-request loggers', () => {
  it('log with the request id at enabled levels, and nothing below', async () => {
    const { lines, destination } = capture();
    const parent = createLogger('warn', destination);
    const child = lazyChildLogger(parent, { reqId: 'r-1' }, {});
    child.info('not logged');
    child.debug({ x: 1 }, 'not logged either');
    assert.equal(child.level, 'warn');
    child.warn({ detail: 2 }, 'logged');
    child.child({ step: 'inner' }).error('nested');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map(({ msg, reqId, detail, step }) => ({ msg, reqId, detail, step })),
      [
        { msg: 'logged', reqId: 'r-1', detail: 2, step: undefined },
        { msg: 'nested', reqId: 'r-1', detail: undefined, step: 'inner' },
      ],
    );
  });

  it('carry a level of their own when asked (a route-level log level)', async () => {
    const { lines, destination } = capture();
    const child = lazyChildLogger(createLogger('warn', destination), { reqId: 'r-2' }, { level: 'debug' });
    child.debug('debug on this route');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => [line.msg, line.reqId]),
      [['debug on this route', 'r-2']],
    );
  });
});

describe('request log lines', () => {
  const messagesOf = (logs: readonly string[]) =>
    logs.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);

  for (const [level, expected] of [
    ['info', ['incoming request', 'request completed']],
    ['warn', []],
  ] as const) {
    it(`at LOG_LEVEL=${level}: ${expected.length === 0 ? 'none' : expected.join(', ')}`, async () => {
      const server = await startTestServer({ LOG_LEVEL: level });
      try {
        const response = await server.request('/healthz', { headers: { 'x-request-id': `log-${level}` } });
        assert.equal(response.status, 200);
        await new Promise((resolve) => setImmediate(resolve));
        const lines = messagesOf(server.logs).filter((line) => line.reqId === `log-${level}`);
        assert.deepEqual(
          lines.map((line) => line.msg),
          expected,
        );
      } finally {
        await server.close();
      }
    });
  }
});
