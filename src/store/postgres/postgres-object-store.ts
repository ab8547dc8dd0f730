import type pg from 'pg';
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
import { postgresDialect } from './postgres-dialect.js';
import { compactParams, mapErrors } from './pg-support.js';
import { inTransaction, lockObject } from './transaction.js';

const INSERT_SQL = `
  INSERT INTO object_versions (project_id, object_id, version_index, digest, kind, base_object_class, leaf_object_class,
                               val, size_bytes, wb_user_id, created_at, deleted_at, is_latest)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, 1)`;

/** Makes version `$3` the only latest version of the object (-1: none). */
const SET_LATEST_SQL = `
  UPDATE object_versions SET is_latest = CASE WHEN version_index = $3 THEN 1 ELSE 0 END
  WHERE project_id = $1 AND object_id = $2 AND (is_latest = 1 OR version_index = $3)`;

/** Where latest goes when the latest version is deleted (§2.5). */
const SURVIVOR_SQL = `
  SELECT version_index FROM object_versions WHERE project_id = $1 AND object_id = $2 AND deleted_at IS NULL
  ORDER BY created_at DESC, version_index DESC LIMIT 1`;

/** Conditions naming one live version; delete resolves only `latest`, `vN` and digests (§3.3). */
const LIVE_BY_SELECTOR: Record<'latest' | 'index' | 'digest', string> = {
  latest: 'o.is_latest = 1',
  index: 'o.version_index = $3::integer AND o.deleted_at IS NULL',
  digest: 'o.digest = $3::text AND o.deleted_at IS NULL',
};

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Object versions, tags and aliases on PostgreSQL (docs/spec/objects.md §2–3), with the semantics of the
 * SQLite adapter. Every change to one object runs in a transaction holding that object's write
 * lock (a row of `object_write_locks`), so version numbering and the latest flag stay consistent when several nodes publish the
 * same object at once.
 */
export class PostgresObjectStore implements ObjectStore {
  constructor(private readonly pool: pg.Pool) {}

  create(v: ObjectVersionInsert): Promise<ObjectCreateOutcome> {
    return inTransaction(this.pool, async (db) => {
      await lockObject(db, v.project_id, v.object_id);
      const key = [v.project_id, v.object_id];
      const live = await first<{ version_index: number; created_at: number }>(
        db,
        `SELECT version_index, created_at FROM object_versions
        WHERE project_id = $1 AND object_id = $2 AND digest = $3 AND deleted_at IS NULL`,
        [...key, v.digest],
      );
      if (live) {
        // newest behaviour (§2.5): re-publishing live content moves latest to it
        await db.query(SET_LATEST_SQL, [...key, live.version_index]);
        return { status: 'existing', version_index: live.version_index, created_at: live.created_at };
      }
      const classes = (
        await db.query<{ base_object_class: string | null }>(
          `SELECT DISTINCT base_object_class FROM object_versions
        WHERE project_id = $1 AND object_id = $2 AND kind = $3 AND deleted_at IS NULL`,
          [...key, v.kind],
        )
      ).rows.map((row) => row.base_object_class);
      if (classes.some((c) => c !== v.base_object_class))
        return { status: 'collision', existing_base_object_classes: sortClasses(classes) };
      const max = await first<{ max: number | null }>(
        db,
        'SELECT MAX(version_index) AS max FROM object_versions WHERE project_id = $1 AND object_id = $2',
        key,
      );
      const versionIndex = (max?.max ?? -1) + 1;
      await db.query(SET_LATEST_SQL, [...key, -1]);
      await db.query(INSERT_SQL, [
        v.project_id,
        v.object_id,
        versionIndex,
        v.digest,
        v.kind,
        v.base_object_class,
        v.leaf_object_class,
        v.val,
        v.size_bytes,
        v.wb_user_id,
        v.created_at,
      ]);
      return { status: 'created', version_index: versionIndex, created_at: v.created_at };
    });
  }

