import { ConflictError } from '../../errors/app-error.js';
import { ObjectNotFoundError } from '../../errors/object-errors.js';
import type { FileRecord } from '../types.js';

/**
 * What a file read answers when a chunk is gone, on either store: the file was deleted while it was
 * read, or its project's deletion (file_chunks, then files, in batches) took the chunks of an upload
 * committed meanwhile. Either way the bytes are not there to serve: not found, with what is missing,
 * rather than a 500 on every read. `find` looks the file up again.
 */
export async function missingChunkError(
  find: () => Promise<FileRecord | null>,
  digest: string,
  seq: number,
): Promise<ObjectNotFoundError> {
  if ((await find()) === null)
    return new ObjectNotFoundError(`File with digest ${digest} was deleted while it was read`);
  return new ObjectNotFoundError(`File with digest ${digest} has lost its contents: missing chunk ${seq}`);
}

/**
 * What committing an upload answers when some of its staged chunks are gone (its project was deleted
 * while it was uploaded, or it was discarded): nothing is stored, rather than a file without bytes.
 */
export function lostUploadError(digest: string, remaining: number, expected: number): ConflictError {
  return new ConflictError(
    `The upload of file ${digest} lost its contents before it was stored (${remaining} of ${expected} chunks remain; ` +
      'was its project deleted meanwhile?): nothing was stored, upload it again',
  );
}
