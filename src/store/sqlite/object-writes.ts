import type Database from 'better-sqlite3';
import { OBJECT_META_COLUMNS } from '../sql/objects-select.js';
import type { ObjectCreateOutcome, ObjectVersionInsert, ObjectVersionRow, VersionSelector } from '../types.js';
import { writerStatement } from './statements.js';

/** The object store's writes (docs/spec/objects.md §2–3), run on the writer connection in the writer thread. */

const INSERT_SQL = `
  INSERT INTO object_versions (project_id, object_id, version_index, digest, kind, base_object_class, leaf_object_class,
                               val, size_bytes, wb_user_id, created_at, deleted_at, is_latest)
  VALUES (@project_id, @object_id, @version_index, @digest, @kind, @base_object_class, @leaf_object_class,
          @val, @size_bytes, @wb_user_id, @created_at, NULL, 1)`;

/** Makes `versionIndex` the only latest version of the object (null: none). */
const SET_LATEST_SQL = `
  UPDATE object_versions SET is_latest = CASE WHEN version_index = @index THEN 1 ELSE 0 END
  WHERE project_id = @project AND object_id = @object AND (is_latest = 1 OR version_index = @index)`;

/** Where latest goes when the latest version is deleted (§2.5). */
const SURVIVOR_SQL = `
  SELECT version_index FROM object_versions WHERE project_id = ? AND object_id = ? AND deleted_at IS NULL
  ORDER BY created_at DESC, version_index DESC LIMIT 1`;

/** Conditions naming one live version; delete resolves only `latest`, `vN` and digests (§3.3). */
const LIVE_BY_SELECTOR: Record<'latest' | 'index' | 'digest', string> = {
  latest: 'o.is_latest = 1',
  index: 'o.version_index = @value AND o.deleted_at IS NULL',
  digest: 'o.digest = @value AND o.deleted_at IS NULL',
};

const stmt = writerStatement;

function get(db: Database.Database, sql: string, params: unknown[]): unknown {
  return stmt(db, sql).get(...params);
}

export function createObjectVersion(db: Database.Database, v: ObjectVersionInsert): ObjectCreateOutcome {
  const key = { project: v.project_id, object: v.object_id };
  const live = get(
    db,
    `SELECT version_index, created_at FROM object_versions
    WHERE project_id = ? AND object_id = ? AND digest = ? AND deleted_at IS NULL`,
    [v.project_id, v.object_id, v.digest],
  ) as { version_index: number; created_at: number } | undefined;
  if (live) {
    // newest behaviour (§2.5): re-publishing live content moves latest to it
    stmt(db, SET_LATEST_SQL).run({ ...key, index: live.version_index });
    return { status: 'existing', version_index: live.version_index, created_at: live.created_at };
  }
  const classes = stmt(
    db,
    `SELECT DISTINCT base_object_class FROM object_versions
    WHERE project_id = ? AND object_id = ? AND kind = ? AND deleted_at IS NULL`,
  )
    .all(v.project_id, v.object_id, v.kind)
    .map((row) => (row as { base_object_class: string | null }).base_object_class);
  if (classes.some((c) => c !== v.base_object_class))
    return { status: 'collision', existing_base_object_classes: sortClasses(classes) };
  const max = get(db, 'SELECT MAX(version_index) AS max FROM object_versions WHERE project_id = ? AND object_id = ?', [
    v.project_id,
    v.object_id,
  ]) as { max: number | null };
  const versionIndex = (max.max ?? -1) + 1;
  stmt(db, SET_LATEST_SQL).run({ ...key, index: -1 });
  stmt(db, INSERT_SQL).run({ ...v, version_index: versionIndex });
  return { status: 'created', version_index: versionIndex, created_at: v.created_at };
}

export interface ObjectDeleteArgs {
  projectId: string;
  objectId: string;
  selectors: VersionSelector[] | null;
  deletedAt: number;
}

