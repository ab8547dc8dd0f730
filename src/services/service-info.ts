import { isIP } from 'node:net';
import type { Config } from '../config/config.js';
import { RequestValidationError } from '../errors/app-error.js';
import { HEDDLE_VERSION } from '../version.js';
import { parseProjectId } from './project-access.js';

/** Service information (docs/spec/otel-service-queues.md §B). */
export class ServiceInfo {
  constructor(private readonly config: Config) {}

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
