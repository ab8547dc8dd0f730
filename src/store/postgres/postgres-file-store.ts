import type pg from 'pg';
import type { FileCommitOutcome, FileRecord, FileStore } from '../types.js';
import type { FileCommitAnswer } from '../object-types.js';
import { lostUploadError, missingChunkError } from '../sql/missing-chunk.js';
import { mapErrors } from './pg-support.js';
import { inTransaction } from './transaction.js';
import type { ReadPool } from './read-replicas.js';

const FILE_COLUMNS = 'project_id, digest, name, size_bytes, chunk_count, created_at';

/**
 * Files on PostgreSQL (docs/spec/objects.md §6), laid out as in the SQLite adapter: a `files` row per
 * (project, digest) pointing at the chunks of the upload that first stored those bytes. Chunks are
 * written and read one at a time, so neither side holds a whole file in memory. Two nodes
 * committing the same digest at once are settled by the primary key: one keeps its chunks, the
 * other drops them.
 */
export class PostgresFileStore implements FileStore {
  constructor(
    private readonly pool: pg.Pool,
    /** Reads outside a write: the primary, or a caught-up replica (read-replicas.ts). */
    private readonly reads: ReadPool,
  ) {}

  async stageChunk(projectId: string, uploadId: string, seq: number, data: Uint8Array): Promise<void> {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await mapErrors(() =>
      this.pool.query('INSERT INTO file_chunks (project_id, blob_id, seq, data) VALUES ($1, $2, $3, $4)', [
        projectId,
        uploadId,
        seq,
        bytes,
      ]),
    );
  }

  async commitUpload(
    projectId: string,
    uploadId: string,
    file: Omit<FileRecord, 'project_id'>,
  ): Promise<FileCommitOutcome> {
    const answer = await inTransaction(this.pool, async (db): Promise<FileCommitAnswer> => {
      const dropStaged = () =>
        db.query('DELETE FROM file_chunks WHERE project_id = $1 AND blob_id = $2', [projectId, uploadId]);
      // the project has these bytes already: the staged chunks are not needed, whatever is left of them
      const existing = await db.query('SELECT 1 FROM files WHERE project_id = $1 AND digest = $2', [
        projectId,
        file.digest,
      ]);
      if ((existing.rowCount ?? 0) > 0) {
        await dropStaged();
        return { created: false };
      }
      // every chunk the file names must be there, and stay until this commits: a project deletion
      // that takes them waits for these row locks, and it deletes files only after their chunks
      const staged = await db.query('SELECT seq FROM file_chunks WHERE project_id = $1 AND blob_id = $2 FOR SHARE', [
        projectId,
        uploadId,
      ]);
      const remainingChunks = staged.rowCount ?? 0;
      if (remainingChunks !== file.chunk_count) {
        await dropStaged();
        return { created: false, remainingChunks };
      }
      const inserted = await db.query(
        `INSERT INTO files (project_id, digest, blob_id, name, size_bytes, chunk_count, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (project_id, digest) DO NOTHING`,
        [projectId, file.digest, uploadId, file.name, file.size_bytes, file.chunk_count, file.created_at],
      );
      if (inserted.rowCount === 1) return { created: true };
      // another node committed the same digest meanwhile
      await dropStaged();
      return { created: false };
    });
    if ('remainingChunks' in answer) throw lostUploadError(file.digest, answer.remainingChunks, file.chunk_count);
    return answer;
  }

  async discardUpload(projectId: string, uploadId: string): Promise<void> {
    await mapErrors(() =>
      this.pool.query('DELETE FROM file_chunks WHERE project_id = $1 AND blob_id = $2', [projectId, uploadId]),
    );
  }

  async find(projectId: string, digest: string): Promise<FileRecord | null> {
    const { rows } = await mapErrors(() =>
      this.reads.query<FileRecord>(`SELECT ${FILE_COLUMNS} FROM files WHERE project_id = $1 AND digest = $2`, [
        projectId,
        digest,
      ]),
    );
    return rows[0] ?? null;
  }

  async *readChunks(projectId: string, digest: string): AsyncGenerator<Buffer> {
    const { rows } = await mapErrors(() =>
      this.reads.query<{ blob_id: string; chunk_count: number }>(
        'SELECT blob_id, chunk_count FROM files WHERE project_id = $1 AND digest = $2',
        [projectId, digest],
      ),
    );
    const file = rows[0];
    if (!file) return;
    for (let seq = 0; seq < file.chunk_count; seq += 1) {
      // one short query per chunk: no connection stays busy while the client drains the response
      const chunk = await mapErrors(() =>
        this.reads.query<{ data: Buffer }>(
          'SELECT data FROM file_chunks WHERE project_id = $1 AND blob_id = $2 AND seq = $3',
          [projectId, file.blob_id, seq],
        ),
      );
      if (chunk.rows.length === 0) throw await missingChunkError(() => this.find(projectId, digest), digest, seq);
      yield chunk.rows[0]!.data;
    }
  }

  async totalSize(projectId: string): Promise<number> {
    const { rows } = await mapErrors(() =>
      this.reads.query<{ total: number }>(
        'SELECT COALESCE(SUM(size_bytes), 0) AS total FROM files WHERE project_id = $1',
        [projectId],
      ),
    );
    return rows[0]!.total;
  }
}
