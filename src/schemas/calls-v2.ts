import { Type, type Static } from '@sinclair/typebox';
import { EndedCallSchemaForInsert, StartedCallSchemaForInsert } from './calls.js';
import { DateTimeIn, NullableLaxInt, Nullable, strict } from './common.js';

/**
 * The project-scoped write routes the official Python client (weave 0.54) uses by default:
 * `/v2/{entity}/{project}/calls/complete` with finished calls, and `/v2/{entity}/{project}/call/start|end`
 * for eager starts. The calls spec (§2.4) leaves the complete call unexposed; the client wins.
 */
export const ProjectParams = Type.Object({ entity: Type.String(), project: Type.String() });

/** A finished call: every start field plus the end fields; extra keys are ignored like `start`/`end`. */
export const CompleteCallSchemaForInsert = Type.Object({
  ...StartedCallSchemaForInsert.properties,
  ended_at: DateTimeIn(),
  exception: Nullable(Type.String()),
  output: Type.Optional(Type.Unknown()),
  summary: EndedCallSchemaForInsert.properties.summary,
  wb_run_step_end: NullableLaxInt(),
});

export const CallsUpsertCompleteReq = Type.Object({ batch: Type.Array(CompleteCallSchemaForInsert) }, strict);
export const CallsUpsertCompleteRes = Type.Object({});

export const CallStartV2Req = Type.Object({ start: StartedCallSchemaForInsert }, strict);
export const CallEndV2Req = Type.Object({ end: EndedCallSchemaForInsert }, strict);

export type ProjectParams = Static<typeof ProjectParams>;
export type CompleteCallSchemaForInsert = Static<typeof CompleteCallSchemaForInsert>;
export type CallsUpsertCompleteReq = Static<typeof CallsUpsertCompleteReq>;
