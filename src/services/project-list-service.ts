import { formatMicros } from '../domain/time.js';
import type { TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';

export interface ProjectListItem {
  project_id: string;
  entity: string;
  name: string;
  created_at: string | null;
  last_call_at: string | null;
  /** Not counted: counting scans every call of the project (null until a cheap count exists). */
  call_count: number | null;
}

/** `GET /projects`: the projects a caller reaches (admins: all), latest call first. */
export class ProjectListService {
  constructor(private readonly store: TraceStore) {}

  async list(caller: Caller): Promise<{ projects: ProjectListItem[] }> {
    const rows = await this.store.auth.listProjects(caller.isAdmin ? null : [...caller.entities]);
    return {
      projects: rows.map((row) => ({
        project_id: row.project_id,
        entity: row.entity,
        name: row.project_id.slice(row.project_id.indexOf('/') + 1),
        created_at: row.created_at == null ? null : formatMicros(Number(row.created_at)),
        last_call_at: row.last_call_at == null ? null : formatMicros(Number(row.last_call_at)),
        call_count: null,
      })),
    };
  }
}
