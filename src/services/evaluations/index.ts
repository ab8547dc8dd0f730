import type { ProviderConfig } from '../../config/config.js';
import type { TraceStore } from '../../store/types.js';
import type { FeedbackService } from '../feedback-service.js';
import type { RecordPriceLookup } from '../price-table.js';
import type { ProjectAccess } from '../project-access.js';
import type { InferenceService } from '../training/inference-service.js';
import type { V2ObjectService } from '../v2-object-service.js';
import { CompletionService } from '../completions/completion-service.js';
import { EvalCalls } from './eval-calls.js';
import { EvalResultsService } from './eval-results-service.js';
import { EvaluationRunService } from './evaluation-run-service.js';
import { PredictionService } from './prediction-service.js';
import { ProviderRegistry } from './providers/provider-registry.js';
import { ScoreService } from './score-service.js';
import { ObjectReader } from './server-eval/object-reader.js';
import { ServerEvaluationService } from './server-eval/server-evaluation-service.js';

/** The call-backed evaluation APIs (docs/spec/evaluations.md §3–§4) and server-side evaluation (§5–§6). */
export interface EvaluationServices {
  runs: EvaluationRunService;
  predictions: PredictionService;
  scores: ScoreService;
  results: EvalResultsService;
  server: ServerEvaluationService;
  /** Weave's LLM proxy, `/completions/create` (the playground), on the same providers. */
  completions: CompletionService;
}

export function createEvaluationServices(
  store: TraceStore,
  access: ProjectAccess,
  v2Objects: V2ObjectService,
  feedback: FeedbackService,
  prices: RecordPriceLookup,
  providers: ProviderConfig,
  inference: InferenceService | null,
): EvaluationServices {
  const calls = new EvalCalls(store, v2Objects);
  const objects = new ObjectReader(store);
  const registry = new ProviderRegistry(providers, objects, inference);
  return {
    runs: new EvaluationRunService(access, calls),
    predictions: new PredictionService(access, calls),
    scores: new ScoreService(access, calls, feedback),
    results: new EvalResultsService(store, access, calls, prices),
    server: new ServerEvaluationService(access, calls, feedback, objects, registry),
    completions: new CompletionService(access, calls, objects, registry),
  };
}
