import type Database from 'better-sqlite3';
import type { FileCommitOutcome, FileRecord } from '../types.js';
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

/** Keeps the upload as the file's bytes unless the project already holds that digest (then drops it). */
export function commitFileUpload(
  db: Database.Database,
  a: UploadRef & { file: Omit<FileRecord, 'project_id'> },
): FileCommitOutcome {
  const { projectId, uploadId, file } = a;
  const exists = stmt(db, 'SELECT 1 AS one FROM files WHERE project_id = ? AND digest = ?').get(projectId, file.digest);
  if (exists) {
    discardFileUpload(db, a);
    return { created: false };
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
