import { randomBytes } from 'node:crypto';
import { AppError, NotFoundError } from '../../errors/app-error.js';
import type { TrainingStore } from '../../store/training-types.js';
import type { ChatCompletionInput, CheckpointHandle, Trainer } from '../../training/trainer-port.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import type { WorkerInferenceRouter, WorkerTarget } from './worker-inference.js';

export interface InferenceName {
  entity: string;
  project: string;
  name: string;
  /** null = the newest checkpoint. */
  step: number | null;
}

/**
 * Parses an inference name (docs/spec/training.md §2): `wandb-artifact:///<e>/<p>/<name>` or the
 * two-slash form, optionally ending in `:step<N>`. Null when it is not one.
 */
export function parseInferenceName(model: string): InferenceName | null {
  const match = /^wandb-artifact:\/\/\/?([^/]+)\/([^/]+)\/(.+)$/.exec(model);
  if (!match) return null;
  let name = match[3]!;
  let step: number | null = null;
  const stepMatch = /:step(\d+)$/.exec(name);
  if (stepMatch) {
    step = Number(stepMatch[1]);
    name = name.slice(0, stepMatch.index);
  }
  return name === '' ? null : { entity: match[1]!, project: match[2]!, name, step };
}

const notFound = (): NotFoundError => new NotFoundError('Model not found');

/** `POST /v1/chat/completions` against a model's checkpoint (docs/spec/training.md §4.10). */
export class InferenceService {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    private readonly store: TrainingStore,
    private readonly access: ProjectAccess,
    private readonly trainer: Trainer | null,
    private readonly concurrency: number,
    private readonly queueLimit: number,
    private readonly workers: WorkerInferenceRouter | null = null,
  ) {}

  /**
   * A slot among `concurrency`; a request over the cap waits in line (ART sends all rollouts of a
   * step at once), and only beyond `queueLimit` waiting requests is it refused with 429 (§4.10).
   */
  async #acquire(): Promise<void> {
    if (this.#active < this.concurrency) {
      this.#active += 1;
      return;
    }
    if (this.#waiting.length >= this.queueLimit) throw new AppError(429, 'Concurrency limit reached for requests', {});
    // the slot is handed over by #release, so #active stays counted
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active -= 1;
  }

  /** The checkpoint an inference name designates; step 0 is the initial policy. */
  async resolve(
    caller: Caller,
    model: string,
  ): Promise<{ handle: CheckpointHandle; name: InferenceName; target: WorkerTarget }> {
    const name = parseInferenceName(model);
    if (!name) throw notFound();
    const projectId = `${name.entity}/${name.project}`;
    this.access.assertCanRead(caller, projectId);
    const row = await this.store.getModelByName(projectId, name.name);
    if (!row) throw notFound();
    const initial = {
      handle: { id: null, load: async () => null },
      name,
      target: { baseModel: row.base_model, modelId: row.id, step: 0, checkpointId: null, trainer: null },
    };
    if (name.step === 0) return initial;
    const checkpoint = await this.store.getCheckpoint(projectId, row.id, name.step);
    if (!checkpoint) {
      if (name.step === null) return initial;
      throw notFound();
    }
    const load = async (): Promise<Uint8Array | null> => this.store.checkpointData(projectId, row.id, checkpoint.id);
    const target = {
      baseModel: row.base_model,
      modelId: row.id,
      step: checkpoint.step,
      checkpointId: checkpoint.id,
      trainer: checkpoint.trainer,
    };
    return { handle: { id: checkpoint.id, load }, name, target };
  }

  async complete(caller: Caller, request: ChatCompletionInput & { model?: unknown }): Promise<Record<string, unknown>> {
    const model = typeof request.model === 'string' ? request.model : '';
    const { handle, target } = await this.resolve(caller, model);
    // a base model an external worker serves is sampled there (docs/training-worker-protocol.md, "Inference")
    const worker = this.workers ? await this.workers.pick(target.baseModel) : null;
    // an external worker's checkpoint (a LoRA adapter) means nothing to the built-in policy
    if (!worker && target.trainer?.startsWith('worker:'))
      throw new AppError(
        503,
        `No live worker serves completions for base model ${target.baseModel} (step ${target.step} was trained by ${target.trainer})`,
      );
    if (!worker && !this.trainer)
      throw new AppError(503, 'No trainer is configured on this server to serve completions');
    await this.#acquire();
    try {
      const body = worker
        ? await this.workers!.complete(worker, request as unknown as Record<string, unknown>, target)
        : await this.trainer!.complete(handle, request);
      return {
        object: 'chat.completion',
        ...body,
        id: `chatcmpl-${randomBytes(12).toString('hex')}`,
        created: Math.floor(Date.now() / 1000),
        model,
      };
    } finally {
      this.#release();
    }
  }
}
