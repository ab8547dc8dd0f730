import type { ObjectsFilter, ObjectsQuery, ObjectsSortKey } from '../object-types.js';
import type { CompiledSql } from './core/sql-tag.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';

/** Columns of an object version row as the stores return it; `val` is chosen per query. */
export const OBJECT_META_COLUMNS =
  'o.project_id, o.object_id, o.digest, o.version_index, o.is_latest, o.kind, o.base_object_class, o.leaf_object_class, ' +
  'o.size_bytes, o.wb_user_id, o.created_at, o.deleted_at';

/** The `val` column, or the empty object for metadata-only reads (§3.2, §3.4). */
export function valColumn(metadataOnly: boolean | undefined): string {
  return metadataOnly ? `'{}' AS val` : 'o.val';
}

function filterConditions(filter: ObjectsFilter, d: SqlDialect, p: SqlParams): string[] {
  const out: string[] = [];
  const nonEmpty = (values: string[] | null | undefined): values is string[] => values != null && values.length > 0;
  if (nonEmpty(filter.object_ids)) out.push(d.inList('o.object_id', filter.object_ids, p));
  if (filter.is_op != null) out.push(`o.kind = ${p.add(filter.is_op ? 'op' : 'object')}`);
  if (filter.latest_only) out.push('o.is_latest = 1');
  if (nonEmpty(filter.base_object_classes)) out.push(d.inList('o.base_object_class', filter.base_object_classes, p));
  // our choice (§3.4): versions without a base class survive the exclusion
  if (nonEmpty(filter.exclude_base_object_classes)) {
    out.push(
      `(o.base_object_class IS NULL OR NOT (${d.inList('o.base_object_class', filter.exclude_base_object_classes, p)}))`,
    );
  }
  if (nonEmpty(filter.leaf_object_classes)) out.push(d.inList('o.leaf_object_class', filter.leaf_object_classes, p));
  if (nonEmpty(filter.tags)) {
    out.push(
      `EXISTS (SELECT 1 FROM object_tags t WHERE t.project_id = o.project_id AND t.object_id = o.object_id ` +
        `AND t.digest = o.digest AND ${d.inList('t.tag', filter.tags, p)})`,
    );
  }
  if (nonEmpty(filter.aliases)) out.push(aliasCondition(filter.aliases, d, p));
  return out;
}

/** A version is the target of any listed alias; the virtual `latest` alias matches the latest version (§3.4). */
function aliasCondition(aliases: string[], d: SqlDialect, p: SqlParams): string {
  const named = aliases.filter((alias) => alias !== 'latest');
  const parts = aliases.includes('latest') ? ['o.is_latest = 1'] : [];
  if (named.length > 0) {
    parts.push(
      `EXISTS (SELECT 1 FROM object_aliases a WHERE a.project_id = o.project_id AND a.object_id = o.object_id ` +
        `AND a.digest = o.digest AND ${d.inList('a.alias', named, p)})`,
    );
  }
  return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
}

/** §3.4: only `object_id` and `created_at` sort; remaining ties go by `version_index asc`. */
function orderBy(sortBy: ObjectsSortKey[] | null | undefined): string {
  const terms = (sortBy ?? []).map((key) => `o.${key.field} ${key.direction === 'desc' ? 'DESC' : 'ASC'}`);
  if (terms.length === 0) terms.push('o.created_at ASC');
  terms.push('o.version_index ASC');
  return terms.join(', ');
}

/** SELECT of live object versions for `/objs/query` (docs/spec/objects.md §3.4). */
export function compileObjectsSelect(q: ObjectsQuery, d: SqlDialect): CompiledSql {
  const p = new SqlParams(d);
  const conditions = [`o.project_id = ${p.add(q.project_id)}`, 'o.deleted_at IS NULL'];
  if (q.filter) conditions.push(...filterConditions(q.filter, d, p));
  const sql =
    `SELECT ${OBJECT_META_COLUMNS}, ${valColumn(q.metadata_only)} FROM object_versions o ` +
    `WHERE ${conditions.join(' AND ')} ORDER BY ${orderBy(q.sort_by)} ${d.limitOffset(q.limit ?? null, q.offset ?? null, p)}`;
  return { sql, params: p.values };
}
