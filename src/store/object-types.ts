/**
 * Row and query types of the object and file stores (docs/spec/objects.md §2, §6). The store interfaces
 * themselves live in `types.ts`, which re-exports these.
 */
import type { ObjectVersionRow } from '../domain/rows.js';

export type { ObjectLabels, ObjectVersionRow } from '../domain/rows.js';

/** What `/obj/create` hands the store: the version minus what the store assigns. */
export type ObjectVersionInsert = Omit<ObjectVersionRow, 'version_index' | 'is_latest' | 'deleted_at'>;

export type ObjectCreateOutcome =
  /** A new version was added (`created`), or the digest was already live and became latest again (`existing`). */
  | { status: 'created' | 'existing'; version_index: number; created_at: number }
  /** §2.5 name/type binding: live versions of the same kind carry other base classes; nothing written. */
  | { status: 'collision'; existing_base_object_classes: Array<string | null> };

/** How a request names one version of an object (docs/spec/objects.md §2.6). */
export type VersionSelector =
  | { by: 'latest' }
  | { by: 'index'; index: number }
  | { by: 'digest'; digest: string }
  /** An alias of the object when one exists with this name, else an exact digest. */
  | { by: 'alias'; alias: string };

/** `ObjectVersionFilter` of docs/spec/objects.md §3.4; empty lists are dropped by the service. */
export interface ObjectsFilter {
  object_ids?: string[] | null;
  is_op?: boolean | null;
  latest_only?: boolean | null;
  base_object_classes?: string[] | null;
  exclude_base_object_classes?: string[] | null;
  leaf_object_classes?: string[] | null;
  tags?: string[] | null;
  /** `latest` matches the latest version. */
  aliases?: string[] | null;
}

export interface ObjectsSortKey {
  field: 'object_id' | 'created_at';
  direction: 'asc' | 'desc';
}

export interface ObjectsQuery {
  project_id: string;
  filter?: ObjectsFilter | null;
  /** null or [] = `created_at asc`; ties always break by `version_index asc`. */
  sort_by?: ObjectsSortKey[] | null;
  /** null = unlimited. */
  limit?: number | null;
  offset?: number | null;
  /** Leave `val` out (returned as `{}`). */
  metadata_only?: boolean;
}

/** A stored file (docs/spec/objects.md §6.1); its bytes live in chunks. */
export interface FileRecord {
  project_id: string;
  digest: string;
  name: string | null;
  size_bytes: number;
  chunk_count: number;
  created_at: number;
}

/** The outcome of committing a staged upload. */
export interface FileCommitOutcome {
  /** False when the project already had a file with this digest (the staged chunks were dropped). */
  created: boolean;
}

/**
 * What the SQLite writer thread answers for a commit: the outcome, or how many of the upload's
 * chunks were still there when some were missing (its store then throws lostUploadError).
 */
export type FileCommitAnswer = FileCommitOutcome | { created: false; remainingChunks: number };
