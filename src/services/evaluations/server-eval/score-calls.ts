import type { JsonRecord } from '../../../domain/eval-results/types.js';
import { parseRef, RefParseError } from '../../../domain/ref-uri.js';
import { derivedCallId } from '../../../domain/server-eval/call-ids.js';
import { exceptionText, Rollup } from '../../../domain/server-eval/rollup.js';
import { InvalidRequestError } from '../../../errors/app-error.js';
import type { Caller } from '../../auth-service.js';
import type { FeedbackService } from '../../feedback-service.js';
import type { EvalCalls } from '../eval-calls.js';
import type { ExecScope, LlmExec } from './llm-exec.js';
import type { ObjectReader } from './object-reader.js';
import { loadScorer, type ScorerSpec } from './plan.js';
import { addRunnableFeedback } from './runnable-feedback.js';

/**
 * `/calls/score` (docs/spec/evaluations.md §5): runs stored scorers on existing calls. Each
 * (call, scorer) pair gets a scorer call of its own trace, id derived from the pair, so running the
 * same job twice scores each pair once; failures stay with their pair.
 */

export interface ScoreCallsArgs {
  caller: Caller;
  projectId: string;
  callIds: string[];
  scorerRefs: string[];
  /**
   * Who asked (our choice): `calls/score` by default; a monitor (docs/monitors.md) gives its own
   * id space, so its scorer calls and feedback are its own, and its ref as the feedback's `trigger_ref`.
   */
  origin?: { idSpace: string; triggerRef: string | null };
  /** Stops between pairs (the job's lease was lost or the node is stopping). */
  signal?: AbortSignal;
  /** Told when every scorer has run on a call, or the call is gone (a monitor marks the pair done). */
  onScored?: (callId: string) => Promise<void>;
}

export const SCORE_ATTRIBUTES: JsonRecord = { _weave_eval_meta: { score: true } };

/** §5 our choice: a scorer ref that does not parse as an object ref is a synchronous 400. */
export function checkScorerRefs(scorerRefs: readonly string[]): void {
  for (const ref of scorerRefs) {
    let kind: string;
    try {
      kind = parseRef(ref).kind;
    } catch (error) {
      if (!(error instanceof RefParseError)) throw error;
      throw new InvalidRequestError(`scorer_refs: ${error.message}`);
    }
    if (kind !== 'object') throw new InvalidRequestError(`scorer_refs: ${ref} is not an object ref`);
  }
}

export class CallScorer {
  constructor(
    private readonly calls: EvalCalls,
    private readonly objects: ObjectReader,
    private readonly exec: LlmExec,
    private readonly feedback: FeedbackService,
  ) {}

  async run(args: ScoreCallsArgs): Promise<void> {
    checkScorerRefs(args.scorerRefs);
    const scorers: Array<{ ref: string; spec: ScorerSpec | null; error: unknown }> = [];
    for (const ref of args.scorerRefs) {
      try {
        scorers.push({ ref, spec: await loadScorer(this.objects, args.projectId, ref), error: null });
      } catch (error) {
        scorers.push({ ref, spec: null, error });
      }
    }
    for (const callId of args.callIds) {
      args.signal?.throwIfAborted();
      const target = await this.calls.read(args.projectId, callId);
      if (target !== null)
        for (const scorer of scorers) await this.#pair(args, target.id, target.inputs, target.output, scorer);
      await args.onScored?.(callId);
    }
  }

  async #pair(
    args: ScoreCallsArgs,
    callId: string,
    inputs: JsonRecord,
    output: unknown,
    scorer: { ref: string; spec: ScorerSpec | null; error: unknown },
  ): Promise<void> {
    const id = derivedCallId(`${args.projectId}/${callId}`, args.origin?.idSpace ?? 'calls/score', scorer.ref);
    const previous = await this.calls.readRow(args.projectId, id);
    if (previous?.ended_at != null) {
      // scored before an interruption that may have come before its feedback was written
      if (previous.exception === null && scorer.spec !== null)
        await addRunnableFeedback(this.feedback, args.caller, args.projectId, {
          scoredCallId: callId,
          scorer: scorer.spec,
          scorerCallId: id,
          output: previous.output === null ? null : (JSON.parse(previous.output) as unknown),
          triggerRef: args.origin?.triggerRef ?? null,
        });
      return;
    }
    const scope: ExecScope = {
      caller: args.caller,
      projectId: args.projectId,
      traceId: id,
      attributes: SCORE_ATTRIBUTES,
    };
    if (scorer.spec === null) {
      // an unloadable or unsupported scorer fails this pair only (§5 our choice)
      await this.calls.start(args.caller, args.projectId, {
        id,
        parentId: null,
        opName: await this.calls.opRef(args.caller, args.projectId, 'Scorer.score'),
        inputs: { self: scorer.ref, output },
        attributes: SCORE_ATTRIBUTES,
      });
      await this.calls.end(args.projectId, id, null, new Rollup().close(true), exceptionText(scorer.error));
      return;
    }
    const { self: _self, ...row } = inputs;
    const result = await this.exec.score(scope, id, null, scorer.spec, row, output);
    if (result.error !== null) return;
    await addRunnableFeedback(this.feedback, args.caller, args.projectId, {
      scoredCallId: callId,
      scorer: scorer.spec,
      scorerCallId: id,
      output: result.output,
      triggerRef: args.origin?.triggerRef ?? null,
    });
  }
}
