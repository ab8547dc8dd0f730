import { isIP } from 'node:net';
import type { Config } from '../config/config.js';
import { RequestValidationError } from '../errors/app-error.js';
import type { TraceStore } from '../store/types.js';
import { HEDDLE_VERSION } from '../version.js';
import { parseProjectId } from './project-access.js';

/** Service information (docs/spec/otel-service-queues.md §B). */
export class ServiceInfo {
  constructor(
    private readonly config: Config,
    private readonly store: Pick<TraceStore, 'load'>,
  ) {}

  /**
   * `GET /health` (docs/spec/otel-service-queues.md §B): `{"status":"ok"}`, or `degraded` with the
   * reasons while the last write failed for a full disk or the store's queue is at its bound
   * (docs/reliability-backpressure.md). Reads no database, so it answers at once under any load.
   */
  health(): { status: 'ok' } | { status: 'degraded'; reasons: string[] } {
    const load = this.store.load();
    const reasons: string[] = [];
    if (load.diskFull !== null)
      reasons.push(`disk full: the last write failed (${load.diskFull}); writes answer 507 until space is freed`);
    const queued = load.pendingWrites + load.waitingForConnection;
    if (queued >= this.config.overload.maxStoreQueue)
      reasons.push(
        `overloaded: ${queued} store operations waiting (limit ${this.config.overload.maxStoreQueue}); writes answer 503`,
      );
    return reasons.length === 0 ? { status: 'ok' } : { status: 'degraded', reasons };
  }

  version(): { version: string } {
    return { version: HEDDLE_VERSION };
  }

  serverInfo(): { min_required_weave_python_version: string; trace_server_version: string } {
    return {
      min_required_weave_python_version: this.config.minPythonClientVersion,
      trace_server_version: HEDDLE_VERSION,
    };
  }

  /** Without an IP database every address is allowed and has no known location (our choice). */
  geolocate(ip: string | undefined, peer: string): { ip: string; location: null; allowed: boolean } {
    const address = ip ?? peer;
    if (ip !== undefined && isIP(ip) === 0) {
      throw new RequestValidationError([
        { loc: ['query', 'ip'], msg: 'Input is not a valid IP address', type: 'ip_any_address' },
      ]);
    }
    return { ip: address, location: null, allowed: true };
  }

  /** Internal id = base64 of the UTF-8 `entity/project` (our choice, as the reference's test converter). */
  projectsInfo(projectIds: string[]): Array<{ external_project_id: string; internal_project_id: string }> {
    return projectIds.map((id) => {
      parseProjectId(id);
      return { external_project_id: id, internal_project_id: Buffer.from(id, 'utf8').toString('base64') };
    });
  }
}
