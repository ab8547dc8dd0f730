import { randomBytes, randomUUID } from 'node:crypto';
import { basicAuthHeader } from '../helpers/server-process.js';

/**
 * Writers for the SIGKILL test (sigkill-ingest.test.ts): each sends one kind of write in a loop to a
 * running `heddle serve` and keeps a ledger of what was acknowledged (a 2xx answer) and what was
 * sent without an answer, until the process dies under it.
 */

export const PROJECT = 'acme/demo';
export const OTEL_PROJECT = 'acme/otel';

export interface Sent<T> {
  item: T;
  /** The server answered 2xx. */
  acked: boolean;
  /** What the answer carried (a digest). */
  answer?: string;
  /** The request as sent, for a client's retry (`send`). */
  request?: Request;
}

export interface Ledger {
  batches: Array<Sent<{ ids: string[] }>>;
  objects: Array<Sent<{ objectId: string; val: Record<string, unknown> }>>;
  files: Array<Sent<{ name: string; content: string }>>;
  spans: Array<Sent<{ traceId: string; spanId: string }>>;
  logs: Array<Sent<{ split: string }>>;
  /** Answers that were neither 2xx nor a dropped connection: must stay empty. */
  unexpected: string[];
}

export function emptyLedger(): Ledger {
  return { batches: [], objects: [], files: [], spans: [], logs: [], unexpected: [] };
}

const T0 = '2025-01-01T10:00:00Z';

export interface Target {
  url: string;
  key: string;
  /** The model whose training logs are written. */
  modelId: string;
}

export type Request = { url: string; contentType: string; body: string };

/** Sends one request; the answer text on 2xx, null when the connection failed (the process died). */
export async function send(target: Target, req: Request, ledger: Ledger): Promise<string | null | undefined> {
  let res: Response;
  try {
    res = await fetch(`${target.url}${req.url}`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(target.key), 'content-type': req.contentType },
      body: req.body,
    });
  } catch {
    return null;
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    return null; // died while answering: not acknowledged
  }
  if (res.status >= 200 && res.status < 300) return text;
  ledger.unexpected.push(`${req.url} → ${res.status} ${text.slice(0, 200)}`);
  return undefined;
}

function callBatch(n: number): { ids: string[]; request: Request } {
  const ids = Array.from({ length: 5 }, (_, i) => `kill-${n}-${i}`);
  const batch = ids.flatMap((id) => [
    {
      mode: 'start',
      req: {
        start: {
          project_id: PROJECT,
          id,
          trace_id: `t-${n}`,
          op_name: 'op',
          started_at: T0,
          attributes: {},
          inputs: { n },
        },
      },
    },
    { mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: T0, output: { n }, summary: {} } } },
  ]);
  return {
    ids,
    request: { url: '/call/upsert_batch', contentType: 'application/json', body: JSON.stringify({ batch }) },
  };
}

function multipart(name: string, content: string): Request {
  const boundary = `kill-${randomBytes(6).toString('hex')}`;
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="project_id"\r\n\r\n${PROJECT}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
    `Content-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return { url: '/file/create', contentType: `multipart/form-data; boundary=${boundary}`, body };
}

function otlpExport(traceId: string, spanId: string): Request {
  const [entity, project] = OTEL_PROJECT.split('/');
  const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [attr('wandb.entity', entity!), attr('wandb.project', project!)] },
        scopeSpans: [
          {
            scope: { name: 'kill' },
            spans: [
              {
                traceId,
                spanId,
                name: 'kill span',
                kind: 1,
                startTimeUnixNano: '1735725600000000000',
                endTimeUnixNano: '1735725601000000000',
                attributes: [attr('input.value', spanId)],
              },
            ],
          },
        ],
      },
    ],
  };
  return { url: '/otel/v1/traces', contentType: 'application/json', body: JSON.stringify(body) };
}

function trajectoryLog(split: string): Request {
  const groups = [
    {
      trajectories: [
        { messages_and_choices: [{ role: 'user', content: split }], reward: 1, metrics: { win: true } },
        { messages_and_choices: [{ role: 'user', content: split }], reward: 0 },
      ],
    },
  ];
  return { url: '', contentType: 'application/json', body: JSON.stringify({ split, trajectory_groups: groups }) };
}

let counter = 0;

/** One write of each kind, recorded in `ledger`; false once the server is gone. */
const WRITES: Record<keyof Omit<Ledger, 'unexpected'>, (t: Target, ledger: Ledger) => Promise<boolean>> = {
  batches: async (t, ledger) => {
    const { ids, request } = callBatch((counter += 1));
    const entry: Sent<{ ids: string[] }> = { item: { ids }, acked: false, request };
    ledger.batches.push(entry);
    const text = await send(t, request, ledger);
    entry.acked = typeof text === 'string';
    return text !== null;
  },
  objects: async (t, ledger) => {
    const n = (counter += 1);
    const val = { n, text: randomBytes(64).toString('hex'), nested: { list: [n, 'x', null] } };
    const entry: Sent<{ objectId: string; val: Record<string, unknown> }> = {
      item: { objectId: `kill-obj-${n}`, val },
      acked: false,
    };
    ledger.objects.push(entry);
    const body = JSON.stringify({ obj: { project_id: PROJECT, object_id: entry.item.objectId, val } });
    entry.request = { url: '/obj/create', contentType: 'application/json', body };
    const text = await send(t, entry.request, ledger);
    if (typeof text === 'string')
      Object.assign(entry, { acked: true, answer: (JSON.parse(text) as { digest: string }).digest });
    return text !== null;
  },
  files: async (t, ledger) => {
    const n = (counter += 1);
    const entry: Sent<{ name: string; content: string }> = {
      item: { name: `kill-${n}.bin`, content: `${n}:${randomBytes(2048).toString('base64')}` },
      acked: false,
    };
    ledger.files.push(entry);
    entry.request = multipart(entry.item.name, entry.item.content);
    const text = await send(t, entry.request, ledger);
    if (typeof text === 'string')
      Object.assign(entry, { acked: true, answer: (JSON.parse(text) as { digest: string }).digest });
    return text !== null;
  },
  spans: async (t, ledger) => {
    const entry: Sent<{ traceId: string; spanId: string }> = {
      item: { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') },
      acked: false,
    };
    ledger.spans.push(entry);
    entry.request = otlpExport(entry.item.traceId, entry.item.spanId);
    const text = await send(t, entry.request, ledger);
    entry.acked = typeof text === 'string';
    return text !== null;
  },
  logs: async (t, ledger) => {
    const entry: Sent<{ split: string }> = { item: { split: `kill-${(counter += 1)}` }, acked: false };
    ledger.logs.push(entry);
    const request = { ...trajectoryLog(entry.item.split), url: `/v1/preview/models/${t.modelId}/log` };
    const text = await send(t, request, ledger);
    entry.acked = typeof text === 'string';
    return text !== null;
  },
};

export const KINDS = Object.keys(WRITES) as Array<keyof typeof WRITES>;

/**
 * Starts `perKind` concurrent writers of every kind; they run until the server stops answering.
 * Resolves `done` when all have stopped.
 */
export function startWriters(target: Target, ledger: Ledger, perKind = 2): { done: Promise<void> } {
  const loops = KINDS.flatMap((kind) =>
    Array.from({ length: perKind }, async () => {
      while (await WRITES[kind](target, ledger));
    }),
  );
  return { done: Promise.all(loops).then(() => undefined) };
}

export const newModelId = (): string => randomUUID();
