import type { ObjectLabels, ObjectVersionRow } from './rows.js';
import { formatMicros } from './time.js';

export interface ObjectViewOptions {
  include_storage_size?: boolean;
  /** Labels of this version; undefined = not requested (`tags`/`aliases` null). */
  labels?: ObjectLabels;
}

/**
 * A stored version as `ObjSchema` JSON text (docs/spec/objects.md §2.1). The canonical value text is
 * spliced in verbatim (our choice, §2.1) so floats keep their form (`1.0` stays `1.0`).
 */
export function objectVersionJson(row: ObjectVersionRow, opts: ObjectViewOptions = {}): string {
  const head = JSON.stringify({
    project_id: row.project_id,
    object_id: row.object_id,
    created_at: formatMicros(row.created_at),
    deleted_at: row.deleted_at === null ? null : formatMicros(row.deleted_at),
    digest: row.digest,
    version_index: row.version_index,
    is_latest: row.is_latest,
    kind: row.kind,
    base_object_class: row.base_object_class,
    leaf_object_class: row.leaf_object_class,
  });
  const labels = opts.labels;
  const tail = JSON.stringify({
    wb_user_id: row.wb_user_id,
    size_bytes: opts.include_storage_size ? row.size_bytes : null,
    tags: labels ? labels.tags : null,
    // the virtual `latest` alias comes first on the latest version (§3.5)
    aliases: labels ? (row.is_latest === 1 ? ['latest', ...labels.aliases] : labels.aliases) : null,
  });
  return `${head.slice(0, -1)},"val":${row.val},${tail.slice(1)}`;
}
