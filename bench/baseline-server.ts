/**
 * The ceiling: a bare Fastify server answering every GET with one constant
 * JSON body of BODY_BYTES bytes (the size of the single-event response).
 * Run as a child process by bench/run.ts; prints "listening on <url>".
 */
import Fastify from 'fastify';

const size = Number(process.env.BODY_BYTES ?? '2000');
const filler = 'x'.repeat(Math.max(0, size - '{"data":""}'.length));
const body = JSON.stringify({ data: filler });

const app = Fastify({ logger: false });
app.get('/', async (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8');
  return body;
});

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? '0') });
process.stdout.write(`baseline listening on ${address}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
