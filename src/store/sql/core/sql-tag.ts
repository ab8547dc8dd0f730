import { SqlParams, type SqlDialect } from './sql-dialect.js';

/**
 * A tagged-template statement builder over a dialect, for the stores written once over the
 * transaction runner (core/sql-tx.ts): values become bound parameters, never SQL text.
 */

/** A statement and its bound parameters, ready for the driver. */
export interface CompiledSql {
  sql: string;
  params: unknown[];
}

/** SQL text spliced verbatim into a statement (never user input). */
export class Raw {
  constructor(readonly text: string) {}
}

export const raw = (text: string): Raw => new Raw(text);

/** A statement piece whose values are bound only when the whole statement is built. */
export class Fragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: unknown[],
  ) {}
}

/** SQL text built with the statement's own parameters (a builder taking `SqlParams`, e.g. `SqlDialect.derivedCost`). */
export class Emitted {
  constructor(readonly emit: (p: SqlParams) => string) {}
}

export const emitted = (emit: (p: SqlParams) => string): Emitted => new Emitted(emit);

/** `frag\`AND x = ${v}\`` for conditional parts of a statement. */
export const frag = (strings: TemplateStringsArray, ...values: unknown[]): Fragment =>
  new Fragment([...strings], values);

/** Values become parameters, `Raw` values are spliced, fragments and `Emitted` expanded, arrays of values become `(p1, p2, …)`. */
export type SqlTag = (strings: TemplateStringsArray, ...values: unknown[]) => CompiledSql;

function build(strings: readonly string[], values: unknown[], p: SqlParams): string {
  // a template has one more string than values
  let text = strings[0]!;
  values.forEach((value, i) => {
    let piece: string;
    if (value instanceof Raw) piece = value.text;
    else if (value instanceof Fragment) piece = build(value.strings, value.values, p);
    else if (value instanceof Emitted) piece = value.emit(p);
    else if (Array.isArray(value)) piece = `(${value.map((v) => p.add(v)).join(', ')})`;
    else piece = p.add(value);
    text += piece + strings[i + 1];
  });
  return text;
}

export function sqlTag(d: SqlDialect): SqlTag {
  return (strings, ...values) => {
    const p = new SqlParams(d);
    return { sql: build(strings, values, p), params: p.values };
  };
}
