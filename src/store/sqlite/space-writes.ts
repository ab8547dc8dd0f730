import type Database from 'better-sqlite3';

const MODES = ['none', 'full', 'incremental'] as const;

/**
 * One step of giving free pages back to the file system (docs/export.md "Retention"): with
 * `auto_vacuum = INCREMENTAL` (new stores are created so, sqlite/connection.ts) releases at most
 * `maxPages` of the free list; in the other modes only reports it (`none`: free pages are reused by
 * later writes, and only an offline `VACUUM` shrinks the file). Runs outside a group transaction,
 * so each step is one short turn of the writer thread.
 */
export function reclaimFreePages(
  db: Database.Database,
  args: { maxPages: number },
): { mode: (typeof MODES)[number]; released: number; remaining: number; pageSize: number } {
  const mode = MODES[db.pragma('auto_vacuum', { simple: true }) as number] ?? 'none';
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const before = db.pragma('freelist_count', { simple: true }) as number;
  if (mode === 'incremental' && before > 0) db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(args.maxPages))})`);
  const after = db.pragma('freelist_count', { simple: true }) as number;
  return { mode, released: before - after, remaining: after, pageSize };
}
