import type Database from 'better-sqlite3';
import { KEY_SELECT, toKeyRecord, type KeyRow, keysOfEntityWhere } from '../sql/auth-rows.js';
import type { MembershipRecord } from '../../domain/roles.js';
import { projectListSelect, sessionSelect } from '../sql/ui-rows.js';
import type {
  ApiKeyRecord,
  AuthStore,
  EntityMemberRecord,
  ProjectRecord,
  ProjectSummaryRow,
  UiSessionRecord,
  UserRecord,
} from '../types.js';
import type { SqliteWriter } from './writer.js';

export class SqliteAuthStore implements AuthStore {
  // Prepared on first use (the store is built before its migrations run) and then kept: these two
  // run on every authenticated request.
  #keyByHash: Database.Statement | undefined;
  #entitiesOfUser: Database.Statement | undefined;
  #membershipsOfUser: Database.Statement | undefined;
  #sessionByHash: Database.Statement | undefined;

  constructor(
    private readonly reader: Database.Database,
    private readonly writer: SqliteWriter,
  ) {}

  async findKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { user: UserRecord }) | null> {
    this.#keyByHash ??= this.reader.prepare(`${KEY_SELECT} WHERE k.key_hash = ?`);
    const row = this.#keyByHash.get(keyHash) as KeyRow | undefined;
    if (!row) return null;
    const user = {
      id: row.user_id,
      username: row.username,
      default_entity: row.default_entity,
      created_at: row.user_created_at,
    };
    return { ...toKeyRecord(row), user };
  }

  ensureUser(username: string, defaultEntity: string): Promise<UserRecord> {
    return this.writer.submit('auth.ensureUser', { username, defaultEntity });
  }

  addMembership(userId: string, entity: string): Promise<void> {
    return this.writer.submit('auth.addMembership', { userId, entity });
  }

  async listEntities(userId: string): Promise<string[]> {
    this.#entitiesOfUser ??= this.reader.prepare('SELECT entity FROM memberships WHERE user_id = ? ORDER BY entity');
    const rows = this.#entitiesOfUser.all(userId) as { entity: string }[];
    return rows.map((r) => r.entity);
  }

  createApiKey(key: {
    id: string;
    user_id: string;
    key_hash: string;
    prefix: string;
    is_admin: boolean;
  }): Promise<void> {
    return this.writer.submit('auth.createApiKey', key);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = this.reader.prepare(`${KEY_SELECT} ORDER BY k.created_at DESC, k.id DESC`).all() as KeyRow[];
    return rows.map(toKeyRecord);
  }

  revokeApiKey(id: string): Promise<boolean> {
    return this.writer.submit('auth.revokeApiKey', id);
  }

  async countApiKeys(): Promise<number> {
    return (this.reader.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n;
  }

  ensureProject(projectId: string, entity: string, createdBy: string): Promise<void> {
    return this.writer.submit('auth.ensureProject', { projectId, entity, createdBy });
  }

  async findProject(projectId: string): Promise<ProjectRecord | null> {
    const row = this.reader
      .prepare('SELECT project_id, entity, created_by, created_at FROM projects WHERE project_id = ?')
      .get(projectId);
    return (row as ProjectRecord | undefined) ?? null;
  }

  async entityExists(entity: string): Promise<boolean> {
    const row = this.reader
      .prepare('SELECT 1 FROM entities WHERE name = ? UNION ALL SELECT 1 FROM projects WHERE entity = ? LIMIT 1')
      .get(entity, entity);
    return row !== undefined;
  }

  async findUser(username: string): Promise<UserRecord | null> {
    const row = this.reader
      .prepare('SELECT id, username, default_entity, created_at FROM users WHERE username = ?')
      .get(username);
    return (row as UserRecord | undefined) ?? null;
  }

  async listMemberships(userId: string): Promise<MembershipRecord[]> {
    this.#membershipsOfUser ??= this.reader.prepare(
      'SELECT entity, role FROM memberships WHERE user_id = ? ORDER BY entity',
    );
    return this.#membershipsOfUser.all(userId) as MembershipRecord[];
  }

  async listMembers(entity: string): Promise<EntityMemberRecord[]> {
    return this.reader
      .prepare(
        'SELECT m.user_id, u.username, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.entity = ? ORDER BY u.username',
      )
      .all(entity) as EntityMemberRecord[];
  }

  async setMembershipRole(userId: string, entity: string, role: MembershipRecord['role']): Promise<void> {
    await this.writer.submit('auth.setMembershipRole', { userId, entity, role });
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    const row = this.reader.prepare(`${KEY_SELECT} WHERE k.id = ?`).get(id) as KeyRow | undefined;
    return row ? toKeyRecord(row) : null;
  }

  async listApiKeysOfEntity(entity: string): Promise<ApiKeyRecord[]> {
    const rows = this.reader.prepare(`${KEY_SELECT} ${keysOfEntityWhere('?')}`).all(entity) as KeyRow[];
    return rows.map(toKeyRecord);
  }

  async createSession(session: UiSessionRecord): Promise<void> {
    await this.writer.submit('auth.createSession', session);
  }

  async findSession(tokenHash: string, now: number): Promise<(ApiKeyRecord & { user: UserRecord }) | null> {
    this.#sessionByHash ??= this.reader.prepare(sessionSelect('?', '?'));
    const row = this.#sessionByHash.get(tokenHash, now) as KeyRow | undefined;
    return row ? withUser(row) : null;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.writer.submit('auth.deleteSession', tokenHash);
  }

  async listProjects(entities: readonly string[] | null): Promise<ProjectSummaryRow[]> {
    if (entities !== null && entities.length === 0) return [];
    const condition = entities === null ? null : `p.entity IN (${entities.map(() => '?').join(', ')})`;
    return this.reader.prepare(projectListSelect(condition)).all(...(entities ?? [])) as ProjectSummaryRow[];
  }
}

function withUser(row: KeyRow): ApiKeyRecord & { user: UserRecord } {
  const user = {
    id: row.user_id,
    username: row.username,
    default_entity: row.default_entity,
    created_at: row.user_created_at,
  };
  return { ...toKeyRecord(row), user };
}
