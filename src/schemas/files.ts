import { Type, type Static } from '@sinclair/typebox';
import { strict } from './common.js';

/** Files models (objects spec §6). `/file/create` is multipart and read by the route itself. */

export const FileCreateRes = Type.Object({ digest: Type.String() });

export const FileContentReadReq = Type.Object({ project_id: Type.String(), digest: Type.String() }, strict);
export type FileContentReadReq = Static<typeof FileContentReadReq>;

export const FilesStatsReq = Type.Object({ project_id: Type.String() }, strict);
export type FilesStatsReq = Static<typeof FilesStatsReq>;
export const FilesStatsRes = Type.Object({ total_size_bytes: Type.Integer() });
