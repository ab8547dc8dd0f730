import { Type, type TOptional, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * Trajectory data of the training API (docs/spec/training.md §5). Unknown keys are ignored at every level
 * (§1), so no object here is `strict`. Nullable fields are JSON-type lists so a failure points at
 * the field, not at a union.
 */

/** `schema` or null, optional; `T` is the non-null value's TypeScript type (the JSON is the same). */
const nullable = <T = unknown>(schema: Record<string, unknown>): TOptional<TUnsafe<T | null>> => {
  const type = schema.type as string | string[];
  return Type.Optional(Type.Unsafe<T | null>({ ...schema, type: [...(Array.isArray(type) ? type : [type]), 'null'] }));
};

const MetricMap = Type.Record(Type.String(), Type.Union([Type.Number(), Type.Boolean()]));
const MetadataMap = Type.Record(Type.String(), Type.Unsafe({ type: ['number', 'string', 'boolean', 'null'] }));

export const Tool = Type.Object({
  type: Type.String(),
  function: Type.Object({ name: Type.String() }),
});

const ROLES = ['developer', 'system', 'user', 'assistant', 'tool', 'function'];

/** §5.4: OpenAI chat message params, discriminated by `role`. */
export const Message = Type.Object({
  role: Type.Unsafe<string>({ type: 'string', enum: ROLES }),
});

const TokenLogprob = Type.Object({ token: Type.String(), logprob: Type.Number() });

/** §5.5: a sampled assistant turn; an item with a `message` key is a Choice. */
export const Choice = Type.Object({
  index: Type.Integer(),
  finish_reason: Type.Unsafe<string>({
    type: 'string',
    enum: ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'],
  }),
  message: Type.Object({}),
  logprobs: nullable({
    type: 'object',
    properties: {
      content: nullable({ type: 'array', items: TokenLogprob }),
      refusal: nullable({ type: 'array', items: TokenLogprob }),
    },
  }),
  token_ids: Type.Optional(Type.Array(Type.Integer())),
  prompt_token_ids: Type.Optional(Type.Array(Type.Integer())),
});

/** Message | Choice, told apart the way ART does (presence of `message`). */
export const MessageOrChoice = Type.Unsafe({
  type: 'object',
  if: { required: ['message'] },
  then: Choice,
  else: Message,
});

const History = Type.Object({
  messages_and_choices: Type.Array(MessageOrChoice),
  tools: nullable({ type: 'array', items: Tool }),
});

/** §5.2 */
export const Trajectory = Type.Object({
  // Optional: ART omits it when empty or sends `exchanges` instead (services/training/normalize-groups.ts).
  messages_and_choices: Type.Optional(Type.Array(MessageOrChoice)),
  // Optional: ART ≥ 0.5.20 omits a reward of 0.0 (docs/art-client.md); missing means 0.0.
  reward: Type.Optional(Type.Number()),
  tools: nullable({ type: 'array', items: Tool }),
  additional_histories: Type.Optional(Type.Array(History)),
  initial_policy_version: nullable({ type: 'integer' }),
  final_policy_version: nullable({ type: 'integer' }),
  metrics: Type.Optional(MetricMap),
  auto_metrics: Type.Optional(MetricMap),
  metadata: Type.Optional(MetadataMap),
  logs: Type.Optional(Type.Array(Type.String())),
});

/** §5.1 */
export const TrajectoryGroup = Type.Object({
  // Optional: ART sends a group without trajectories as `{}`.
  trajectories: Type.Optional(Type.Array(Trajectory)),
  exceptions: Type.Optional(
    Type.Array(Type.Object({ type: Type.Optional(Type.String()), message: Type.Optional(Type.String()) })),
  ),
  metadata: Type.Optional(MetadataMap),
  metrics: Type.Optional(MetricMap),
  logs: Type.Optional(Type.Array(Type.String())),
});

const num = (): TSchema => nullable({ type: 'number' });
const bool = (): TSchema => nullable({ type: 'boolean' });

/** §5.8: every field optional and nullable; type errors are 422; unknown keys accepted. */
export const ExperimentalTrainingConfig = Type.Object({
  learning_rate: num(),
  scale_rewards: bool(),
  advantage_balance: num(),
  ppo: bool(),
  loss_fn: nullable({ type: 'string', enum: ['ppo', 'cispo', null] }),
  epsilon: num(),
  epsilon_high: num(),
  importance_sampling_level: nullable({
    type: 'string',
    enum: ['token', 'sequence', 'average', 'geometric_average', null],
  }),
  max_negative_advantage_importance_sampling_weight: num(),
  mask_prob_ratio: bool(),
  kimi_k2_tau: num(),
  partner_k2_tau: num(),
  precalculate_logprobs: bool(),
  allow_training_without_logprobs: bool(),
  normalize_advantages: bool(),
  truncated_importance_sampling: num(),
  kl_penalty_coef: num(),
});

export const TrainingJobCreate = Type.Object({
  model_id: Type.String(),
  trajectory_groups: Type.Array(TrajectoryGroup),
  experimental_config: Type.Optional(
    Type.Unsafe<Record<string, unknown> | null>({ ...ExperimentalTrainingConfig, type: ['object', 'null'] }),
  ),
});

export const SftTrainingJobCreate = Type.Object({
  model_id: Type.String(),
  training_data_url: Type.Optional(Type.String()),
  training_folder_url: Type.Optional(Type.String()),
  config: nullable<Record<string, unknown>>({
    type: 'object',
    properties: {
      batch_size: Type.Optional(
        Type.Unsafe({
          type: ['integer', 'string', 'null'],
          anyOf: [{ type: 'integer' }, { const: 'auto' }, { type: 'null' }],
        }),
      ),
      learning_rate: nullable({ type: ['number', 'array'], items: { type: 'number' } }),
    },
  }),
  experimental_config: nullable<Record<string, unknown>>({ type: 'object' }),
});

export const LogRequest = Type.Object({
  split: Type.String(),
  trajectory_groups: Type.Array(TrajectoryGroup),
});
