import { uuidv7 } from '../domain/ids.js';
import { formatMicros, nowMicros } from '../domain/time.js';
import type { Caller } from './auth-service.js';
import type { CallWriteService } from './call-service.js';
import type { FileService, UploadPart } from './file-service.js';
import type { ProjectAccess } from './project-access.js';

/** `/image/create` body (docs/spec/objects.md §6.4); not strict, unknown keys are ignored. */
export interface ImageCreateReq {
  project_id: string;
  inputs: { model: string; prompt: string; n?: number | null; [key: string]: unknown };
  wb_user_id?: string | null;
  track_llm_call?: boolean | null;
}

export interface ImageCreateRes {
  response: Record<string, unknown>;
  weave_call_id: string | null;
}

export interface ImageProviderConfig {
  apiKey?: string;
  /** API root without trailing slash; images come from `<base>/images/generations`. */
  baseUrl: string;
}

/** How long the provider may take for one generation (image models are slow). */
const PROVIDER_TIMEOUT_MS = 120_000;

/** The op name of the recorded call (§6.4). */
export const IMAGE_OP_NAME = 'weave.image_generation_create';

/** A provider or storage failure that §6.4 reports inside a 200 response. */
class ImageGenerationError extends Error {}

/** `usage` normalised to carry prompt/completion/total tokens (§6.4); image models report input/output tokens. */
export function normaliseUsage(usage: Record<string, unknown>): Record<string, unknown> {
  const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const prompt = num(usage.prompt_tokens ?? usage.input_tokens);
  const completion = num(usage.completion_tokens ?? usage.output_tokens);
  return {
    ...usage,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(usage.total_tokens) || prompt + completion,
  };
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

/** Image generation through an OpenAI-compatible provider (docs/spec/objects.md §6.4). */
export class ImageService {
  constructor(
    private readonly provider: ImageProviderConfig,
    private readonly access: ProjectAccess,
    private readonly files: FileService,
    private readonly calls: CallWriteService,
  ) {}

  async create(caller: Caller, req: ImageCreateReq): Promise<ImageCreateRes> {
    await this.access.assertCanWrite(caller, req.project_id);
    if (!this.provider.apiKey) return { response: { error: 'No OpenAI API key found' }, weave_call_id: null };
    const startedAt = nowMicros();
    let response: Record<string, unknown>;
    try {
      response = await this.#generate(caller, req);
    } catch (error) {
      if (!(error instanceof ImageGenerationError)) throw error;
      return { response: { error: error.message }, weave_call_id: null };
    }
    if (req.track_llm_call === false) return { response, weave_call_id: null };
    const callId = await this.#record(caller, req, response, startedAt);
    return { response, weave_call_id: callId };
  }

  /** Asks the provider, stores every image as a Content object's files, returns the rewritten payload. */
  async #generate(caller: Caller, req: ImageCreateReq): Promise<Record<string, unknown>> {
    const n = req.inputs.model === 'dall-e-3' ? 1 : (req.inputs.n ?? 1);
    const payload = await this.#post({ ...req.inputs, n });
    const data = Array.isArray(payload.data) ? (payload.data as Array<Record<string, unknown>>) : [];
    const stored = [];
    for (const [i, item] of data.entries()) stored.push(await this.#storeImage(caller, req.project_id, item, i));
    const response: Record<string, unknown> = { ...payload, model: req.inputs.model, data: stored };
    if (payload.usage !== null && typeof payload.usage === 'object')
      response.usage = normaliseUsage(payload.usage as Record<string, unknown>);
    return response;
  }

  async #post(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(`${this.provider.baseUrl}/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.provider.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ImageGenerationError(`Image generation failed: ${(error as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ImageGenerationError(`Image generation failed: provider answered ${res.status} with a non-JSON body`);
    }
    if (!res.ok || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      const message = (parsed as { error?: { message?: unknown } } | null)?.error?.message;
      throw new ImageGenerationError(
        `Image generation failed (${res.status}): ${typeof message === 'string' ? message : text.slice(0, 500)}`,
      );
    }
    return parsed as Record<string, unknown>;
  }

  /** One `data[i]` (url or b64_json) → the Content object value of §6.4; other keys of the item are kept. */
  async #storeImage(
    caller: Caller,
    projectId: string,
    item: Record<string, unknown>,
    index: number,
  ): Promise<Record<string, unknown>> {
    let bytes: Buffer;
    let mimetype = 'image/png';
    if (typeof item.b64_json === 'string') {
      bytes = Buffer.from(item.b64_json, 'base64');
    } else if (typeof item.url === 'string') {
      const res = await fetch(item.url, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) }).catch((error: Error) => {
        throw new ImageGenerationError(`Image download failed: ${error.message}`);
      });
      if (!res.ok) throw new ImageGenerationError(`Image download failed with status ${res.status}`);
      bytes = Buffer.from(await res.arrayBuffer());
      mimetype = res.headers.get('content-type')?.split(';')[0]!.trim() || mimetype;
    } else {
      return item;
    }
    const extension = mimetype.startsWith('image/')
      ? `.${mimetype.slice(6).replace('jpeg', 'jpg').replace(/\+.*$/, '')}`
      : '.bin';
    const filename = `image_${index}${extension}`;
    // Our choice: the metadata describes the bytes the way a Content object's metadata does
    const metadata = {
      mimetype,
      extension,
      filename,
      size: bytes.length,
      content_type: 'bytes',
      input_type: 'bytes',
      path: null,
      encoding: 'utf-8',
      metadata: null,
    };
    const content = await this.#storeFile(caller, projectId, 'content', bytes);
    const meta = await this.#storeFile(
      caller,
      projectId,
      'metadata.json',
      Buffer.from(JSON.stringify(metadata), 'utf8'),
    );
    const rest = { ...item };
    delete rest.url;
    delete rest.b64_json;
    return {
      ...rest,
      _type: 'CustomWeaveType',
      weave_type: { type: 'weave.type_wrappers.Content.content.Content' },
      files: { content, 'metadata.json': meta },
    };
  }

  async #storeFile(caller: Caller, projectId: string, name: string, bytes: Buffer): Promise<string> {
    const parts: UploadPart[] = [
      { kind: 'field', name: 'project_id', value: projectId },
      { kind: 'file', name: 'file', filename: name, bytes: once(bytes) },
    ];
    async function* form(): AsyncGenerator<UploadPart> {
      yield* parts;
    }
    return (await this.files.fileCreate(caller, form())).digest;
  }

  /** §6.4: one finished call with the request inputs, the response as output and usage per model. */
  async #record(
    caller: Caller,
    req: ImageCreateReq,
    response: Record<string, unknown>,
    startedAt: number,
  ): Promise<string> {
    const id = uuidv7();
    // the call summary keeps only the numeric counters of the usage
    const raw = (response.usage as Record<string, unknown> | undefined) ?? {};
    const usage: Record<string, number> = { requests: 1 };
    for (const [key, value] of Object.entries(raw))
      if (typeof value === 'number' && Number.isFinite(value)) usage[key] = value;
    await this.calls.callStart(caller, {
      start: {
        project_id: req.project_id,
        id,
        trace_id: uuidv7(),
        op_name: IMAGE_OP_NAME,
        started_at: formatMicros(startedAt),
        attributes: {},
        inputs: req.inputs,
      },
    });
    await this.calls.callEnd(caller, {
      end: {
        project_id: req.project_id,
        id,
        ended_at: formatMicros(nowMicros()),
        output: response,
        summary: { usage: { [req.inputs.model]: usage } },
      },
    });
    return id;
  }
}
