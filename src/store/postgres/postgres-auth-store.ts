import type pg from 'pg';
import { uuidv7 } from '../../domain/ids.js';
import { KEY_SELECT, toKeyRecord, type KeyRow, keysOfEntityWhere } from '../sql/auth-rows.js';
import type { MembershipRecord } from '../../domain/roles.js';
import { sessionSelect } from '../sql/ui-rows.js';
import type {
  ApiKeyRecord,
  AuthStore,
  EntityMemberRecord,
  ProjectRecord,
  ProjectSummaryRow,
  UiSessionRecord,
  UserRecord,
} from '../types.js';
import { mapErrors } from './pg-support.js';

/**
 * Users, entities, keys and projects on PostgreSQL. Every method is one statement (or an upsert and
 * a read), and creations are `ON CONFLICT DO NOTHING`, so several nodes may race on the same user,
 * key or project. Keys are looked up on every request, never cached, so a revocation made through
 * any node applies on every node at once.
 */
export class PostgresAuthStore implements AuthStore {
  constructor(private readonly pool: pg.Pool) {}

  async findKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { user: UserRecord }) | null> {
    const { rows } = await this.#query<KeyRow>('heddle_key_by_hash', `${KEY_SELECT} WHERE k.key_hash = $1`, [keyHash]);
    const row = rows[0];
    if (!row) return null;
    const user = {
      id: row.user_id,
      username: row.username,
      default_entity: row.default_entity,
      created_at: row.user_created_at,
    };
    return { ...toKeyRecord(row), user };
  }

  async ensureUser(username: string, defaultEntity: string): Promise<UserRecord> {
    const candidate: UserRecord = {
      id: uuidv7(),
      username,
      default_entity: defaultEntity,
      created_at: Date.now() * 1000,
    };
    await this.#query(
      null,
      'INSERT INTO users (id, username, default_entity, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING',
      [candidate.id, candidate.username, candidate.default_entity, candidate.created_at],
    );
    const { rows } = await this.#query<UserRecord>(
      null,
      'SELECT id, username, default_entity, created_at FROM users WHERE username = $1',
      [username],
    );
    // inserted just above unless it already existed
    return rows[0]!;
  }

  async addMembership(userId: string, entity: string): Promise<void> {
    await this.#query(null, 'INSERT INTO entities (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      entity,
      Date.now() * 1000,
    ]);
    await this.#query(
      null,
      'INSERT INTO memberships (user_id, entity) VALUES ($1, $2) ON CONFLICT (user_id, entity) DO NOTHING',
      [userId, entity],
    );
  }

  async listEntities(userId: string): Promise<string[]> {
    const { rows } = await this.#query<{ entity: string }>(
      'heddle_entities_of_user',
      'SELECT entity FROM memberships WHERE user_id = $1 ORDER BY entity',
      [userId],
    );
    return rows.map((r) => r.entity);
  }

  async createApiKey(key: {
    id: string;
    user_id: string;
    key_hash: string;
    prefix: string;
    is_admin: boolean;
  }): Promise<void> {
    await this.#query(
      null,
      'INSERT INTO api_keys (id, user_id, key_hash, prefix, is_admin, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
      [key.id, key.user_id, key.key_hash, key.prefix, key.is_admin, Date.now() * 1000],
    );
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.#query<KeyRow>(null, `${KEY_SELECT} ORDER BY k.created_at DESC, k.id DESC`, []);
    return rows.map(toKeyRecord);
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const { rows } = await this.#query<{ found: boolean }>(
      null,
      `WITH revoked AS (UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM api_keys WHERE id = $1) AS found`,
      [id, Date.now() * 1000],
    );
    return rows[0]!.found;
  }

  async countApiKeys(): Promise<number> {
    const { rows } = await this.#query<{ n: number }>(null, 'SELECT count(*) AS n FROM api_keys', []);
    return rows[0]!.n;
  }

  async ensureProject(projectId: string, entity: string, createdBy: string): Promise<void> {
    await this.#query(
      'heddle_ensure_project',
      'INSERT INTO projects (project_id, entity, created_by, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (project_id) DO NOTHING',
      [projectId, entity, createdBy, Date.now() * 1000],
    );
  }

  async findProject(projectId: string): Promise<ProjectRecord | null> {
    const { rows } = await this.#query<ProjectRecord>(
      null,
      'SELECT project_id, entity, created_by, created_at FROM projects WHERE project_id = $1',
      [projectId],
    );
    return rows[0] ?? null;
  }

  async entityExists(entity: string): Promise<boolean> {
    const { rows } = await this.#query<{ found: boolean }>(
      null,
      'SELECT EXISTS (SELECT 1 FROM entities WHERE name = $1) OR EXISTS (SELECT 1 FROM projects WHERE entity = $1) AS found',
      [entity],
    );
    return rows[0]!.found;
  }

  async findUser(username: string): Promise<UserRecord | null> {
    const { rows } = await this.#query<UserRecord>(
      null,
      'SELECT id, username, default_entity, created_at FROM users WHERE username = $1',
      [username],
    );
    return rows[0] ?? null;
  }

  async listMemberships(userId: string): Promise<MembershipRecord[]> {
    // named (prepared once per connection): it runs on every authentication the role cache misses
    const { rows } = await this.#query<MembershipRecord>(
      'heddle_memberships_of_user',
      'SELECT entity, role FROM memberships WHERE user_id = $1 ORDER BY entity',
      [userId],
    );
    return rows;
  }

  async createSession(session: UiSessionRecord): Promise<void> {
    await this.#query(null, 'DELETE FROM ui_sessions WHERE expires_at <= $1', [session.created_at]);
    await this.#query(
      null,
      `INSERT INTO ui_sessions (token_hash, user_id, api_key_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [session.token_hash, session.user_id, session.api_key_id, session.created_at, session.expires_at],
    );
  }

  async findSession(tokenHash: string, now: number): Promise<(ApiKeyRecord & { user: UserRecord }) | null> {
    const { rows } = await this.#query<KeyRow>('heddle_session_by_hash', sessionSelect('$1', '$2::bigint'), [
      tokenHash,
      now,
    ]);
    const row = rows[0];
    if (!row) return null;
    const user = {
      id: row.user_id,
      username: row.username,
      default_entity: row.default_entity,
      created_at: row.user_created_at,
    };
    return { ...toKeyRecord(row), user };
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.#query(null, 'DELETE FROM ui_sessions WHERE token_hash = $1', [tokenHash]);
  }

  /**
   * The projects, then each one's latest call start by a statement on that project alone: under
   * Citus a subquery on `calls` correlated with the `projects` reference table cannot run, and each
   * probe goes to its project's shard. Ordered as projectListSelect orders them (ui-rows.ts).
   */
  async listProjects(entities: readonly string[] | null): Promise<ProjectSummaryRow[]> {
    const { rows } = await this.#query<Omit<ProjectSummaryRow, 'last_call_at'>>(
      null,
      `SELECT p.project_id, p.entity, p.created_at FROM projects p${entities === null ? '' : ' WHERE p.entity = ANY($1::text[])'}`,
      entities === null ? [] : [entities],
    );
    const out: ProjectSummaryRow[] = [];
    for (let from = 0; from < rows.length; from += 4) {
      const probes = rows.slice(from, from + 4).map(async (row) => {
        const { rows: last } = await this.#query<{ started_at: number }>(
          null,
          `SELECT c.started_at FROM calls c WHERE c.project_id = $1 AND c.started_at IS NOT NULL
           ORDER BY c.started_at DESC LIMIT 1`,
          [row.project_id],
        );
        return { ...row, last_call_at: last[0]?.started_at ?? null } as ProjectSummaryRow;
      });
      out.push(...(await Promise.all(probes)));
    }
    const at = (r: ProjectSummaryRow): number | null => (r.last_call_at == null ? null : Number(r.last_call_at));
    return out.sort((a, b) => {
      const x = at(a);
      const y = at(b);
      if (x !== y) return x === null ? 1 : y === null ? -1 : y - x;
      return a.project_id < b.project_id ? -1 : a.project_id > b.project_id ? 1 : 0;
    });
  }

  async listMembers(entity: string): Promise<EntityMemberRecord[]> {
    const { rows } = await this.#query<EntityMemberRecord>(
      null,
      'SELECT m.user_id, u.username, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.entity = $1 ORDER BY u.username',
      [entity],
    );
    return rows;
  }

  async setMembershipRole(userId: string, entity: string, role: MembershipRecord['role']): Promise<void> {
    await this.#query(null, 'UPDATE memberships SET role = $1 WHERE user_id = $2 AND entity = $3', [
      role,
      userId,
      entity,
    ]);
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.#query<KeyRow>(null, `${KEY_SELECT} WHERE k.id = $1`, [id]);
    return rows[0] ? toKeyRecord(rows[0]) : null;
  }

  async listApiKeysOfEntity(entity: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.#query<KeyRow>(null, `${KEY_SELECT} ${keysOfEntityWhere('$1')}`, [entity]);
    return rows.map(toKeyRecord);
  }

  /** A query on any pooled connection; `name` prepares the hot per-request statements once per connection. */
  #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    name: string | null,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return mapErrors(() => this.pool.query<R>(name === null ? { text, values } : { name, text, values }));
  }
}
