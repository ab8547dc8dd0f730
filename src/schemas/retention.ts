import { Type, type Static } from '@sinclair/typebox';

/** Retention (docs/export.md "Retention"). */

/** 100 years: longer is no policy at all, and `keep_days` × a day must stay a safe integer of microseconds. */
export const MAX_KEEP_DAYS = 36_500;

const KeepDays = Type.Integer({
  minimum: 1,
  maximum: MAX_KEEP_DAYS,
  description: 'Calls that started more than this many days ago are deleted',
});

export const RetentionPolicyReq = Type.Object({ keep_days: KeepDays }, { additionalProperties: false });

export const RetentionDryRunQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: answer what the policy would remove now; store nothing',
    }),
  ),
});

const Counts = Type.Object({
  calls: Type.Integer(),
  feedback: Type.Integer(),
  annotation_queue_items: Type.Integer(),
  annotation_item_progress: Type.Integer(),
});

const LastRun = Type.Object({
  at: Type.String({ description: 'ISO 8601' }),
  cutoff: Type.String({ description: 'Calls that started before this were deleted' }),
  deleted_calls: Type.Integer(),
});

export const RetentionPolicyRes = Type.Object({
  project_id: Type.String(),
  /** null: no policy, calls are kept for ever. */
  keep_days: Type.Union([Type.Integer(), Type.Null()]),
  updated_by: Type.Optional(Type.String()),
  updated_at: Type.Optional(Type.String()),
  next_run_at: Type.Optional(Type.String()),
  last_run: Type.Optional(Type.Union([LastRun, Type.Null()])),
  /** PUT with `dry_run=true`: what the policy would remove now (nothing was stored). */
  would_delete: Type.Optional(Counts),
});

export const RetentionApplyReq = Type.Object(
  {
    dry_run: Type.Optional(Type.Boolean({ default: false })),
    /** Default: the project's policy. */
    keep_days: Type.Optional(KeepDays),
  },
  { additionalProperties: false },
);

export const RetentionApplyRes = Type.Object({
  project_id: Type.String(),
  dry_run: Type.Boolean(),
  keep_days: Type.Integer(),
  cutoff: Type.String({ description: 'Calls that started before this (ISO 8601) are removed' }),
  /** What a run removes now (both forms answer it). */
  would_delete: Counts,
  /** The queued job (not for a dry run): GET …/retention/jobs/{job_id}. */
  job_id: Type.Optional(Type.String()),
});

export const RetentionJobParams = Type.Object({ entity: Type.String(), project: Type.String(), job_id: Type.String() });

export const RetentionJobRes = Type.Object({
  id: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  created_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
});

export type RetentionPolicyReq = Static<typeof RetentionPolicyReq>;
export type RetentionDryRunQuery = Static<typeof RetentionDryRunQuery>;
export type RetentionPolicyRes = Static<typeof RetentionPolicyRes>;
export type RetentionApplyReq = Static<typeof RetentionApplyReq>;
export type RetentionApplyRes = Static<typeof RetentionApplyRes>;
export type RetentionJobRes = Static<typeof RetentionJobRes>;
