import { completionChunks, foldChunk } from '../../domain/completions/completion-chunks.js';
import { combinedMessages, providerBody, withoutNulls } from '../../domain/completions/completion-request.js';
import { errorText } from '../../domain/error-text.js';
import { isRecord, type JsonRecord } from '../../domain/eval-results/types.js';
import { usageSummary } from '../../domain/server-eval/llm-template.js';
import { nowMicros } from '../../domain/time.js';
import type { CompletionsCreateReq, CompletionsCreateRes } from '../../schemas/completions.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import type { EvalCalls } from '../evaluations/eval-calls.js';
import { ProviderError } from '../evaluations/providers/provider-error.js';
import type { ProviderRegistry, ResolvedModel } from '../evaluations/providers/provider-registry.js';
import type { ObjectReader } from '../evaluations/server-eval/object-reader.js';

/** The op Weave records a completion as (its `COMPLETIONS_CREATE_OP_NAME`). */
export const COMPLETIONS_OP = 'weave.completions_create';

interface Prepared {
  resolved: ResolvedModel;
  body: JsonRecord;
  /** The recorded call's inputs: the request's own fields (its messages, not the prompt's). */
  tracked: JsonRecord;
}

/**
 * Weave's LLM proxy (`/completions/create`, `/completions/create_stream`), what the playground
 * runs: the model is resolved by the evaluation providers (providers/provider-registry.ts, so
 * `heddle/<training model>[:stepN]` answers in process), a `prompt` ref's messages come first, and
 * unless `track_llm_call` is false the run is recorded as a `weave.completions_create` call with
 * its usage. As in Weave, a provider that fails answers 200 with `response.error` (and the
 * recorded call ends with that exception); a prompt ref that does not resolve is a 400 or 404.
 */
export class CompletionService {
  constructor(
    private readonly access: ProjectAccess,
    private readonly calls: EvalCalls,
    private readonly objects: ObjectReader,
    private readonly providers: ProviderRegistry,
  ) {}

  async create(caller: Caller, req: CompletionsCreateReq): Promise<CompletionsCreateRes> {
    await this.access.assertCanWrite(caller, req.project_id);
    const prepared = await this.#prepare(caller, req);
    if ('error' in prepared) return { response: { error: prepared.error } };
    const startedAt = nowMicros();
    let response: JsonRecord;
    let error: string | null = null;
    try {
      const answer = await prepared.resolved.provider.complete(prepared.resolved.model, prepared.body);
      response = isRecord(answer) ? answer : { value: answer };
    } catch (caught) {
      error = errorText(caught);
      response = { error };
    }
    if (req.track_llm_call === false) return { response };
    const id = await this.#start(caller, req.project_id, prepared.tracked, startedAt);
    await this.#end(req.project_id, id, prepared, response, error);
    return { response, weave_call_id: id };
  }

  /**
   * The chunks of a streamed completion: `{_meta: {weave_call_id}}` first when tracked, then the
   * provider's `chat.completion.chunk`s, `{error}` last if it failed. The recorded call ends with
   * the chunks folded into one completion, also when the reader goes away early.
   */
  async *createStream(caller: Caller, req: CompletionsCreateReq): AsyncGenerator<JsonRecord> {
    await this.access.assertCanWrite(caller, req.project_id);
    const prepared = await this.#prepare(caller, req);
    if ('error' in prepared) {
      yield { error: prepared.error };
      return;
    }
    const tracked = req.track_llm_call !== false;
    const id = tracked ? await this.#start(caller, req.project_id, prepared.tracked, nowMicros()) : null;
    if (id !== null) yield { _meta: { weave_call_id: id } };
    let folded: JsonRecord = {};
    let error: string | null = null;
    try {
      const { provider, model } = prepared.resolved;
      const chunks = provider.stream
        ? provider.stream(model, prepared.body)
        : completionChunks(await provider.complete(model, prepared.body));
      for await (const chunk of chunks) {
        folded = foldChunk(folded, chunk);
        yield isRecord(chunk) ? chunk : { value: chunk };
      }
    } catch (caught) {
      error = errorText(caught);
      yield { error };
    } finally {
      if (id !== null) await this.#end(req.project_id, id, prepared, folded, error);
    }
  }

  /** The provider, body and recorded inputs; `{error}` when the model names no usable provider. */
  async #prepare(caller: Caller, req: CompletionsCreateReq): Promise<Prepared | { error: string }> {
    const inputs = req.inputs as JsonRecord;
    const promptMessages = req.inputs.prompt ? await this.#promptMessages(req.project_id, req.inputs.prompt) : [];
    const messages = combinedMessages(promptMessages, req.inputs.messages ?? [], req.inputs.template_vars ?? null);
    let resolved: ResolvedModel;
    try {
      resolved = await this.providers.resolve(caller, req.project_id, req.inputs.model);
    } catch (error) {
      if (error instanceof ProviderError) return { error: error.message };
      throw error;
    }
    const body = providerBody(inputs, messages);
    if (body.max_tokens === undefined && body.max_completion_tokens === undefined && resolved.maxTokens !== null)
      body.max_tokens = resolved.maxTokens;
    return { resolved, body, tracked: { ...withoutNulls(inputs), messages: req.inputs.messages ?? [] } };
  }

  /** A `MessagesPrompt`'s messages; a `StringPrompt`'s content as one user message. */
  async #promptMessages(projectId: string, ref: string): Promise<unknown[]> {
    const prompt = await this.objects.byRef(projectId, ref, 'prompt');
    if (Array.isArray(prompt.val.messages)) return prompt.val.messages;
    if (typeof prompt.val.content === 'string') return [{ role: 'user', content: prompt.val.content }];
    return [];
  }

  async #start(caller: Caller, projectId: string, inputs: JsonRecord, startedAt: number): Promise<string> {
    const opName = await this.calls.opRef(caller, projectId, COMPLETIONS_OP);
    return this.calls.start(caller, projectId, { opName, parentId: null, inputs, attributes: {} }, startedAt);
  }

  async #end(
    projectId: string,
    id: string,
    prepared: Prepared,
    output: JsonRecord,
    error: string | null,
  ): Promise<void> {
    const model = typeof output.model === 'string' ? output.model : String(prepared.tracked.model);
    await this.calls.end(projectId, id, output, usageSummary(model, output), error);
  }
}
