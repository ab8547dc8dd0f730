import type { TraceStore } from '../../store/types.js';
import type { FeedbackService } from '../feedback-service.js';
import type { RecordPriceLookup } from '../price-table.js';
import type { ProjectAccess } from '../project-access.js';
import type { V2ObjectService } from '../v2-object-service.js';
import { EvalCalls } from './eval-calls.js';
import { EvalResultsService } from './eval-results-service.js';
import { EvaluationRunService } from './evaluation-run-service.js';
import { PredictionService } from './prediction-service.js';
import { ScoreService } from './score-service.js';

/** The call-backed evaluation APIs (docs/spec/evaluations.md §3–§4). */
export interface EvaluationServices {
  runs: EvaluationRunService;
  predictions: PredictionService;
  scores: ScoreService;
  results: EvalResultsService;
}

export function createEvaluationServices(
  store: TraceStore,
  access: ProjectAccess,
  v2Objects: V2ObjectService,
  feedback: FeedbackService,
  prices: RecordPriceLookup,
): EvaluationServices {
  const calls = new EvalCalls(store, v2Objects);
  return {
    runs: new EvaluationRunService(access, calls),
    predictions: new PredictionService(access, calls),
    scores: new ScoreService(access, calls, feedback),
    results: new EvalResultsService(store, access, calls, prices),
  };
}
