import type Database from 'better-sqlite3';
import type { FileCommitOutcome, FileRecord, FileStore } from '../types.js';
import { lostUploadError, missingChunkError } from '../sql/missing-chunk.js';
import type { ReadPool } from './read-pool.js';
import { StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

const FILE_COLUMNS = 'project_id, digest, name, size_bytes, chunk_count, created_at';

/**
 * Files in SQLite (docs/spec/objects.md §6): a `files` row per (project, digest) pointing at the chunks
 * of the upload that first stored those bytes. Chunks are written and read one at a time so
 * neither side holds a whole file in memory.
 */
export class SqliteFileStore implements FileStore {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  stageChunk(projectId: string, uploadId: string, seq: number, data: Uint8Array): Promise<void> {
    return this.writer.submit('files.stageChunk', { projectId, uploadId, seq, data });
  }

  async commitUpload(
    projectId: string,
    uploadId: string,
    file: Omit<FileRecord, 'project_id'>,
  ): Promise<FileCommitOutcome> {
    const answer = await this.writer.submit('files.commitUpload', { projectId, uploadId, file });
    if ('remainingChunks' in answer) throw lostUploadError(file.digest, answer.remainingChunks, file.chunk_count);
    return answer;
  }

  discardUpload(projectId: string, uploadId: string): Promise<void> {
    return this.writer.submit('files.discardUpload', { projectId, uploadId });
  }

  async find(projectId: string, digest: string): Promise<FileRecord | null> {
    return this.reads.use(
      (db) =>
        (this.#stmt(db, `SELECT ${FILE_COLUMNS} FROM files WHERE project_id = ? AND digest = ?`).get(
          projectId,
          digest,
        ) as FileRecord | undefined) ?? null,
    );
  }

  async *readChunks(projectId: string, digest: string): AsyncGenerator<Buffer> {
    const file = await this.reads.use(
      (db) =>
        this.#stmt(db, 'SELECT blob_id, chunk_count FROM files WHERE project_id = ? AND digest = ?').get(
          projectId,
          digest,
        ) as { blob_id: string; chunk_count: number } | undefined,
    );
    if (!file) return;
    const sql = 'SELECT data FROM file_chunks WHERE project_id = ? AND blob_id = ? AND seq = ?';
    for (let seq = 0; seq < file.chunk_count; seq += 1) {
      // one short read per chunk: no read connection stays busy while the client drains the response
      const row = await this.reads.use(
        (db) => this.#stmt(db, sql).get(projectId, file.blob_id, seq) as { data: Buffer } | undefined,
      );
      if (!row) throw await missingChunkError(() => this.find(projectId, digest), digest, seq);
      yield row.data;
    }
  }

  async totalSize(projectId: string): Promise<number> {
    return this.reads.use(
      (db) =>
        (
          this.#stmt(db, 'SELECT COALESCE(SUM(size_bytes), 0) AS total FROM files WHERE project_id = ?').get(
            projectId,
          ) as { total: number }
        ).total,
    );
  }

  #stmt(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}
