import { derivedCallId } from '../../../domain/server-eval/call-ids.js';
import type { Caller } from '../../auth-service.js';
import type { FeedbackService } from '../../feedback-service.js';
import type { ScorerSpec } from './plan.js';

/**
 * A scorer's result as runnable feedback on the scored call (docs/spec/evaluations.md §5 step 3,
 * §6.2 step 3), with an id derived from the scorer call's, so a resumed job adds it once.
 */
export async function addRunnableFeedback(
  feedback: FeedbackService,
  caller: Caller,
  projectId: string,
  target: {
    scoredCallId: string;
    scorer: ScorerSpec;
    scorerCallId: string;
    output: unknown;
    /** The monitor whose scoring this is (docs/monitors.md). */
    triggerRef?: string | null;
  },
): Promise<void> {
  const id = derivedCallId(target.scorerCallId, 'feedback');
  const existing = await feedback.forCalls(projectId, [target.scoredCallId]);
  if ((existing.get(target.scoredCallId) ?? []).some((item) => item.id === id)) return;
  await feedback.create(caller, {
    project_id: projectId,
    id,
    weave_ref: `weave:///${projectId}/call/${target.scoredCallId}`,
    feedback_type: `wandb.runnable.${target.scorer.objectName}`,
    payload: { output: target.output ?? null },
    runnable_ref: target.scorer.ref,
    call_ref: `weave:///${projectId}/call/${target.scorerCallId}`,
    ...(target.triggerRef ? { trigger_ref: target.triggerRef } : {}),
  });
}
