import http from 'node:http';
import Fastify from 'fastify';

/**
 * The baseline of the ingest benchmark: a server that only reads a `/call/upsert_batch` body,
 * parses it with JSON.parse and answers the same `{"res": [...]}` shape Heddle answers, with no
 * validation, auth or storage. `http` uses node:http directly, `fastify` a bare Fastify instance
 * (its own JSON body parser, no plugins). Usage: bare-server.ts http|fastify <port>
 */

interface Item {
  req: { start?: { id: string; trace_id: string } };
}

function answer(body: { batch: Item[] }): string {
  const res = body.batch.map((item) =>
    item.req.start ? { id: item.req.start.id, trace_id: item.req.start.trace_id } : {},
  );
  return JSON.stringify({ res });
}

function serveHttp(port: number): void {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const text = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { batch: Item[] });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
}

async function serveFastify(port: number): Promise<void> {
  const app = Fastify({ logger: false, bodyLimit: 32 * 1024 * 1024 });
  app.post('/call/upsert_batch', async (request, reply) =>
    reply.type('application/json').send(answer(request.body as { batch: Item[] })),
  );
  await app.listen({ host: '127.0.0.1', port });
  process.stdout.write(`listening ${port}\n`);
}

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);
process.on('SIGTERM', () => process.exit(0));
if (kind === 'http') serveHttp(port);
else if (kind === 'fastify') await serveFastify(port);
else {
  process.stderr.write('usage: bare-server.ts http|fastify <port>\n');
  process.exit(2);
}
