import { Type, type Static } from '@sinclair/typebox';
import { DateTimeIn, FreeObject, Nullable, strict } from './common.js';
import { recordQueryFields } from './query.js';

/** Costs API models (docs/spec/objects.md §8). */

export const CostCreateInput = Type.Object(
  {
    prompt_token_cost: Type.Number(),
    completion_token_cost: Type.Number(),
    cache_read_input_token_cost: Type.Optional(Type.Number()),
    cache_creation_input_token_cost: Type.Optional(Type.Number()),
    prompt_token_cost_unit: Type.Optional(Type.String()),
    completion_token_cost_unit: Type.Optional(Type.String()),
    effective_date: Type.Optional(Type.Union([DateTimeIn(), Type.Null()])),
    provider_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  strict,
);
export type CostCreateInput = Static<typeof CostCreateInput>;

export const CostCreateReq = Type.Object(
  {
    project_id: Type.String(),
    costs: Type.Record(Type.String(), CostCreateInput),
    wb_user_id: Nullable(Type.String()),
  },
  strict,
);
export type CostCreateReq = Static<typeof CostCreateReq>;
export const CostCreateRes = Type.Object({ ids: Type.Array(Type.Tuple([Type.String(), Type.String()])) });

export const CostQueryReq = Type.Object(recordQueryFields(), strict);
export type CostQueryReq = Static<typeof CostQueryReq>;
export const CostQueryRes = Type.Object({ results: Type.Array(FreeObject()) });
