/**
 * Deterministic seed data for the UI tests and screenshots, written through the public HTTP API:
 * roots with children, a chat call with usage and a price, an error, a running call, an image, a
 * call full of hostile HTML, threads with turns, feedback and one large trace.
 */
import { deflateSync } from 'node:zlib';
import { seedEvaluations, type SeededEvals } from './seed-evals.js';

export const PROJECT = 'acme/demo';
const T0 = Date.parse('2026-11-20T09:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const id = (n: number, prefix = '0194f3a2-0000-7000-8000') => `${prefix}-${String(n).padStart(12, '0')}`;

export const HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script><b>bold?</b>';

export interface Seeded {
  chatId: string;
  errorId: string;
  imageId: string;
  hostileId: string;
  bigTraceId: string;
  /** The first call, by start time, under the big trace's first child. */
  bigTraceChildId: string;
  bigValueId: string;
  opDigest: string;
  rootCount: number;
  evals: SeededEvals;
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A small valid PNG: a 32×32 gradient. */
export function makePng(): Buffer {
  const w = 32;
  const raw = Buffer.alloc((w * 3 + 1) * w);
  for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) raw.set([x * 8, y * 8, 160], y * (w * 3 + 1) + 1 + x * 3);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(w, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function seed(
  base: string,
  key: string,
  opts: { roots?: number; bigTrace?: number } = {},
): Promise<Seeded> {
  const auth = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<Record<string, unknown>>;
  };
  const upload = async (name: string, bytes: Buffer) => {
    const form = new FormData();
    form.set('project_id', PROJECT);
    form.set('file', new Blob([new Uint8Array(bytes)]), name);
    const r = await fetch(base + '/file/create', { method: 'POST', headers: { authorization: auth }, body: form });
    if (!r.ok) throw new Error(`file/create: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { digest: string }).digest;
  };

  const code =
    'import weave\n\n@weave.op\ndef answer(question: str) -> str:\n    """Answers a question with a chat model."""\n    return client.chat(question)\n';
  const codeDigest = await upload('obj.py', Buffer.from(code));
  const op = await post('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'answer',
      val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': codeDigest } },
    },
  });
  const opDigest = op.digest as string;
  const opRef = (name: string) =>
    name === 'answer' ? `weave:///${PROJECT}/op/answer:${opDigest}` : `weave:///${PROJECT}/op/${name}:abc123`;
  await post('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'support-model',
      val: { name: 'support-model', model: 'gpt-4o-mini', temperature: 0.2, system_prompt: 'Be brief.' },
    },
  });
  // a second version, so the object page has a history and a diff
  await post('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'support-model',
      val: {
        name: 'support-model',
        model: 'gpt-4o-mini',
        temperature: 0.4,
        system_prompt: 'Be brief.',
        max_tokens: 512,
      },
    },
  });
  await post('/cost/create', {
    project_id: PROJECT,
    costs: {
      'gpt-4o-mini': {
        prompt_token_cost: 0.00000015,
        completion_token_cost: 0.0000006,
        effective_date: '2020-01-01T00:00:00Z',
      },
    },
  });
  const png = await upload('image.png', makePng());

  const batch: unknown[] = [];
  const call = (c: {
    id: string;
    op: string;
    trace: string;
    parent?: string | null;
    start: number;
    end?: number | null;
    inputs?: unknown;
    output?: unknown;
    exception?: string;
    summary?: unknown;
    display?: string;
    thread?: string;
    turn?: string;
    attributes?: unknown;
  }) => {
    batch.push({
      mode: 'start',
      req: {
        start: {
          project_id: PROJECT,
          id: c.id,
          op_name: opRef(c.op),
          trace_id: c.trace,
          parent_id: c.parent ?? null,
          started_at: iso(c.start),
          inputs: c.inputs ?? {},
          attributes: c.attributes ?? {},
          display_name: c.display,
          thread_id: c.thread,
          turn_id: c.turn,
        },
      },
    });
    if (c.end !== null)
      batch.push({
        mode: 'end',
        req: {
          end: {
            project_id: PROJECT,
            id: c.id,
            ended_at: iso(c.end ?? c.start + 800),
            output: c.output ?? null,
            exception: c.exception,
            summary: c.summary ?? {},
          },
        },
      });
  };
  const flush = async () => {
    while (batch.length) await post('/call/upsert_batch', { batch: batch.splice(0, 2000) });
  };

  const roots = opts.roots ?? 260;
  const ops = ['answer', 'retrieve', 'rerank', 'summarize', 'classify'];
  for (let i = 0; i < roots; i++) {
    const rid = id(i + 1);
    const start = T0 + i * 60_000;
    call({
      id: rid,
      op: ops[i % ops.length]!,
      trace: rid,
      start,
      end: start + 400 + (i % 17) * 130,
      inputs: { question: `Question number ${i}`, user_id: `user-${i % 7}` },
      output: `Answer ${i}`,
      exception: i % 23 === 5 ? 'TimeoutError: upstream took too long' : undefined,
      summary: {
        usage: {
          'gpt-4o-mini': {
            requests: 1,
            prompt_tokens: 100 + i,
            completion_tokens: 20 + (i % 9),
            total_tokens: 120 + i + (i % 9),
          },
        },
      },
    });
    call({
      id: id(i + 1, '0194f3a2-0001-7000-8000'),
      op: 'retrieve',
      trace: rid,
      parent: rid,
      start: start + 10,
      end: start + 200,
      inputs: { query: `q${i}` },
      output: [`doc-${i}`],
    });
  }
  const tLatest = T0 + roots * 60_000;
  const chatId = id(900001);
  call({
    id: chatId,
    op: 'answer',
    trace: chatId,
    start: tLatest + 1000,
    end: tLatest + 2600,
    display: 'Support chat',
    inputs: {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a helpful support agent.' },
        { role: 'user', content: 'My order #123 has not arrived. What can I do?' },
      ],
    },
    output: {
      id: 'chatcmpl-1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              'Sorry about that! I checked order #123: it ships tomorrow.\nYou will get a tracking link by email.',
          },
          finish_reason: 'stop',
        },
      ],
    },
    summary: {
      usage: { 'gpt-4o-mini': { requests: 1, prompt_tokens: 1200, completion_tokens: 340, total_tokens: 1540 } },
    },
    attributes: { env: 'prod', region: 'eu-west-1' },
  });
  call({
    id: id(900002),
    op: 'retrieve',
    trace: chatId,
    parent: chatId,
    start: tLatest + 1100,
    end: tLatest + 1500,
    inputs: { query: 'order 123 status' },
    output: [{ doc: 'order-123', score: 0.92 }],
  });
  call({
    id: id(900003),
    op: 'rerank',
    trace: chatId,
    parent: id(900002),
    start: tLatest + 1300,
    end: tLatest + 1450,
    inputs: { k: 3 },
    output: [0, 2, 1],
  });
  const errorId = id(900010);
  call({
    id: errorId,
    op: 'classify',
    trace: errorId,
    start: tLatest + 3000,
    end: tLatest + 3100,
    inputs: { text: 'refund please' },
    exception: 'ValueError: label "refund" is not in the allowed set',
  });
  call({
    id: id(900011),
    op: 'summarize',
    trace: id(900011),
    start: tLatest + 4000,
    end: null,
    inputs: { doc: 'still running' },
  });
  const imageId = id(900020);
  call({
    id: imageId,
    op: 'answer',
    trace: imageId,
    start: tLatest + 5000,
    end: tLatest + 5400,
    inputs: { prompt: 'Draw a gradient' },
    output: {
      image: { _type: 'CustomWeaveType', weave_type: { type: 'PIL.Image.Image' }, files: { 'image.png': png } },
    },
  });
  const hostileId = id(900030);
  call({
    id: hostileId,
    op: 'answer',
    trace: hostileId,
    start: tLatest + 6000,
    end: tLatest + 6100,
    display: HOSTILE,
    inputs: { html: HOSTILE, messages: [{ role: 'user', content: HOSTILE }] },
    output: { choices: [{ message: { role: 'assistant', content: HOSTILE } }] },
    exception: HOSTILE,
    attributes: { [HOSTILE]: HOSTILE },
  });
  for (let t = 0; t < 3; t++)
    for (let k = 0; k < 3; k++) {
      const tid = id(910000 + t * 10 + k);
      call({
        id: tid,
        op: 'answer',
        trace: tid,
        start: tLatest + 7000 + t * 10_000 + k * 2000,
        end: tLatest + 7900 + t * 10_000 + k * 2000,
        thread: `thread-${t + 1}`,
        turn: tid,
        inputs: {
          messages: [{ role: 'user', content: `Thread ${t + 1}, turn ${k + 1}: how do I reset my password?` }],
        },
        output: {
          choices: [
            { message: { role: 'assistant', content: `Reply ${k + 1}: open Settings → Security and choose Reset.` } },
          ],
        },
      });
    }
  const bigValueId = id(900040);
  call({
    id: bigValueId,
    op: 'summarize',
    trace: bigValueId,
    start: tLatest + 6500,
    end: tLatest + 6600,
    inputs: { doc: 'big' },
    output: { rows: Array.from({ length: 12_000 }, (_, i) => ({ i, text: 'lorem ipsum dolor sit amet '.repeat(3) })) },
  });
  await flush();

  const bigTraceId = id(990000);
  const big = opts.bigTrace ?? 2000;
  const bStart = tLatest + 60_000;
  call({
    id: bigTraceId,
    op: 'answer',
    trace: bigTraceId,
    start: bStart,
    end: bStart + big * 3 + 500,
    display: 'Big batch run',
    inputs: { items: big },
  });
  for (let i = 1; i < big; i++) {
    const parent = i < 20 ? bigTraceId : id(990000 + 1 + ((i - 20) % 19));
    call({
      id: id(990000 + i),
      op: ops[i % ops.length]!,
      trace: bigTraceId,
      parent,
      start: bStart + i * 3,
      end: bStart + i * 3 + 40 + (i % 11) * 5,
      inputs: { i },
      output: i,
    });
  }
  await flush();

  await post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/${chatId}`,
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍' },
  });
  await post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/${chatId}`,
    feedback_type: 'wandb.note.1',
    payload: { note: 'Good answer, but mention the refund policy.' },
  });
  const evals = await seedEvaluations(post, PROJECT, T0 - 3_600_000);
  return {
    chatId,
    errorId,
    imageId,
    hostileId,
    bigTraceId,
    bigTraceChildId: id(990020),
    bigValueId,
    opDigest,
    rootCount: roots,
    evals,
  };
}