  async findVersion(
    projectId: string,
    objectId: string,
    selector: VersionSelector,
    opts: { metadata_only?: boolean } = {},
  ): Promise<ObjectVersionRow | null> {
    return mapErrors(async () => {
      let resolved = selector;
      if (selector.by === 'alias') {
        const alias = await first<{ digest: string }>(
          this.pool,
          'SELECT digest FROM object_aliases WHERE project_id = $1 AND object_id = $2 AND alias = $3',
          [projectId, objectId, selector.alias],
        );
        resolved = { by: 'digest', digest: alias?.digest ?? selector.alias };
      }
      const base = `SELECT ${OBJECT_META_COLUMNS}, ${valColumn(opts.metadata_only)} FROM object_versions o
        WHERE o.project_id = $1 AND o.object_id = $2`;
      // a live match wins; otherwise the most recently deleted one (which answers ObjectDeletedError)
      const order = 'ORDER BY CASE WHEN o.deleted_at IS NULL THEN 0 ELSE 1 END, o.deleted_at DESC LIMIT 1';
      const params = [projectId, objectId];
      if (resolved.by === 'latest')
        return first<ObjectVersionRow>(this.pool, `${base} AND o.is_latest = 1 LIMIT 1`, params);
      if (resolved.by === 'index')
        return first<ObjectVersionRow>(this.pool, `${base} AND o.version_index = $3::integer`, [
          ...params,
          resolved.index,
        ]);
      if (resolved.by === 'digest')
        return first<ObjectVersionRow>(this.pool, `${base} AND o.digest = $3 ${order}`, [...params, resolved.digest]);
      return null;
    });
  }

  async query(q: ObjectsQuery): Promise<ObjectVersionRow[]> {
    const compiled = compileObjectsSelect(q, postgresDialect);
    const { text, values } = compactParams(compiled.sql, compiled.params);
    return mapErrors(async () => (await this.pool.query<ObjectVersionRow>(text, values)).rows);
  }

  delete(
    projectId: string,
    objectId: string,
    selectors: VersionSelector[] | null,
    deletedAt: number,
  ): Promise<ObjectVersionRow[] | null> {
    return inTransaction(this.pool, async (db) => {
      await lockObject(db, projectId, objectId);
      const targets = await this.#liveTargets(db, projectId, objectId, selectors);
      if (targets === null || targets.length === 0) return null;
      const indexes = targets.map((row) => row.version_index);
      const digests = targets.map((row) => row.digest);
      await db.query(
        'UPDATE object_versions SET deleted_at = $3, is_latest = 0 WHERE project_id = $1 AND object_id = $2 AND version_index = ANY($4::integer[])',
        [projectId, objectId, deletedAt, indexes],
      );
      await db.query('DELETE FROM object_tags WHERE project_id = $1 AND object_id = $2 AND digest = ANY($3::text[])', [
        projectId,
        objectId,
        digests,
      ]);
      await db.query(
        'DELETE FROM object_aliases WHERE project_id = $1 AND object_id = $2 AND digest = ANY($3::text[])',
        [projectId, objectId, digests],
      );
      if (targets.some((row) => row.is_latest === 1)) {
        const survivor = await first<{ version_index: number }>(db, SURVIVOR_SQL, [projectId, objectId]);
        if (survivor) await db.query(SET_LATEST_SQL, [projectId, objectId, survivor.version_index]);
      }
      return targets.map((row) => ({ ...row, deleted_at: deletedAt, is_latest: 0 }));
    });
  }