export function deleteObjectVersions(db: Database.Database, args: ObjectDeleteArgs): ObjectVersionRow[] | null {
  const { projectId, objectId, deletedAt } = args;
  const targets = liveTargets(db, projectId, objectId, args.selectors);
  if (targets === null || targets.length === 0) return null;
  const markDeleted = stmt(
    db,
    'UPDATE object_versions SET deleted_at = ?, is_latest = 0 WHERE project_id = ? AND object_id = ? AND version_index = ?',
  );
  const dropTags = stmt(db, 'DELETE FROM object_tags WHERE project_id = ? AND object_id = ? AND digest = ?');
  const dropAliases = stmt(db, 'DELETE FROM object_aliases WHERE project_id = ? AND object_id = ? AND digest = ?');
  for (const row of targets) {
    markDeleted.run(deletedAt, projectId, objectId, row.version_index);
    dropTags.run(projectId, objectId, row.digest);
    dropAliases.run(projectId, objectId, row.digest);
  }
  if (targets.some((row) => row.is_latest === 1)) {
    const survivor = stmt(db, SURVIVOR_SQL).get(projectId, objectId) as { version_index: number } | undefined;
    if (survivor) stmt(db, SET_LATEST_SQL).run({ project: projectId, object: objectId, index: survivor.version_index });
  }
  return targets.map((row) => ({ ...row, deleted_at: deletedAt, is_latest: 0 }));
}

/** The live versions the selectors name, deduplicated by index; null when any names none. */
function liveTargets(
  db: Database.Database,
  projectId: string,
  objectId: string,
  selectors: VersionSelector[] | null,
): ObjectVersionRow[] | null {
  const select = `SELECT ${OBJECT_META_COLUMNS}, '{}' AS val FROM object_versions o WHERE o.project_id = @project AND o.object_id = @object`;
  const params = { project: projectId, object: objectId };
  if (selectors === null)
    return stmt(db, `${select} AND o.deleted_at IS NULL ORDER BY o.version_index`).all(params) as ObjectVersionRow[];
  const found = new Map<number, ObjectVersionRow>();
  for (const selector of selectors) {
    const [by, value] =
      selector.by === 'latest'
        ? (['latest', null] as const)
        : selector.by === 'index'
          ? (['index', selector.index] as const)
          : (['digest', selector.by === 'digest' ? selector.digest : selector.alias] as const);
    const row = stmt(db, `${select} AND ${LIVE_BY_SELECTOR[by]}`).get(
      by === 'latest' ? params : { ...params, value },
    ) as ObjectVersionRow | undefined;
    if (!row) return null;
    found.set(row.version_index, row);
  }
  return [...found.values()].sort((a, b) => a.version_index - b.version_index);
}

export interface ObjectLabelArgs {
  projectId: string;
  objectId: string;
  digest: string;
  names: string[];
  now: number;
}

/** Adds tags to a live version; false when the version is not live. */
export function addObjectTags(db: Database.Database, a: ObjectLabelArgs): boolean {
  if (!isLive(db, a.projectId, a.objectId, a.digest)) return false;
  const insert = stmt(
    db,
    `INSERT INTO object_tags (project_id, object_id, digest, tag, created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (project_id, object_id, digest, tag) DO NOTHING`,
  );
  for (const tag of a.names) insert.run(a.projectId, a.objectId, a.digest, tag, a.now);
  return true;
}

export function removeObjectTags(db: Database.Database, a: Omit<ObjectLabelArgs, 'now'>): void {
  const remove = stmt(db, 'DELETE FROM object_tags WHERE project_id = ? AND object_id = ? AND digest = ? AND tag = ?');
  for (const tag of a.names) remove.run(a.projectId, a.objectId, a.digest, tag);
}

/** Points aliases at a live version (moving them from any other); false when the version is not live. */
export function setObjectAliases(db: Database.Database, a: ObjectLabelArgs): boolean {
  if (!isLive(db, a.projectId, a.objectId, a.digest)) return false;
  const upsert = stmt(
    db,
    `INSERT INTO object_aliases (project_id, object_id, alias, digest, created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (project_id, object_id, alias) DO UPDATE SET digest = excluded.digest, created_at = excluded.created_at
    WHERE object_aliases.digest <> excluded.digest`,
  );
  for (const alias of a.names) upsert.run(a.projectId, a.objectId, alias, a.digest, a.now);
  return true;
}

export function removeObjectAliases(
  db: Database.Database,
  a: Pick<ObjectLabelArgs, 'projectId' | 'objectId' | 'names'>,
): void {
  const remove = stmt(db, 'DELETE FROM object_aliases WHERE project_id = ? AND object_id = ? AND alias = ?');
  for (const alias of a.names) remove.run(a.projectId, a.objectId, alias);
}

function isLive(db: Database.Database, projectId: string, objectId: string, digest: string): boolean {
  return (
    get(
      db,
      'SELECT 1 AS one FROM object_versions WHERE project_id = ? AND object_id = ? AND digest = ? AND deleted_at IS NULL',
      [projectId, objectId, digest],
    ) !== undefined
  );
}

/** Distinct classes in a stable order: null (untyped) first, then ascending. */
function sortClasses(classes: Array<string | null>): Array<string | null> {
  return [...new Set(classes)].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
}
