import { derivedCallId } from '../../../domain/server-eval/call-ids.js';
import { ChildCallError, exceptionText, Rollup } from '../../../domain/server-eval/rollup.js';
import { isRecord, type JsonRecord } from '../../../domain/eval-results/types.js';
import {
  chatRequestBody,
  fillMessages,
  fillTemplate,
  parseCompletion,
  responseFormatOf,
  userInputMessages,
  type ChatMessage,
} from '../../../domain/server-eval/llm-template.js';
import type { Caller } from '../../auth-service.js';
import type { EvalCalls } from '../eval-calls.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { isRefString, type ObjectReader } from './object-reader.js';
import { MODEL_CLASS, SCORER_CLASS, type ModelSpec, type ScorerSpec } from './plan.js';

/**
 * Runs `LLMStructuredCompletionModel.predict` and `LLMAsAJudgeScorer.score` (docs/spec/evaluations.md
 * §6.3) and records them as the SDK would: the op call, and under it the completion as a
 * `weave.completions_create` call with its usage. Failures end the call with an exception and are
 * returned, never thrown, so the run goes on.
 */

export interface ExecScope {
  caller: Caller;
  projectId: string;
  traceId: string;
  /** `attributes` of every call written (`_weave_eval_meta`). */
  attributes: JsonRecord;
}

export interface Outcome {
  output: unknown;
  error: string | null;
  rollup: Rollup;
  /** Seconds from the call's start to its end. */
  latency: number;
}

export class LlmExec {
  constructor(
    private readonly calls: EvalCalls,
    private readonly providers: ProviderRegistry,
    private readonly objects: ObjectReader,
  ) {}

  async #opRef(scope: ExecScope, name: string): Promise<string> {
    return this.calls.opRef(scope.caller, scope.projectId, name);
  }

  /** Records `call`, runs `body`, ends the call with its result or exception. */
  async #record(
    scope: ExecScope,
    call: { id: string; parentId: string | null; opName: string; inputs: JsonRecord },
    body: (rollup: Rollup) => Promise<unknown>,
  ): Promise<Outcome> {
    const started = Date.now();
    await this.calls.start(scope.caller, scope.projectId, {
      ...call,
      traceId: scope.traceId,
      attributes: scope.attributes,
    });
    const rollup = new Rollup();
    let output: unknown = null;
    let error: string | null = null;
    try {
      output = await body(rollup);
    } catch (caught) {
      error = exceptionText(caught);
    }
    await this.calls.end(scope.projectId, call.id, error === null ? output : null, rollup.close(error !== null), error);
    return { output: error === null ? output : null, error, rollup, latency: (Date.now() - started) / 1000 };
  }

  async #messagesTemplate(scope: ExecScope, params: JsonRecord): Promise<unknown[]> {
    if (isRefString(params.prompt)) {
      const prompt = await this.objects.byRef(scope.projectId, params.prompt, 'prompt');
      if (Array.isArray(prompt.val.messages)) return prompt.val.messages;
    }
    return Array.isArray(params.messages_template) ? params.messages_template : [];
  }

  /** `<model>.predict(**args)`: template vars, `user_input`, `config` overrides (§6.3 model predict). */
  async predict(
    scope: ExecScope,
    id: string,
    parentId: string | null,
    model: ModelSpec,
    args: JsonRecord,
  ): Promise<Outcome> {
    const opName = await this.#opRef(scope, `${MODEL_CLASS}.predict`);
    return this.#record(scope, { id, parentId, opName, inputs: { self: model.self, ...args } }, async (rollup) => {
      const { user_input: userInput, config, ...vars } = args;
      const defaults = isRecord(model.val.default_params) ? model.val.default_params : {};
      const params: JsonRecord = { ...defaults, ...(isRecord(config) ? config : {}) };
      const messages: ChatMessage[] = [
        ...fillMessages(await this.#messagesTemplate(scope, params), vars),
        ...userInputMessages(userInput),
      ];
      const resolved = await this.providers.resolve(scope.caller, scope.projectId, model.val.llm_model_id);
      const body = chatRequestBody(messages, params);
      if (body.max_tokens === undefined && resolved.maxTokens !== null) body.max_tokens = resolved.maxTokens;
      const completion = await this.#completion(
        scope,
        derivedCallId(id, 'completion'),
        id,
        resolved.model,
        body,
        (signal) => resolved.provider.complete(resolved.model, body, signal),
      );
      rollup.add(completion.rollup);
      if (completion.error !== null) throw new ChildCallError(completion.error);
      return parseCompletion(completion.output, responseFormatOf(params.response_format));
    });
  }

  async #completion(
    scope: ExecScope,
    id: string,
    parentId: string,
    model: string,
    body: JsonRecord,
    send: (signal?: AbortSignal) => Promise<unknown>,
  ): Promise<Outcome> {
    const opName = await this.#opRef(scope, 'weave.completions_create');
    return this.#record(scope, { id, parentId, opName, inputs: { model, ...body } }, async (rollup) => {
      const response = await send();
      const usageModel = isRecord(response) && typeof response.model === 'string' ? response.model : model;
      if (isRecord(response))
        rollup.addUsage(usageModel, { requests: 1, ...(isRecord(response.usage) ? response.usage : {}) });
      return response;
    });
  }

  /** `LLMAsAJudgeScorer.score(output=…, **row)`: the scoring prompt as one user message to the judge model. */
  async score(
    scope: ExecScope,
    id: string,
    parentId: string | null,
    scorer: ScorerSpec,
    row: JsonRecord,
    output: unknown,
  ): Promise<Outcome> {
    const opName = isRefString(scorer.val.score) ? scorer.val.score : await this.#opRef(scope, `${SCORER_CLASS}.score`);
    const vars = scorerArgs(scorer.val, row);
    return this.#record(
      scope,
      { id, parentId, opName, inputs: { self: scorer.ref, ...vars, output } },
      async (rollup) => {
        const promptVars = { ...vars, output };
        let userInput: ChatMessage[];
        if (isRefString(scorer.val.scoring_prompt)) {
          const prompt = await this.objects.byRef(scope.projectId, scorer.val.scoring_prompt, 'scoring_prompt');
          userInput = fillMessages(Array.isArray(prompt.val.messages) ? prompt.val.messages : [], promptVars);
        } else {
          userInput = [{ role: 'user', content: fillTemplate(String(scorer.val.scoring_prompt), promptVars) }];
        }
        const judged = await this.predict(scope, derivedCallId(id, 'predict'), id, scorer.model, {
          user_input: userInput,
        });
        rollup.add(judged.rollup);
        if (judged.error !== null) throw new ChildCallError(judged.error);
        return judged.output;
      },
    );
  }
}

/** The row columns a scorer sees: `column_map` maps a scorer argument to a dataset column. */
export function scorerArgs(scorer: JsonRecord, row: JsonRecord): JsonRecord {
  const args: JsonRecord = { ...row };
  if (isRecord(scorer.column_map))
    for (const [arg, column] of Object.entries(scorer.column_map))
      if (typeof column === 'string' && Object.hasOwn(row, column)) args[arg] = row[column];
  return args;
}
