import { setTimeout as sleep } from 'node:timers/promises';
import {
  TrainingContentError,
  type ChatCompletionInput,
  type CheckpointHandle,
  type Trainer,
  type TrainingJobInput,
  type TrainingOutcome,
  type TrainingProgress,
} from '../../src/training/trainer-port.js';

/**
 * TEST-ONLY trainer: no learning at all. It emits a deterministic event stream (one gradient step
 * per group whose rewards differ, docs/spec/training.md §6.4) and a checkpoint that records its lineage, so queue
 * and route tests can check the service side of the port. Never a production default.
 *
 * Behaviour switches, read from the first group's `metadata.scripted`:
 * - `"content_error"`: rejects with TrainingContentError("no trainable tokens").
 * - `"crash"`: rejects with a plain Error("boom").
 * - `"hang"`: waits until aborted.
 */
export class ScriptedTrainer implements Trainer {
  readonly name = 'test:scripted';
  readonly jobs: TrainingJobInput[] = [];
  closed = false;
  /** Completions currently running (for the concurrency cap test). */
  activeCompletions = 0;
  /** The most completions that ran at once. */
  peakCompletions = 0;

  constructor(
    private readonly opts: {
      stepDelayMs?: number;
      completeDelayMs?: number;
      /** Each completion waits for this promise first (a test holds completions until it lets them go). */
      completeGate?: Promise<void>;
    } = {},
  ) {}

  async train(
    input: TrainingJobInput,
    onProgress: (p: TrainingProgress) => Promise<void>,
    signal: AbortSignal,
  ): Promise<TrainingOutcome> {
    this.jobs.push(input);
    const groups = input.trajectoryGroups as Array<{
      trajectories: Array<{ reward: number }>;
      metadata?: { scripted?: string };
    }>;
    const mode = groups[0]?.metadata?.scripted;
    if (mode === 'content_error') throw new TrainingContentError('no trainable tokens');
    if (mode === 'crash') throw new Error('boom');
    if (mode === 'hang') {
      await new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    }
    const trainable =
      input.kind === 'sft'
        ? (input.sftExamples?.length ?? 0)
        : groups.filter((g) => g.trajectories.some((t) => t.reward !== g.trajectories[0]!.reward)).length;
    await onProgress({
      type: 'training_started',
      data: { num_sequences: trainable, num_groups_submitted: groups.length },
    });
    for (let i = 0; i < trainable; i += 1) {
      if (this.opts.stepDelayMs) await sleep(this.opts.stepDelayMs, undefined, { signal });
      signal.throwIfAborted();
      await onProgress({
        type: 'gradient_step',
        data: { loss: 0.5 / (i + 1), grad_norm: 1, num_trainable_tokens: 10 },
      });
    }
    const parent = input.parentCheckpoint
      ? (JSON.parse(Buffer.from(input.parentCheckpoint).toString('utf8')) as { lineage: string[] }).lineage
      : [];
    const checkpoint = Buffer.from(JSON.stringify({ lineage: [...parent, input.jobId], parentStep: input.parentStep }));
    return { checkpoint, metrics: trainable > 0 ? { loss: 0.4, grad_norm: 1 } : {}, numGradientSteps: trainable };
  }

  async complete(checkpoint: CheckpointHandle, request: ChatCompletionInput): Promise<Record<string, unknown>> {
    this.activeCompletions += 1;
    this.peakCompletions = Math.max(this.peakCompletions, this.activeCompletions);
    try {
      if (this.opts.completeDelayMs) await sleep(this.opts.completeDelayMs);
      await this.opts.completeGate;
      const bytes = await checkpoint.load();
      const lineage = bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as { lineage: string[] }).lineage : [];
      const content = `checkpoint=${checkpoint.id ?? 'initial'} jobs=${lineage.length} messages=${request.messages.length}`;
      return {
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
    } finally {
      this.activeCompletions -= 1;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
