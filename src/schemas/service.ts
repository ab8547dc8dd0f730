import { Type } from '@sinclair/typebox';
import { strict } from './common.js';

/** `reasons` only when `status` is `degraded` (docs/reliability-backpressure.md). */
export const HealthRes = Type.Object({ status: Type.String(), reasons: Type.Optional(Type.Array(Type.String())) });
export const VersionRes = Type.Object({ version: Type.String() });
export const ServerInfoRes = Type.Object({
  min_required_weave_python_version: Type.String(),
  trace_server_version: Type.String(),
});
export const GeolocateQuery = Type.Object({ ip: Type.Optional(Type.String()) });
export const GeolocationRes = Type.Object({
  ip: Type.String(),
  location: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  allowed: Type.Boolean(),
});
export const ProjectsInfoReq = Type.Object({ project_ids: Type.Array(Type.String()) }, strict);
export const ProjectsInfoRes = Type.Array(
  Type.Object({ external_project_id: Type.String(), internal_project_id: Type.String() }),
);
