/** Messages between the BuiltinTrainer (main thread) and its worker threads. */
import type { ChatCompletionInput, TrainingJobInput, TrainingOutcome, TrainingProgress } from '../trainer-port.js';

export type WorkerRequest =
  | { type: 'train'; input: TrainingJobInput }
  | { type: 'complete'; checkpointId: string | null; request: ChatCompletionInput };

export type ToWorker =
  | { type: 'train'; id: number; input: TrainingJobInput }
  | { type: 'complete'; id: number; checkpointId: string | null; request: ChatCompletionInput }
  | { type: 'ack'; id: number }
  | { type: 'checkpoint'; id: number; bytes: Uint8Array | null };

export type FromWorker =
  | { type: 'ready'; backend: string }
  | { type: 'progress'; id: number; progress: TrainingProgress }
  | { type: 'need_checkpoint'; id: number }
  | { type: 'result'; id: number; value: TrainingOutcome | Record<string, unknown> }
  | { type: 'error'; id: number; name: string; message: string };

export interface WorkerOptions {
  /** Preferred tfjs backend; the worker falls back to `cpu` when WASM cannot start. */
  backend: 'wasm' | 'cpu';
  /** Loaded checkpoints kept per inference worker (LRU by checkpoint id). */
  cacheSize: number;
}
