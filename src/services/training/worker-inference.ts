import { AppError } from '../../errors/app-error.js';
import { nowMicros } from '../../domain/time.js';
import type { TrainingStore, TrainingWorkerRow } from '../../store/training-types.js';
import type { TrainingSettings } from './settings.js';

/** The checkpoint a routed completion is sampled from; step 0 (checkpointId null) is the base model. */
export interface WorkerTarget {
  baseModel: string;
  modelId: string;
  step: number;
  checkpointId: string | null;
  /** Who wrote the checkpoint (`worker:<id>`, the built-in's name), null for step 0. */
  trainer: string | null;
}

/** Our choice: a completion of a large model on a busy GPU may take minutes; beyond this it is a 504. */
const WORKER_TIMEOUT_MS = 600_000;

/**
 * Routes `/v1/chat/completions` for checkpoints of a base model that an external worker serves to
 * that worker's inference endpoint (docs/training-worker-protocol.md, "Inference"). The endpoint
 * and its bearer token come from the worker's latest lease request, so every API node sees them.
 */
export class WorkerInferenceRouter {
  constructor(
    private readonly store: TrainingStore,
    private readonly settings: TrainingSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async #live(): Promise<TrainingWorkerRow[]> {
    return this.store.liveWorkers(nowMicros() - Math.round(this.settings.workerTtlSeconds * 1e6));
  }

  /** The most recently seen live worker that serves completions for `baseModel`, if any. */
  async pick(baseModel: string): Promise<TrainingWorkerRow | null> {
    if (baseModel === this.settings.builtinBaseModel) return null;
    const live = await this.#live();
    return live.find((w) => w.inference !== null && w.base_models.includes(baseModel)) ?? null;
  }

  /** Forwards the client's request (plus `heddle_checkpoint`) and returns the worker's answer body. */
  async complete(
    worker: TrainingWorkerRow,
    request: Record<string, unknown>,
    target: WorkerTarget,
  ): Promise<Record<string, unknown>> {
    const { url, token } = worker.inference!;
    const { trainer: _trainer, ...checkpoint } = target;
    const body = {
      ...request,
      heddle_checkpoint: {
        base_model: checkpoint.baseModel,
        model_id: checkpoint.modelId,
        step: checkpoint.step,
        checkpoint_id: checkpoint.checkpointId,
      },
    };
    let res: Response;
    try {
      res = await this.fetchImpl(`${url.replace(/\/+$/, '')}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(WORKER_TIMEOUT_MS),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new AppError(
        timedOut ? 504 : 502,
        `Training worker ${worker.worker_id} ${timedOut ? 'did not answer in time' : 'is unreachable'}`,
      );
    }
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // keep {}: reported below
    }
    if (res.status === 200 && Array.isArray(json.choices)) return json;
    const detail = typeof json.detail === 'string' ? json.detail : text.slice(0, 500);
    // a request the worker refuses as malformed is the client's; anything else is a gateway failure
    throw new AppError(res.status === 400 ? 400 : 502, `Training worker ${worker.worker_id} failed: ${detail}`);
  }

  /** For `/v1/health`: live workers, and the base models they train and serve completions for. */
  async health(): Promise<{ live: number; base_models: string[]; inference_base_models: string[] }> {
    const live = await this.#live();
    const models = (rows: TrainingWorkerRow[]) => [...new Set(rows.flatMap((w) => w.base_models))].sort();
    return {
      live: live.length,
      base_models: models(live),
      inference_base_models: models(live.filter((w) => w.inference !== null)),
    };
  }
}
