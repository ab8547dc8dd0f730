import { StreamDigest } from '../domain/digest.js';
import { uuidv7 } from '../domain/ids.js';
import { nowMicros } from '../domain/time.js';
import { RequestValidationError } from '../errors/app-error.js';
import { DigestMismatchError, ObjectNotFoundError } from '../errors/object-errors.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import type { ProjectAccess } from './project-access.js';

/** Size of the pieces file bytes are stored in; bounds the memory one upload or download holds. */
export const FILE_CHUNK_BYTES = 1024 * 1024;

/** One part of a `/file/create` form, in arrival order. A file part's bytes must be consumed before the next part. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string | null; bytes: AsyncIterable<Buffer> };

interface StagedUpload {
  uploadId: string;
  digest: string;
  size: number;
  chunkCount: number;
}

/** Content-addressed files (docs/spec/objects.md §6.1–6.3). */
export class FileService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  /**
   * Streams the `file` part into the store in chunks while hashing it. Both official clients send
   * `project_id` before the file; a file arriving first is held in memory until the project is
   * known (the size limit still applies).
   */
  async fileCreate(caller: Caller, parts: AsyncIterable<UploadPart>): Promise<{ digest: string }> {
    const fields: Record<string, string> = {};
    let staged: StagedUpload | null = null;
    let early: { filename: string | null; chunks: Buffer[] } | null = null;
    let filename: string | null = null;
    try {
      for await (const part of parts) {
        if (part.kind === 'field') {
          if (!(part.name in fields)) fields[part.name] = part.value;
        } else if (part.name !== 'file' || staged !== null || early !== null) {
          for await (const _ of part.bytes); // drain parts we do not keep
        } else if (fields.project_id !== undefined) {
          await this.access.assertCanWrite(caller, fields.project_id);
          filename = part.filename;
          staged = await this.#stage(fields.project_id, part.bytes);
        } else {
          const chunks: Buffer[] = [];
          for await (const chunk of part.bytes) chunks.push(chunk);
          early = { filename: part.filename, chunks };
        }
      }
      const missing = [
        ...(fields.project_id === undefined ? ['project_id'] : []),
        ...(staged === null && early === null ? ['file'] : []),
      ];
      if (missing.length > 0)
        throw new RequestValidationError(
          missing.map((name) => ({ loc: ['body', name], msg: 'Field required', type: 'missing' })),
        );
      const projectId = fields.project_id!; // in `missing` above when absent
      if (staged === null && early !== null) {
        await this.access.assertCanWrite(caller, projectId);
        filename = early.filename;
        staged = await this.#stage(projectId, iterate(early.chunks));
      }
      return await this.#commit(projectId, staged!, filename, fields.expected_digest);
    } catch (error) {
      if (staged !== null && fields.project_id !== undefined)
        await this.store.files.discardUpload(fields.project_id, staged.uploadId);
      throw error;
    }
  }

  /** Stores bytes the server itself produced (v2 object APIs: `obj.py` sources) exactly as `/file/create` would. */
  async createFromBytes(caller: Caller, projectId: string, name: string, bytes: Buffer): Promise<{ digest: string }> {
    await this.access.assertCanWrite(caller, projectId);
    const staged = await this.#stage(projectId, iterate([bytes]));
    try {
      return await this.#commit(projectId, staged, name, undefined);
    } catch (error) {
      await this.store.files.discardUpload(projectId, staged.uploadId);
      throw error;
    }
  }

  async #commit(
    projectId: string,
    staged: StagedUpload,
    filename: string | null,
    expected: string | undefined,
  ): Promise<{ digest: string }> {
    // §1.7: an empty field counts as absent (form encoders send "" for a missing optional)
    if (expected !== undefined && expected !== '' && expected !== staged.digest)
      throw new DigestMismatchError('file', expected, staged.digest);
    await this.store.files.commitUpload(projectId, staged.uploadId, {
      digest: staged.digest,
      name: filename,
      size_bytes: staged.size,
      chunk_count: staged.chunkCount,
      created_at: nowMicros(),
    });
    return { digest: staged.digest };
  }

  /** Writes the bytes as staged chunks of FILE_CHUNK_BYTES; drops what was staged when reading fails. */
  async #stage(projectId: string, bytes: AsyncIterable<Buffer>): Promise<StagedUpload> {
    const uploadId = uuidv7();
    const hash = new StreamDigest();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let chunkCount = 0;
    const flush = async (): Promise<void> => {
      const chunk = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await this.store.files.stageChunk(projectId, uploadId, chunkCount, chunk);
      chunkCount += 1;
    };
    try {
      for await (const piece of bytes) {
        hash.update(piece);
        let rest = piece;
        while (pendingBytes + rest.byteLength >= FILE_CHUNK_BYTES) {
          const take = FILE_CHUNK_BYTES - pendingBytes;
          pending.push(rest.subarray(0, take));
          pendingBytes += take;
          rest = rest.subarray(take);
          await flush();
        }
        if (rest.byteLength > 0) {
          pending.push(rest);
          pendingBytes += rest.byteLength;
        }
      }
      if (pendingBytes > 0) await flush();
    } catch (error) {
      if (chunkCount > 0) await this.store.files.discardUpload(projectId, uploadId);
      throw error;
    }
    return { uploadId, digest: hash.finish(), size: hash.size, chunkCount };
  }

  /** The file's size and bytes; 404 before anything is sent when the project has no such file (§6.2). */
  async fileContent(
    caller: Caller,
    req: { project_id: string; digest: string },
  ): Promise<{ size: number; chunks: AsyncIterable<Buffer> }> {
    this.access.assertCanRead(caller, req.project_id);
    const file = await this.store.files.find(req.project_id, req.digest);
    if (file === null) throw new ObjectNotFoundError(`File with digest ${req.digest} not found`);
    return { size: file.size_bytes, chunks: this.store.files.readChunks(req.project_id, req.digest) };
  }

  async filesStats(caller: Caller, req: { project_id: string }): Promise<{ total_size_bytes: number }> {
    this.access.assertCanRead(caller, req.project_id);
    return { total_size_bytes: await this.store.files.totalSize(req.project_id) };
  }
}

async function* iterate(chunks: Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}
