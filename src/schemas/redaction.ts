import { Type, type Static } from '@sinclair/typebox';

/** What the redaction does in a project (docs/redaction.md). */
export const RedactionStatsRes = Type.Object({
  project_id: Type.String(),
  /** The kinds redacted on write in this project (built-ins and custom pattern names). */
  kinds: Type.Array(Type.String()),
  /** Replacements made by this node since it started, by kind (a counter, not durable). */
  redacted: Type.Record(Type.String(), Type.Integer()),
});
export type RedactionStatsRes = Static<typeof RedactionStatsRes>;
