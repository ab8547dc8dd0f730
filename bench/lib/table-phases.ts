import http from 'node:http';
import { tableRowJson } from '../../src/services/table-service.js';
import type { TableQuery, TraceStore } from '../../src/store/types.js';
import { LoadClient } from './load.js';
import { measure, type PhaseResult } from './measure.js';
import type { ChildServer } from './processes.js';

/**
 * The table phases of the objects benchmark: a dataset-like table built through /table/create and
 * /table/update appends, then streamed whole through /table/query_stream, next to the same rows
 * read in process from the store method the service calls (TableStore.query).
 */

const WORDS = (
  'the model answer retrieval context passage question evaluation dataset score label source ' +
  'document token prompt response latency user assistant system tool search query result summary ' +
  'benchmark accuracy recall precision citation reference vector index chunk embedding metadata'
).split(' ');

/** A small deterministic generator (mulberry32), so every run stores the same rows. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(rand: () => number, minBytes: number, maxBytes: number): string {
  const target = minBytes + Math.floor(rand() * (maxBytes - minBytes));
  const words: string[] = [];
  let length = 0;
  while (length < target) {
    const word = WORDS[Math.floor(rand() * WORDS.length)]!;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

/** One evaluation-dataset row: a few fields, 100–300-byte strings, nested dicts and a list. */
export function datasetRow(i: number): Record<string, unknown> {
  const rand = rng(i + 1);
  return {
    id: `q-${String(i).padStart(6, '0')}`,
    question: text(rand, 100, 300),
    context: {
      source: `https://docs.example.com/guide/${Math.floor(rand() * 500)}#section-${Math.floor(rand() * 20)}`,
      passages: [
        { text: text(rand, 100, 200), score: Math.round(rand() * 1000) / 1000 },
        { text: text(rand, 100, 200), score: Math.round(rand() * 1000) / 1000 },
      ],
    },
    expected: { answer: text(rand, 100, 300), label: ['yes', 'no', 'partial'][i % 3] },
    metadata: {
      split: i % 10 === 0 ? 'validation' : 'test',
      difficulty: 1 + (i % 5),
      tags: ['rag', `topic-${i % 37}`],
    },
  };
}

export interface BuiltTable {
  digest: string;
  rows: number;
  /** Mean length of a row's JSON as sent. */
  rowBytes: number;
  result: PhaseResult;
}

/** Creates a `rows`-row table: /table/create with the first batch, then /table/update appends of `batchRows`. */
export async function buildTableOverHttp(
  server: ChildServer,
  apiKey: string,
  project: string,
  rows: number,
  batchRows: number,
): Promise<BuiltTable> {
  const client = new LoadClient(server.url, apiKey, 1);
  let digest = '';
  let bytes = 0;
  const batch = (from: number): Array<Record<string, unknown>> =>
    Array.from({ length: Math.min(batchRows, rows - from) }, (_, k) => datasetRow(from + k));
  try {
    const result = await measure(
      `table build: /table/create + /table/update appends of ${batchRows} rows`,
      rows,
      server,
      async () => {
        const first = batch(0);
        bytes += first.reduce((sum, row) => sum + JSON.stringify(row).length, 0);
        const created = await client.postOk(
          '/table/create',
          JSON.stringify({ table: { project_id: project, rows: first } }),
          true,
        );
        digest = (JSON.parse(created.text!) as { digest: string }).digest;
        for (let from = first.length; from < rows; from += batchRows) {
          const next = batch(from);
          bytes += next.reduce((sum, row) => sum + JSON.stringify(row).length, 0);
          const body = JSON.stringify({
            project_id: project,
            base_digest: digest,
            updates: next.map((row) => ({ append: { row } })),
          });
          digest = (JSON.parse((await client.postOk('/table/update', body, true)).text!) as { digest: string }).digest;
        }
      },
    );
    return { digest, rows, rowBytes: bytes / rows, result };
  } finally {
    client.close();
  }
}

export interface StreamReading {
  status: number;
  lines: number;
  bytes: number;
  /** From sending the request to the first complete line, ms. */
  firstRowMs: number;
  firstLine: string;
}

