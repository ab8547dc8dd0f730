import type Database from 'better-sqlite3';

/** Prepared statements cached per connection and SQL text. */
export class StatementCache {
  #statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

  get(db: Database.Database, sql: string): Database.Statement {
    let cache = this.#statements.get(db);
    if (!cache) {
      cache = new Map();
      this.#statements.set(db, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (cache.size > 500) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  }
}

/** The writer connection's statements (it lives in the writer thread, one per store). */
const writerStatements = new StatementCache();

/** A cached statement of the writer connection `db`. */
export function writerStatement(db: Database.Database, sql: string): Database.Statement {
  return writerStatements.get(db, sql);
}

/** Binds compiled parameters to the dialect's `@pN` placeholders. */
export function bindNamed(values: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  values.forEach((value, i) => {
    out[`p${i + 1}`] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
  return out;
}

/** `?, ?, ?` for `count` positional parameters. */
export function placeholders(count: number): string {
  return new Array<string>(count).fill('?').join(', ');
}
