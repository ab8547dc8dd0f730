import { Type, type Static } from '@sinclair/typebox';
import { strict } from './common.js';

/** Files models (docs/spec/objects.md §6). `/file/create` is multipart and read by the route itself. */

/**
 * The `/file/create` form, for the OpenAPI document. The route streams the parts itself, so the
 * schema leaves out `type`: Fastify validates the (absent) parsed body as null, which it accepts.
 */
export const FileCreateForm = Type.Unsafe<{ project_id: string; file: string; expected_digest?: string }>({
  title: 'Body_file_create_file_create_post',
  properties: {
    project_id: { type: 'string' },
    file: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: 'The file bytes; the part filename is kept as the file name.',
    },
    expected_digest: { type: 'string', description: 'Optional; 409 when it differs from the digest of the bytes.' },
  },
  required: ['project_id', 'file'],
});

export const FileCreateRes = Type.Object({ digest: Type.String() });

export const FileContentReadReq = Type.Object({ project_id: Type.String(), digest: Type.String() }, strict);
export type FileContentReadReq = Static<typeof FileContentReadReq>;

export const FilesStatsReq = Type.Object({ project_id: Type.String() }, strict);
export type FilesStatsReq = Static<typeof FilesStatsReq>;
export const FilesStatsRes = Type.Object({ total_size_bytes: Type.Integer() });
