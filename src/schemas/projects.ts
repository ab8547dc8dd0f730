import { Type, type Static } from '@sinclair/typebox';

/** `/projects/{entity}/{project}…` (docs/export.md "Project deletion"). */
export const ProjectPathParams = Type.Object({ entity: Type.String(), project: Type.String() });

const RowCounts = Type.Record(Type.String(), Type.Integer(), {
  description: 'Rows per per-project table (src/store/sql/project-tables.ts)',
});

export const ProjectUsageRes = Type.Object({
  project_id: Type.String(),
  rows: RowCounts,
  total_rows: Type.Integer(),
});

export const ProjectDeleteRes = Type.Object({
  project_id: Type.String(),
  deleted: RowCounts,
  deleted_rows: Type.Integer(),
  /** Rows of the project left in any per-project table afterwards: 0 unless writes raced the deletion. */
  remaining_rows: Type.Integer(),
  elapsed_ms: Type.Integer(),
});

export type ProjectPathParams = Static<typeof ProjectPathParams>;
export type ProjectUsageRes = Static<typeof ProjectUsageRes>;
export type ProjectDeleteRes = Static<typeof ProjectDeleteRes>;

/** `POST /projects/{entity}/{project}/import` (docs/export.md "Whole-project export and import"). */
export const ProjectImportRes = Type.Object({
  project_id: Type.String(),
  imported: RowCounts,
  imported_rows: Type.Integer(),
});
export type ProjectImportRes = Static<typeof ProjectImportRes>;
