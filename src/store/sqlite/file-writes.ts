import type Database from 'better-sqlite3';
import type { FileCommitAnswer } from '../object-types.js';
import type { FileRecord } from '../types.js';
import { writerStatement as stmt } from './statements.js';

/** The file store's writes (docs/spec/objects.md §6), run on the writer connection in the writer thread. */

export interface UploadRef {
  projectId: string;
  uploadId: string;
}

export function stageFileChunk(db: Database.Database, a: UploadRef & { seq: number; data: Uint8Array }): void {
  stmt(db, 'INSERT INTO file_chunks (project_id, blob_id, seq, data) VALUES (?, ?, ?, ?)').run(
    a.projectId,
    a.uploadId,
    a.seq,
    a.data,
  );
}

/**
 * Keeps the upload as the file's bytes unless the project already holds that digest (then drops it),
 * or unless some of its chunks are gone (then drops the rest and says how many were left).
 */
export function commitFileUpload(
  db: Database.Database,
  a: UploadRef & { file: Omit<FileRecord, 'project_id'> },
): FileCommitAnswer {
  const { projectId, uploadId, file } = a;
  const exists = stmt(db, 'SELECT 1 AS one FROM files WHERE project_id = ? AND digest = ?').get(projectId, file.digest);
  if (exists) {
    discardFileUpload(db, a);
    return { created: false };
  }
  // every chunk the file names must be there: a project deletion may have taken them meanwhile
  const staged = stmt(db, 'SELECT COUNT(*) AS n FROM file_chunks WHERE project_id = ? AND blob_id = ?').get(
    projectId,
    uploadId,
  ) as { n: number };
  if (staged.n !== file.chunk_count) {
    discardFileUpload(db, a);
    return { created: false, remainingChunks: staged.n };
  }
  stmt(
    db,
    `INSERT INTO files (project_id, digest, blob_id, name, size_bytes, chunk_count, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(projectId, file.digest, uploadId, file.name, file.size_bytes, file.chunk_count, file.created_at);
  return { created: true };
}

export function discardFileUpload(db: Database.Database, a: UploadRef): void {
  stmt(db, 'DELETE FROM file_chunks WHERE project_id = ? AND blob_id = ?').run(a.projectId, a.uploadId);
}
