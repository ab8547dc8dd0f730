import type { ProviderConfig } from '../../../config/config.js';
import { SECRET_ENV_PREFIX } from '../../../config/config.js';
import { isRecord } from '../../../domain/eval-results/types.js';
import type { Caller } from '../../auth-service.js';
import type { InferenceService } from '../../training/inference-service.js';
import { classOf, isRefString, type ObjectReader } from '../server-eval/object-reader.js';
import { OpenAiCompatibleProvider, type ChatProvider } from './openai-compatible.js';
import { ProviderError } from './provider-error.js';

/**
 * Which provider answers an `llm_model_id` (docs/spec/evaluations.md §6.3 "Providers", our choice):
 *
 * - a ref to a `ProviderModel` → its `Provider` object's `base_url`, `extra_headers` and the secret
 *   its `api_key_name` names;
 * - `heddle/<model>` → Heddle's own `/v1/chat/completions` service in process (`<model>` is a
 *   training model of the project, optionally `:stepN`, or a full `wandb-artifact:///…` name);
 * - `openai/<model>` → the OpenAI-compatible provider configured by `HEDDLE_PROVIDER_OPENAI_*`;
 * - `<provider object id>/<model>` → the project's latest `Provider` object of that id;
 * - a bare model name → the default provider (`HEDDLE_PROVIDER_DEFAULT`).
 *
 * A secret is read from the server's environment as `HEDDLE_SECRET_<api_key_name>`; its value is
 * only ever put in a request header, and provider error texts are redacted (provider-error.ts).
 */

export interface ResolvedModel {
  provider: ChatProvider;
  /** The model name sent to the provider. */
  model: string;
  /** `ProviderModel.max_tokens`, applied when the params name none. */
  maxTokens: number | null;
}

const HEDDLE = 'heddle';
const OPENAI = 'openai';

/** The in-process provider: the training inference service, with the evaluation's caller. */
class HeddleProvider implements ChatProvider {
  constructor(
    private readonly inference: InferenceService,
    private readonly caller: Caller,
  ) {}

  async complete(model: string, body: Record<string, unknown>): Promise<unknown> {
    try {
      return await this.inference.complete(this.caller, { ...body, messages: body.messages as unknown[], model });
    } catch (error) {
      const status =
        typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : null;
      throw new ProviderError(`Provider heddle failed for ${model}: ${(error as Error).message}`, status);
    }
  }
}

export class ProviderRegistry {
  constructor(
    private readonly config: ProviderConfig,
    private readonly objects: ObjectReader,
    private readonly inference: InferenceService | null,
    private readonly fetchImpl?: typeof fetch,
  ) {}

  /** Throws ProviderError (a row error) when the provider cannot be used. */
  async resolve(caller: Caller, projectId: string, llmModelId: unknown): Promise<ResolvedModel> {
    if (isRefString(llmModelId)) return this.#providerModel(projectId, llmModelId);
    let id = typeof llmModelId === 'string' ? llmModelId.trim() : '';
    if (id === '') id = this.config.defaultModel ?? '';
    if (id === '')
      throw new ProviderError('The model names no llm_model_id and HEDDLE_PROVIDER_DEFAULT_MODEL is not set');
    const slash = id.indexOf('/');
    const [providerName, model] =
      slash > 0 ? [id.slice(0, slash), id.slice(slash + 1)] : [this.config.defaultProvider, id];
    if (providerName === HEDDLE)
      return { provider: this.#heddle(caller), model: heddleModelName(projectId, model), maxTokens: null };
    if (providerName === OPENAI) return { provider: this.#openai(), model, maxTokens: null };
    const object = await this.objects.latest(projectId, providerName);
    if (object === null || classOf(object.val) !== 'Provider')
      throw new ProviderError(`Unknown provider "${providerName}" (no Provider object of that id in ${projectId})`);
    return { provider: this.#custom(providerName, object.val), model, maxTokens: null };
  }

  #heddle(caller: Caller): ChatProvider {
    if (!this.inference) throw new ProviderError('The heddle provider is not available on this server');
    return new HeddleProvider(this.inference, caller);
  }

  #openai(): ChatProvider {
    const key = this.config.openaiApiKey;
    if (!key) throw new ProviderError('Provider openai has no API key: set HEDDLE_PROVIDER_OPENAI_API_KEY');
    return this.#client(OPENAI, this.config.openaiBaseUrl, key, {});
  }

  async #providerModel(projectId: string, ref: string): Promise<ResolvedModel> {
    let model;
    let provider;
    try {
      model = await this.objects.byRef(projectId, ref, 'Provider model');
      if (classOf(model.val) !== 'ProviderModel') throw new ProviderError(`${ref} is not a ProviderModel`);
      provider = await this.objects.byRef(projectId, model.val.provider, 'Provider');
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      throw new ProviderError((error as Error).message);
    }
    if (classOf(provider.val) !== 'Provider')
      throw new ProviderError(`${String(model.val.provider)} is not a Provider`);
    const name = typeof model.val.name === 'string' && model.val.name !== '' ? model.val.name : model.name;
    const maxTokens = typeof model.val.max_tokens === 'number' ? model.val.max_tokens : null;
    return { provider: this.#custom(provider.name, provider.val), model: name, maxTokens };
  }

  #custom(name: string, val: Record<string, unknown>): ChatProvider {
    if (val.return_type !== undefined && val.return_type !== null && val.return_type !== 'openai')
      throw new ProviderError(`Provider ${name}: return_type ${JSON.stringify(val.return_type)} is not supported`);
    if (typeof val.base_url !== 'string' || !/^https?:\/\//.test(val.base_url))
      throw new ProviderError(`Provider ${name} has no http(s) base_url`);
    const keyName = typeof val.api_key_name === 'string' ? val.api_key_name : '';
    const key = keyName === '' ? null : (this.config.secrets[keyName] ?? null);
    if (keyName !== '' && key === null)
      throw new ProviderError(
        `Provider ${name}: secret ${keyName} is not set (server variable ${SECRET_ENV_PREFIX}${keyName})`,
      );
    const headers: Record<string, string> = {};
    if (isRecord(val.extra_headers))
      for (const [k, v] of Object.entries(val.extra_headers)) if (typeof v === 'string') headers[k] = v;
    return this.#client(name, val.base_url.replace(/\/+$/, ''), key, headers);
  }

  #client(name: string, baseUrl: string, apiKey: string | null, extraHeaders: Record<string, string>): ChatProvider {
    return new OpenAiCompatibleProvider({
      name,
      baseUrl,
      apiKey,
      extraHeaders,
      timeoutMs: this.config.timeoutMs,
      maxRetries: this.config.maxRetries,
      fetch: this.fetchImpl,
    });
  }
}

/** `heddle/<name>[:stepN]` in the evaluation's project, or a full inference name passed through. */
export function heddleModelName(projectId: string, model: string): string {
  return model.startsWith('wandb-artifact:') ? model : `wandb-artifact:///${projectId}/${model}`;
}
