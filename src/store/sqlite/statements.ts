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

/** A statement in raw mode with a builder that turns each array of values into a row object. */
export interface RowStatement {
  statement: Database.Statement;
  toRow: (values: unknown[]) => Record<string, unknown>;
}

/**
 * Statements for long result streams. better-sqlite3 builds each row object in C++, key by key;
 * raw arrays turned into objects by an object literal of the statement's columns cost about half
 * as much (bench calls of ~1.3 KB: 8–13 µs → 4–7 µs per row). The literal is generated once per
 * statement.
 */
export class RowStatementCache {
  readonly #statements = new StatementCache();
  readonly #builders = new WeakMap<Database.Statement, RowStatement>();

  get(db: Database.Database, sql: string): RowStatement {
    const statement = this.#statements.get(db, sql);
    let entry = this.#builders.get(statement);
    if (!entry) {
      statement.raw(true);
      entry = { statement, toRow: rowBuilder(statement.columns().map((c) => c.name)) };
      this.#builders.set(statement, entry);
    }
    return entry;
  }
}

/** `(values) => ({"name": values[0], …})`; names are quoted as JSON strings, so any name is safe. */
function rowBuilder(names: string[]): (values: unknown[]) => Record<string, unknown> {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
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