  /** The live versions the selectors name, deduplicated by index; null when any names none. */
  async #liveTargets(
    db: Queryable,
    projectId: string,
    objectId: string,
    selectors: VersionSelector[] | null,
  ): Promise<ObjectVersionRow[] | null> {
    const select = `SELECT ${OBJECT_META_COLUMNS}, '{}' AS val FROM object_versions o WHERE o.project_id = $1 AND o.object_id = $2`;
    const params = [projectId, objectId];
    if (selectors === null)
      return (await db.query<ObjectVersionRow>(`${select} AND o.deleted_at IS NULL ORDER BY o.version_index`, params))
        .rows;
    const found = new Map<number, ObjectVersionRow>();
    for (const selector of selectors) {
      const [by, value] =
        selector.by === 'latest'
          ? (['latest', null] as const)
          : selector.by === 'index'
            ? (['index', selector.index] as const)
            : (['digest', selector.by === 'digest' ? selector.digest : selector.alias] as const);
      const row = await first<ObjectVersionRow>(
        db,
        `${select} AND ${LIVE_BY_SELECTOR[by]}`,
        by === 'latest' ? params : [...params, value],
      );
      if (!row) return null;
      found.set(row.version_index, row);
    }
    return [...found.values()].sort((a, b) => a.version_index - b.version_index);
  }

  async labels(
    projectId: string,
    versions: Array<{ object_id: string; digest: string }>,
  ): Promise<Map<string, ObjectLabels>> {
    const out = new Map<string, ObjectLabels>();
    const objectIds = [...new Set(versions.map((v) => v.object_id))];
    if (objectIds.length === 0) return out;
    const wanted = new Set(versions.map((v) => `${v.object_id}:${v.digest}`));
    const where = 'project_id = $1 AND object_id = ANY($2::text[])';
    const [tags, aliases] = await mapErrors(() =>
      Promise.all([
        this.pool.query<{ object_id: string; digest: string; name: string }>(
          `SELECT object_id, digest, tag AS name FROM object_tags WHERE ${where} ORDER BY tag`,
          [projectId, objectIds],
        ),
        this.pool.query<{ object_id: string; digest: string; name: string }>(
          `SELECT object_id, digest, alias AS name FROM object_aliases WHERE ${where} ORDER BY alias`,
          [projectId, objectIds],
        ),
      ]),
    );
    for (const [kind, result] of [
      ['tags', tags],
      ['aliases', aliases],
    ] as const) {
      for (const row of result.rows) {
        const key = `${row.object_id}:${row.digest}`;
        if (!wanted.has(key)) continue;
        const entry = out.get(key) ?? { tags: [], aliases: [] };
        entry[kind].push(row.name);
        out.set(key, entry);
      }
    }
    return out;
  }

  addTags(projectId: string, objectId: string, digest: string, tags: string[], now: number): Promise<boolean> {
    return inTransaction(this.pool, async (db) => {
      await lockObject(db, projectId, objectId);
      if (!(await isLive(db, projectId, objectId, digest))) return false;
      await db.query(
        `INSERT INTO object_tags (project_id, object_id, digest, tag, created_at)
        SELECT $1, $2, $3, t.tag, $5 FROM unnest($4::text[]) AS t(tag) ON CONFLICT (project_id, object_id, digest, tag) DO NOTHING`,
        [projectId, objectId, digest, [...new Set(tags)], now],
      );
      return true;
    });
  }

  async removeTags(projectId: string, objectId: string, digest: string, tags: string[]): Promise<void> {
    await mapErrors(() =>
      this.pool.query(
        'DELETE FROM object_tags WHERE project_id = $1 AND object_id = $2 AND digest = $3 AND tag = ANY($4::text[])',
        [projectId, objectId, digest, tags],
      ),
    );
  }

  setAliases(projectId: string, objectId: string, digest: string, aliases: string[], now: number): Promise<boolean> {
    return inTransaction(this.pool, async (db) => {
      await lockObject(db, projectId, objectId);
      if (!(await isLive(db, projectId, objectId, digest))) return false;
      await db.query(
        `INSERT INTO object_aliases (project_id, object_id, alias, digest, created_at)
        SELECT $1, $2, a.alias, $3, $5 FROM unnest($4::text[]) AS a(alias)
        ON CONFLICT (project_id, object_id, alias) DO UPDATE SET digest = excluded.digest, created_at = excluded.created_at
        WHERE object_aliases.digest <> excluded.digest`,
        [projectId, objectId, digest, [...new Set(aliases)], now],
      );
      return true;
    });
  }

  async removeAliases(projectId: string, objectId: string, aliases: string[]): Promise<void> {
    await mapErrors(() =>
      this.pool.query(
        'DELETE FROM object_aliases WHERE project_id = $1 AND object_id = $2 AND alias = ANY($3::text[])',
        [projectId, objectId, aliases],
      ),
    );
  }

  async listTags(projectId: string): Promise<string[]> {
    const { rows } = await mapErrors(() =>
      this.pool.query<{ tag: string }>('SELECT DISTINCT tag FROM object_tags WHERE project_id = $1 ORDER BY tag', [
        projectId,
      ]),
    );
    return rows.map((row) => row.tag);
  }

  async listAliases(projectId: string): Promise<string[]> {
    const { rows } = await mapErrors(() =>
      this.pool.query<{ alias: string }>(
        'SELECT DISTINCT alias FROM object_aliases WHERE project_id = $1 ORDER BY alias',
        [projectId],
      ),
    );
    return rows.map((row) => row.alias);
  }
}

async function first<R extends pg.QueryResultRow>(db: Queryable, sql: string, params: unknown[]): Promise<R | null> {
  const { rows } = await db.query<R>(sql, params);
  return rows[0] ?? null;
}

async function isLive(db: Queryable, projectId: string, objectId: string, digest: string): Promise<boolean> {
  return (
    (await first(
      db,
      'SELECT 1 AS one FROM object_versions WHERE project_id = $1 AND object_id = $2 AND digest = $3 AND deleted_at IS NULL',
      [projectId, objectId, digest],
    )) !== null
  );
}

/** Distinct classes in a stable order: null (untyped) first, then ascending. */
function sortClasses(classes: Array<string | null>): Array<string | null> {
  return [...new Set(classes)].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
}
