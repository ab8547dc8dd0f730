import type Database from 'better-sqlite3';
import { compileObjectsSelect, OBJECT_META_COLUMNS, valColumn } from '../sql/objects-select.js';
import type {
  ObjectCreateOutcome,
  ObjectLabels,
  ObjectsQuery,
  ObjectStore,
  ObjectVersionInsert,
  ObjectVersionRow,
  VersionSelector,
} from '../types.js';
import type { ReadPool } from './read-pool.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { bindNamed, placeholders, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

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

/** The SQLite object store: versions, tags and aliases (objects spec §2–3). Writes go through the group-commit writer. */
export class SqliteObjectStore implements ObjectStore {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  create(v: ObjectVersionInsert): Promise<ObjectCreateOutcome> {
    return this.writer.submit((db) => {
      const key = { project: v.project_id, object: v.object_id };
      const live = this.#get(db, `SELECT version_index, created_at FROM object_versions
        WHERE project_id = ? AND object_id = ? AND digest = ? AND deleted_at IS NULL`, [v.project_id, v.object_id, v.digest]) as
        | { version_index: number; created_at: number }
        | undefined;
      if (live) {
        // newest behaviour (§2.5): re-publishing live content moves latest to it
        this.#stmt(db, SET_LATEST_SQL).run({ ...key, index: live.version_index });
        return { status: 'existing', version_index: live.version_index, created_at: live.created_at };
      }
      const classes = this.#stmt(db, `SELECT DISTINCT base_object_class FROM object_versions
        WHERE project_id = ? AND object_id = ? AND kind = ? AND deleted_at IS NULL`)
        .all(v.project_id, v.object_id, v.kind)
        .map((row) => (row as { base_object_class: string | null }).base_object_class);
      if (classes.some((c) => c !== v.base_object_class)) return { status: 'collision', existing_base_object_classes: sortClasses(classes) };
      const max = this.#get(db, 'SELECT MAX(version_index) AS max FROM object_versions WHERE project_id = ? AND object_id = ?', [
        v.project_id,
        v.object_id,
      ]) as { max: number | null };
      const versionIndex = (max.max ?? -1) + 1;
      this.#stmt(db, SET_LATEST_SQL).run({ ...key, index: -1 });
      this.#stmt(db, INSERT_SQL).run({ ...v, version_index: versionIndex });
      return { status: 'created', version_index: versionIndex, created_at: v.created_at };
    });
  }

  async findVersion(projectId: string, objectId: string, selector: VersionSelector, opts: { metadata_only?: boolean } = {}): Promise<ObjectVersionRow | null> {
    return this.reads.use((db) => {
      let resolved = selector;
      if (selector.by === 'alias') {
        const alias = this.#get(db, 'SELECT digest FROM object_aliases WHERE project_id = ? AND object_id = ? AND alias = ?', [
          projectId,
          objectId,
          selector.alias,
        ]) as { digest: string } | undefined;
        resolved = { by: 'digest', digest: alias?.digest ?? selector.alias };
      }
      const base = `SELECT ${OBJECT_META_COLUMNS}, ${valColumn(opts.metadata_only)} FROM object_versions o
        WHERE o.project_id = @project AND o.object_id = @object`;
      // a live match wins; otherwise the most recently deleted one (which answers ObjectDeletedError)
      const order = 'ORDER BY CASE WHEN o.deleted_at IS NULL THEN 0 ELSE 1 END, o.deleted_at DESC LIMIT 1';
      const params = { project: projectId, object: objectId };
      if (resolved.by === 'latest') return (this.#stmt(db, `${base} AND o.is_latest = 1 LIMIT 1`).get(params) as ObjectVersionRow | undefined) ?? null;
      if (resolved.by === 'index') return (this.#stmt(db, `${base} AND o.version_index = @value`).get({ ...params, value: resolved.index }) as ObjectVersionRow | undefined) ?? null;
      if (resolved.by === 'digest') return (this.#stmt(db, `${base} AND o.digest = @value ${order}`).get({ ...params, value: resolved.digest }) as ObjectVersionRow | undefined) ?? null;
      return null;
    });
  }

  async query(q: ObjectsQuery): Promise<ObjectVersionRow[]> {
    const compiled = compileObjectsSelect(q, sqliteDialect);
    return this.reads.use((db) => this.#stmt(db, compiled.sql).all(bindNamed(compiled.params)) as ObjectVersionRow[]);
  }

  delete(projectId: string, objectId: string, selectors: VersionSelector[] | null, deletedAt: number): Promise<ObjectVersionRow[] | null> {
    return this.writer.submit((db) => {
      const targets = this.#liveTargets(db, projectId, objectId, selectors);
      if (targets === null || targets.length === 0) return null;
      const markDeleted = this.#stmt(db, 'UPDATE object_versions SET deleted_at = ?, is_latest = 0 WHERE project_id = ? AND object_id = ? AND version_index = ?');
      const dropTags = this.#stmt(db, 'DELETE FROM object_tags WHERE project_id = ? AND object_id = ? AND digest = ?');
      const dropAliases = this.#stmt(db, 'DELETE FROM object_aliases WHERE project_id = ? AND object_id = ? AND digest = ?');
      for (const row of targets) {
        markDeleted.run(deletedAt, projectId, objectId, row.version_index);
        dropTags.run(projectId, objectId, row.digest);
        dropAliases.run(projectId, objectId, row.digest);
      }
      if (targets.some((row) => row.is_latest === 1)) {
        const survivor = this.#stmt(db, SURVIVOR_SQL).get(projectId, objectId) as { version_index: number } | undefined;
        if (survivor) this.#stmt(db, SET_LATEST_SQL).run({ project: projectId, object: objectId, index: survivor.version_index });
      }
      return targets.map((row) => ({ ...row, deleted_at: deletedAt, is_latest: 0 }));
    });
  }

  /** The live versions the selectors name, deduplicated by index; null when any names none. */
  #liveTargets(db: Database.Database, projectId: string, objectId: string, selectors: VersionSelector[] | null): ObjectVersionRow[] | null {
    const select = `SELECT ${OBJECT_META_COLUMNS}, '{}' AS val FROM object_versions o WHERE o.project_id = @project AND o.object_id = @object`;
    const params = { project: projectId, object: objectId };
    if (selectors === null) return this.#stmt(db, `${select} AND o.deleted_at IS NULL ORDER BY o.version_index`).all(params) as ObjectVersionRow[];
    const found = new Map<number, ObjectVersionRow>();
    for (const selector of selectors) {
      const [by, value] =
        selector.by === 'latest' ? (['latest', null] as const)
        : selector.by === 'index' ? (['index', selector.index] as const)
        : (['digest', selector.by === 'digest' ? selector.digest : selector.alias] as const);
      const row = this.#stmt(db, `${select} AND ${LIVE_BY_SELECTOR[by]}`).get(by === 'latest' ? params : { ...params, value }) as
        | ObjectVersionRow
        | undefined;
      if (!row) return null;
      found.set(row.version_index, row);
    }
    return [...found.values()].sort((a, b) => a.version_index - b.version_index);
  }

  async labels(projectId: string, versions: Array<{ object_id: string; digest: string }>): Promise<Map<string, ObjectLabels>> {
    const out = new Map<string, ObjectLabels>();
    const objectIds = [...new Set(versions.map((v) => v.object_id))];
    if (objectIds.length === 0) return out;
    const wanted = new Set(versions.map((v) => `${v.object_id}:${v.digest}`));
    await this.reads.use((db) => {
      for (let i = 0; i < objectIds.length; i += 500) {
        const batch = objectIds.slice(i, i + 500);
        const where = `project_id = ? AND object_id IN (${placeholders(batch.length)})`;
        const tags = this.#stmt(db, `SELECT object_id, digest, tag AS name FROM object_tags WHERE ${where} ORDER BY tag`).all(projectId, ...batch);
        const aliases = this.#stmt(db, `SELECT object_id, digest, alias AS name FROM object_aliases WHERE ${where} ORDER BY alias`).all(projectId, ...batch);
        for (const [kind, rows] of [['tags', tags], ['aliases', aliases]] as const) {
          for (const row of rows as Array<{ object_id: string; digest: string; name: string }>) {
            const key = `${row.object_id}:${row.digest}`;
            if (!wanted.has(key)) continue;
            const entry = out.get(key) ?? { tags: [], aliases: [] };
            entry[kind].push(row.name);
            out.set(key, entry);
          }
        }
      }
    });
    return out;
  }

  addTags(projectId: string, objectId: string, digest: string, tags: string[], now: number): Promise<boolean> {
    return this.writer.submit((db) => {
      if (!this.#isLive(db, projectId, objectId, digest)) return false;
      const insert = this.#stmt(db, `INSERT INTO object_tags (project_id, object_id, digest, tag, created_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (project_id, object_id, digest, tag) DO NOTHING`);
      for (const tag of tags) insert.run(projectId, objectId, digest, tag, now);
      return true;
    });
  }

  removeTags(projectId: string, objectId: string, digest: string, tags: string[]): Promise<void> {
    return this.writer.submit((db) => {
      const remove = this.#stmt(db, 'DELETE FROM object_tags WHERE project_id = ? AND object_id = ? AND digest = ? AND tag = ?');
      for (const tag of tags) remove.run(projectId, objectId, digest, tag);
    });
  }

  setAliases(projectId: string, objectId: string, digest: string, aliases: string[], now: number): Promise<boolean> {
    return this.writer.submit((db) => {
      if (!this.#isLive(db, projectId, objectId, digest)) return false;
      const upsert = this.#stmt(db, `INSERT INTO object_aliases (project_id, object_id, alias, digest, created_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (project_id, object_id, alias) DO UPDATE SET digest = excluded.digest, created_at = excluded.created_at
        WHERE object_aliases.digest <> excluded.digest`);
      for (const alias of aliases) upsert.run(projectId, objectId, alias, digest, now);
      return true;
    });
  }

  removeAliases(projectId: string, objectId: string, aliases: string[]): Promise<void> {
    return this.writer.submit((db) => {
      const remove = this.#stmt(db, 'DELETE FROM object_aliases WHERE project_id = ? AND object_id = ? AND alias = ?');
      for (const alias of aliases) remove.run(projectId, objectId, alias);
    });
  }

  async listTags(projectId: string): Promise<string[]> {
    return this.reads.use((db) => this.#stmt(db, 'SELECT DISTINCT tag FROM object_tags WHERE project_id = ? ORDER BY tag').pluck().all(projectId) as string[]);
  }

  async listAliases(projectId: string): Promise<string[]> {
    return this.reads.use((db) => this.#stmt(db, 'SELECT DISTINCT alias FROM object_aliases WHERE project_id = ? ORDER BY alias').pluck().all(projectId) as string[]);
  }

  #isLive(db: Database.Database, projectId: string, objectId: string, digest: string): boolean {
    return this.#get(db, 'SELECT 1 AS one FROM object_versions WHERE project_id = ? AND object_id = ? AND digest = ? AND deleted_at IS NULL', [
      projectId,
      objectId,
      digest,
    ]) !== undefined;
  }

  #get(db: Database.Database, sql: string, params: unknown[]): unknown {
    return this.#stmt(db, sql).get(...params);
  }

  #stmt(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}

/** Distinct classes in a stable order: null (untyped) first, then ascending. */
function sortClasses(classes: Array<string | null>): Array<string | null> {
  return [...new Set(classes)].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
}
