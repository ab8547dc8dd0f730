import type pg from 'pg';
import { projectTables } from '../sql/project-tables.js';

/**
 * Sharding by project on Citus (docs/scaling.md): every per-project table is distributed by
 * `project_id`, colocated with `calls`, so that a project's rows of every table live on one worker
 * and every query of one project runs there; the small global tables become reference tables (a
 * copy on every worker). The plan is read from the live schema, so tables that later migrations add
 * are picked up by running the command again; tables Citus already manages are skipped.
 */

/**
 * Per-project tables that stay reference tables: read across projects (listing projects, resolving
 * training ids), or read by a correlated subquery of a call's cost (`llm_token_prices`, calls-query/cost.ts:
 * a subquery over a set-returning function that Citus only runs as it is when every distributed
 * table in the statement is on one shard; a price is written rarely, so a copy on every node costs little).
 */
const GLOBAL_PROJECT_TABLES: ReadonlySet<string> = new Set(['projects', 'training_ids', 'llm_token_prices']);

/** Tables that stay on the coordinator alone. */
const COORDINATOR_ONLY: ReadonlySet<string> = new Set(['heddle_schema_migrations']);

/** The table every per-project table is colocated with. */
const ANCHOR = 'calls';

export interface DistributionPlan {
  /** Whether the database has the `citus` extension. */
  citus: boolean;
  /** Statements still to run, in order: reference tables (referenced ones first), then distributed tables. */
  statements: string[];
  /** Tables Citus already manages, left as they are. */
  alreadyDone: string[];
}

/** What `heddle db distribute` would run on this database. */
export async function planDistribution(client: pg.ClientBase): Promise<DistributionPlan> {
  const tables = await tableNames(client);
  const citus = await hasCitus(client);
  const done = citus ? await citusTables(client) : new Set<string>();

  const distributed = projectTables('postgres')
    .map((t) => t.table)
    .filter((t) => !GLOBAL_PROJECT_TABLES.has(t));
  const missing = distributed.filter((t) => !tables.has(t));
  if (missing.length > 0) throw new Error(`per-project tables missing from the schema: ${missing.join(', ')}`);
  const isDistributed = new Set(distributed);
  const reference = inDependencyOrder(
    [...tables].filter((t) => !isDistributed.has(t) && !COORDINATOR_ONLY.has(t)).sort(),
    await foreignKeys(client),
  );

  const statements: string[] = [];
  for (const table of reference) {
    if (!done.has(table)) statements.push(`SELECT create_reference_table('${table}');`);
  }
  // the anchor first: the others name it in colocate_with
  const sharded: string[] = [];
  for (const table of [ANCHOR, ...distributed.filter((t) => t !== ANCHOR)]) {
    if (done.has(table)) continue;
    sharded.push(table);
    statements.push(
      table === ANCHOR
        ? `SELECT create_distributed_table('${table}', 'project_id');`
        : `SELECT create_distributed_table('${table}', 'project_id', colocate_with => '${ANCHOR}');`,
    );
  }
  // functions the shards' statements call, made before citus was (a database moved onto Citus):
  // Citus copies a function to the workers only once it manages it, and the tables its body names
  // (`%ROWTYPE`) must be there first
  if (citus)
    for (const fn of await localFunctions(client)) statements.push(`SELECT create_distributed_function('${fn}');`);
  // Citus copies a table's rows to its shards and keeps them in the coordinator's table too, where
  // no query reads them again: a database moved onto Citus would hold its calls twice
  for (const table of sharded) statements.push(`SELECT truncate_local_data_after_distributing_table('${table}');`);
  return { citus, statements, alreadyDone: [...done].sort() };
}

async function tableNames(client: pg.ClientBase): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  return new Set(rows.map((r) => r.name));
}

async function hasCitus(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return rows.length > 0;
}

/** Functions of this schema (not an extension's) that Citus does not manage yet, as `name(argument types)`. */
async function localFunctions(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ fn: string }>(
    `SELECT p.oid::regprocedure::text AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = current_schema() AND p.prokind = 'f'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       AND NOT EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)
     ORDER BY p.oid`,
  );
  return rows.map((r) => r.fn);
}

/** Tables of this schema that Citus already distributes or replicates. */
async function citusTables(client: pg.ClientBase): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()`,
  );
  return new Set(rows.map((r) => r.name));
}

/** (table, table it references) for every foreign key of this schema. */
async function foreignKeys(client: pg.ClientBase): Promise<Array<[string, string]>> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE k.contype = 'f' AND n.nspname = current_schema()`,
  );
  return rows.map((r) => [r.child, r.parent]);
}

/**
 * The tables ordered so that each comes after the tables it references (Citus refuses a reference
 * table whose foreign key points at a table it does not manage yet); otherwise in the given order.
 */
export function inDependencyOrder(tables: readonly string[], keys: ReadonlyArray<[string, string]>): string[] {
  const wanted = new Set(tables);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (table: string): void => {
    if (placed.has(table)) return;
    if (visiting.has(table)) throw new Error(`foreign keys form a cycle through ${table}`);
    visiting.add(table);
    for (const [child, parent] of keys) if (child === table && parent !== table && wanted.has(parent)) place(parent);
    visiting.delete(table);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) place(table);
  return ordered;
}