/** POSTs `body` and reads a JSON Lines answer as it arrives, timing the first complete line. */
export function readJsonl(baseUrl: string, apiKey: string, path: string, body: string): Promise<StreamReading> {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`loopback only, not ${baseUrl}`);
  const payload = Buffer.from(body);
  const headers = {
    'content-type': 'application/json',
    'content-length': payload.length,
    authorization: `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`,
  };
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path, method: 'POST', headers, agent: false },
      (res) => {
        const reading: StreamReading = {
          status: res.statusCode ?? 0,
          lines: 0,
          bytes: 0,
          firstRowMs: -1,
          firstLine: '',
        };
        let head: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          reading.bytes += chunk.length;
          let at = chunk.indexOf(10);
          if (reading.firstRowMs < 0 && at !== -1) {
            reading.firstRowMs = performance.now() - t0;
            reading.firstLine = Buffer.concat([...head, chunk.subarray(0, at)]).toString('utf8');
            head = [];
          } else if (reading.firstRowMs < 0) head.push(chunk);
          for (; at !== -1; at = chunk.indexOf(10, at + 1)) reading.lines += 1;
        });
        res.on('end', () => resolve(reading));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** One /table/query_stream of the whole table over loopback; checks the row count and the first row. */
export async function streamTable(
  server: ChildServer,
  apiKey: string,
  project: string,
  table: BuiltTable,
  run: number,
): Promise<PhaseResult> {
  let reading: StreamReading | null = null;
  const body = JSON.stringify({ project_id: project, digest: table.digest });
  // a small request over a new connection, like the stream's: what any request costs before its first byte
  const t0 = performance.now();
  const stats = await readJsonl(server.url, apiKey, '/table/query_stats', body);
  const requestMs = performance.now() - t0;
  if (stats.status !== 200) throw new Error(`/table/query_stats answered ${stats.status}`);
  const result = await measure('/table/query_stream over loopback (JSONL)', table.rows, server, async () => {
    reading = await readJsonl(server.url, apiKey, '/table/query_stream', body);
  });
  const r = reading as StreamReading | null;
  if (r === null || r.status !== 200) throw new Error(`/table/query_stream answered ${r?.status}`);
  if (r.lines !== table.rows) throw new Error(`/table/query_stream returned ${r.lines} rows, expected ${table.rows}`);
  const first = JSON.parse(r.firstLine) as { original_index: number; val: { id: string } };
  if (first.original_index !== 0 || first.val.id !== 'q-000000')
    throw new Error(`unexpected first row: ${r.firstLine.slice(0, 200)}`);
  return {
    ...result,
    extra: {
      run,
      first_row_ms: round2(r.firstRowMs),
      small_request_ms: round2(requestMs),
      mib_per_s: round2(r.bytes / 1024 / 1024 / result.seconds),
      bytes_per_row: Math.round(r.bytes / table.rows),
    },
  };
}

/**
 * The same rows read in process through TableStore.query (what TableService.queryLines calls);
 * with `asLines`, each row is also turned into its JSONL line (the service's tableRowJson) and
 * gathered into 64 KiB chunks as the route does, without HTTP.
 */
export async function readTableFromStore(
  store: TraceStore,
  project: string,
  table: BuiltTable,
  run: number,
  asLines: boolean,
): Promise<PhaseResult> {
  const query: TableQuery = {
    project_id: project,
    digest: table.digest,
    row_digests: null,
    sort_by: [],
    limit: null,
    offset: null,
  };
  let rows = 0;
  let bytes = 0;
  let firstRowMs = -1;
  const name = asLines ? 'store + service row JSON, in process (no HTTP)' : 'store TableStore.query, in process';
  const result = await measure(name, table.rows, null, async () => {
    const t0 = performance.now();
    let buffer = '';
    for await (const row of store.tables.query(query)) {
      if (rows === 0) firstRowMs = performance.now() - t0;
      rows += 1;
      if (!asLines) {
        bytes += row.val.length;
        continue;
      }
      buffer += `${tableRowJson(row)}\n`;
      if (buffer.length >= 64 * 1024) {
        bytes += Buffer.byteLength(buffer);
        buffer = '';
      }
    }
    bytes += Buffer.byteLength(buffer);
  });
  if (rows !== table.rows) throw new Error(`${name} returned ${rows} rows, expected ${table.rows}`);
  return { ...result, extra: { run, first_row_ms: round2(firstRowMs), bytes } };
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
