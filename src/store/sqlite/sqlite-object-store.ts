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

/** The SQLite object store: versions, tags and aliases (docs/spec/objects.md §2–3). Writes go through the group-commit writer. */
export class SqliteObjectStore implements ObjectStore {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  create(v: ObjectVersionInsert): Promise<ObjectCreateOutcome> {
    return this.writer.submit('objects.create', v);
  }

  async findVersion(
    projectId: string,
    objectId: string,
    selector: VersionSelector,
    opts: { metadata_only?: boolean } = {},
  ): Promise<ObjectVersionRow | null> {
    return this.reads.use((db) => {
      let resolved = selector;
      if (selector.by === 'alias') {
        const alias = this.#get(
          db,
          'SELECT digest FROM object_aliases WHERE project_id = ? AND object_id = ? AND alias = ?',
          [projectId, objectId, selector.alias],
        ) as { digest: string } | undefined;
        resolved = { by: 'digest', digest: alias?.digest ?? selector.alias };
      }
      const base = `SELECT ${OBJECT_META_COLUMNS}, ${valColumn(opts.metadata_only)} FROM object_versions o
        WHERE o.project_id = @project AND o.object_id = @object`;
      // a live match wins; otherwise the most recently deleted one (which answers ObjectDeletedError)
      const order = 'ORDER BY CASE WHEN o.deleted_at IS NULL THEN 0 ELSE 1 END, o.deleted_at DESC LIMIT 1';
      const params = { project: projectId, object: objectId };
      if (resolved.by === 'latest')
        return (
          (this.#stmt(db, `${base} AND o.is_latest = 1 LIMIT 1`).get(params) as ObjectVersionRow | undefined) ?? null
        );
      if (resolved.by === 'index')
        return (
          (this.#stmt(db, `${base} AND o.version_index = @value`).get({ ...params, value: resolved.index }) as
            ObjectVersionRow | undefined) ?? null
        );
      if (resolved.by === 'digest')
        return (
          (this.#stmt(db, `${base} AND o.digest = @value ${order}`).get({ ...params, value: resolved.digest }) as
            ObjectVersionRow | undefined) ?? null
        );
      return null;
    });
  }

  async query(q: ObjectsQuery): Promise<ObjectVersionRow[]> {
    const compiled = compileObjectsSelect(q, sqliteDialect);
    return this.reads.use((db) => this.#stmt(db, compiled.sql).all(bindNamed(compiled.params)) as ObjectVersionRow[]);
  }

  delete(
    projectId: string,
    objectId: string,
    selectors: VersionSelector[] | null,
    deletedAt: number,
  ): Promise<ObjectVersionRow[] | null> {
    return this.writer.submit('objects.delete', { projectId, objectId, selectors, deletedAt });
  }

  async labels(
    projectId: string,
    versions: Array<{ object_id: string; digest: string }>,
  ): Promise<Map<string, ObjectLabels>> {
    const out = new Map<string, ObjectLabels>();
    const objectIds = [...new Set(versions.map((v) => v.object_id))];
    if (objectIds.length === 0) return out;
    const wanted = new Set(versions.map((v) => `${v.object_id}:${v.digest}`));
    await this.reads.use((db) => {
      for (let i = 0; i < objectIds.length; i += 500) {
        const batch = objectIds.slice(i, i + 500);
        const where = `project_id = ? AND object_id IN (${placeholders(batch.length)})`;
        const tags = this.#stmt(
          db,
          `SELECT object_id, digest, tag AS name FROM object_tags WHERE ${where} ORDER BY tag`,
        ).all(projectId, ...batch);
        const aliases = this.#stmt(
          db,
          `SELECT object_id, digest, alias AS name FROM object_aliases WHERE ${where} ORDER BY alias`,
        ).all(projectId, ...batch);
        for (const [kind, rows] of [
          ['tags', tags],
          ['aliases', aliases],
        ] as const) {
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
    return this.writer.submit('objects.addTags', { projectId, objectId, digest, names: tags, now });
  }

  removeTags(projectId: string, objectId: string, digest: string, tags: string[]): Promise<void> {
    return this.writer.submit('objects.removeTags', { projectId, objectId, digest, names: tags });
  }

  setAliases(projectId: string, objectId: string, digest: string, aliases: string[], now: number): Promise<boolean> {
    return this.writer.submit('objects.setAliases', { projectId, objectId, digest, names: aliases, now });
  }

  removeAliases(projectId: string, objectId: string, aliases: string[]): Promise<void> {
    return this.writer.submit('objects.removeAliases', { projectId, objectId, names: aliases });
  }

  async listTags(projectId: string): Promise<string[]> {
    return this.reads.use(
      (db) =>
        this.#stmt(db, 'SELECT DISTINCT tag FROM object_tags WHERE project_id = ? ORDER BY tag')
          .pluck()
          .all(projectId) as string[],
    );
  }

  async listAliases(projectId: string): Promise<string[]> {
    return this.reads.use(
      (db) =>
        this.#stmt(db, 'SELECT DISTINCT alias FROM object_aliases WHERE project_id = ? ORDER BY alias')
          .pluck()
          .all(projectId) as string[],
    );
  }

  #get(db: Database.Database, sql: string, params: unknown[]): unknown {
    return this.#stmt(db, sql).get(...params);
  }

  #stmt(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}
