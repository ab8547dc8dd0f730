import { Type } from '@sinclair/typebox';

/**
 * Models, checkpoints, pagination and the small bodies of the training API (docs/spec/training.md §1,
 * §4). Unknown body keys are ignored (§1), so nothing here is `strict`. Query values stay strings
 * here; the services parse them so range errors carry the spec's types (`less_than_equal`, …).
 */

export const ModelCreate = Type.Object({
  entity: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
  project: Type.String(),
  name: Type.String(),
  base_model: Type.String(),
  return_existing: Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] })),
});

export const ModelIdParams = Type.Object({ model_id: Type.String() });
export const JobIdParams = Type.Object({ training_job_id: Type.String() });

export const PageQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
});

export const CheckpointPageQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  order: Type.Optional(Type.String()),
});

export const ModelPageQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  entity: Type.Optional(Type.String()),
  project: Type.Optional(Type.String()),
});

export const DeleteCheckpointsRequest = Type.Object({ steps: Type.Array(Type.Integer()) });

export const ModelResponse = Type.Object(
  {
    id: Type.String(),
    entity: Type.String(),
    project: Type.String(),
    name: Type.String(),
    base_model: Type.String(),
    run_id: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true },
);

export const TrainingJobResponse = Type.Object({ id: Type.String() }, { additionalProperties: true });
