import type { Operand } from '../../domain/query/ast.js';
import { parseIsoMicros } from '../../domain/time.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import type { AgentField, AgentFilter, CustomSource } from '../agent-types.js';
import { frag, Fragment, raw } from './core/sql-tag.js';
import type { SqlDialect } from './core/sql-dialect.js';

/**
 * The spans filter of docs/spec/agents.md §3.3 as SQL over `agent_spans s`: columns typed as
 * stored, identity columns attributed (§3.2) when `attributed`, custom keys read from
 * `agent_span_attrs` (a missing key is NULL), derived `duration_ms` and `total_tokens`.
 */

type Kind = 'string' | 'number' | 'datetime' | 'bool' | 'null' | 'untyped';
interface Compiled {
  sql: Fragment;
  kind: Kind;
}

const IDENTITY: Record<string, string> = {
  agent_name: 'attr_agent_name',
  agent_version: 'attr_agent_version',
  agent_id: 'attr_agent_id',
  conversation_id: 'attr_conversation_id',
};

/** The SQL column of a field column, attributed or raw. */
export function columnSql(column: string, attributed: boolean): string {
  return `s.${attributed ? (IDENTITY[column] ?? column) : column}`;
}

const CUSTOM_KIND: Record<CustomSource, Kind> = {
  custom_attrs_string: 'string',
  custom_attrs_int: 'number',
  custom_attrs_float: 'number',
  custom_attrs_bool: 'bool',
};

/** A custom attribute's value (NULL when absent); numbers read the int map, else the float map. */
export function customSql(source: CustomSource, key: string, intOrFloat = true): Fragment {
  const value = source === 'custom_attrs_string' ? 'a.value_text' : 'a.value_num';
  const sources = intOrFloat && source === 'custom_attrs_int' ? ['custom_attrs_int', 'custom_attrs_float'] : [source];
  return frag`(SELECT ${raw(value)} FROM agent_span_attrs a WHERE a.project_id = s.project_id
    AND a.trace_id = s.trace_id AND a.span_id = s.span_id AND a.attr_key = ${key} AND a.source IN ${sources}
    ORDER BY a.source DESC LIMIT 1)`;
}

export const DURATION_MS_SQL = '(CASE WHEN s.ended_at > s.started_at THEN (s.ended_at - s.started_at) / 1000.0 END)';
const TOTAL_TOKENS_SQL = '(s.input_tokens + s.output_tokens + s.reasoning_tokens)';

function derivedSql(key: 'duration_ms' | 'total_tokens' | 'is_error' | 'is_invocation'): Compiled {
  if (key === 'is_error') return { sql: frag`(CASE WHEN s.status_code = 'ERROR' THEN 1 ELSE 0 END)`, kind: 'bool' };
  if (key === 'is_invocation')
    return { sql: frag`(CASE WHEN s.operation_name = 'invoke_agent' THEN 1 ELSE 0 END)`, kind: 'bool' };
  return { sql: frag`${raw(key === 'duration_ms' ? DURATION_MS_SQL : TOTAL_TOKENS_SQL)}`, kind: 'number' };
}

/** The SQL of a value reference (a column, derived value or custom attribute) and its kind. */
export function valueSql(field: AgentField, attributed: boolean): { sql: Fragment; kind: string } {
  if (field.kind === 'column') return { sql: frag`${raw(columnSql(field.column, attributed))}`, kind: field.type };
  if (field.kind === 'derived') return derivedSql(field.key);
  const source = field.source ?? 'custom_attrs_string';
  return { sql: customSql(source, field.key), kind: CUSTOM_KIND[source] };
}

function literalKind(value: unknown): Kind {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  throw new InvalidRequestError('Only string, number, boolean or null literals can be compared');
}

function sourceFor(kind: Kind, convertDouble: boolean): CustomSource {
  if (convertDouble) return 'custom_attrs_float';
  if (kind === 'string') return 'custom_attrs_string';
  if (kind === 'bool') return 'custom_attrs_bool';
  if (kind === 'number') return 'custom_attrs_int';
  throw new InvalidRequestError('cannot resolve field: a custom attribute needs a literal to decide its type');
}

const A = '\u0001';
const B = '\u0002';

/** A dialect's SQL template (built with markers A, B for its operands) around fragments. */
export function around(template: string, parts: Fragment[]): Fragment {
  const strings = template.split(A).flatMap((piece) => piece.split(B));
  return new Fragment(strings, parts);
}

export class AgentFilterCompiler {
  constructor(
    private readonly d: SqlDialect,
    private readonly attributed: boolean,
  ) {}

  compile(op: AgentFilter): Fragment {
    return this.#bool(op);
  }

  #field(field: AgentField, hint: Kind | null, convertDouble = false): Compiled {
    if (field.kind === 'column') {
      const kind: Kind = field.type;
      return { sql: frag`${raw(columnSql(field.column, this.attributed))}`, kind };
    }
    if (field.kind === 'derived') return derivedSql(field.key);
    if (field.key === '') throw new InvalidRequestError('cannot resolve field: empty custom attribute key');
    const source = field.source ?? (hint === null ? null : sourceFor(hint, convertDouble));
    if (source === null) return { sql: frag``, kind: 'untyped' };
    return { sql: customSql(source, field.key), kind: CUSTOM_KIND[source] };
  }

  /** A value operand; `hint` is the kind of the other side (for custom keys without a source). */
  #value(o: Operand<AgentField>, hint: Kind | null): Compiled {
    if (o.kind === 'literal') {
      const kind = literalKind(o.value);
      if (kind === 'bool') return { sql: frag`${o.value ? 1 : 0}`, kind };
      if (hint === 'datetime' && typeof o.value === 'string') {
        const micros = parseIsoMicros(o.value);
        if (micros === null) throw new InvalidRequestError(`Invalid date-time literal ${JSON.stringify(o.value)}`);
        return { sql: frag`${micros}`, kind: 'datetime' };
      }
      return { sql: frag`${o.value}`, kind };
    }
    if (o.kind === 'field') return this.#field(o.field, hint);
    if (o.kind === 'convert') {
      if (o.input.kind === 'field' && o.to === 'double') return this.#field(o.input.field, 'number', true);
      if (o.to === 'double' || o.to === 'int') {
        const inner = this.#value(o.input, null);
        return {
          sql: frag`CAST(${inner.sql} AS ${raw(o.to === 'int' ? 'BIGINT' : 'DOUBLE PRECISION')})`,
          kind: 'number',
        };
      }
      throw new InvalidRequestError(`$convert to ${o.to} is not supported on agent spans`);
    }
    // booleans are numbers 0/1 here, as stored: a condition used as a value becomes one too
    return { sql: frag`(CASE WHEN ${this.#bool(o)} THEN 1 ELSE 0 END)`, kind: 'bool' };
  }

  #pair(left: Operand<AgentField>, right: Operand<AgentField>): [Compiled, Compiled] {
    const probe = (o: Operand<AgentField>): Kind | null =>
      o.kind === 'literal' ? literalKind(o.value) : o.kind === 'convert' && o.to === 'double' ? 'number' : null;
    let l = this.#value(left, probe(right));
    const r = this.#value(right, l.kind === 'untyped' ? null : l.kind);
    if (l.kind === 'untyped') {
      if (r.kind === 'untyped' || r.kind === 'null') throw new InvalidRequestError('cannot resolve field');
      l = this.#value(left, r.kind);
    }
    if (r.kind === 'untyped') throw new InvalidRequestError('cannot resolve field');
    // §3.3: columns are typed as stored; comparing across types is a planning error, never a 500
    if (l.kind !== r.kind && l.kind !== 'null' && r.kind !== 'null')
      throw new InvalidRequestError(`Type mismatch: cannot compare a ${l.kind} with a ${r.kind}`);
    return [l, r];
  }

  #bool(o: Operand<AgentField>): Fragment {
    switch (o.kind) {
      case 'and':
      case 'or': {
        const parts = o.args.map((a) => this.#bool(a));
        const joiner = o.kind === 'and' ? ' AND ' : ' OR ';
        const joined = parts.slice(1).reduce((acc, p) => frag`${acc}${raw(joiner)}${p}`, parts[0]!);
        return frag`(${joined})`;
      }
      case 'not':
        return frag`(NOT COALESCE(${this.#bool(o.arg)}, FALSE))`;
      case 'compare': {
        const [l, r] = this.#pair(o.left, o.right);
        if (l.kind === 'null' || r.kind === 'null') {
          if (o.op !== 'eq') throw new InvalidRequestError('null can only be compared with $eq');
          const other = l.kind === 'null' ? r : l;
          return frag`(${other.sql} IS NULL)`;
        }
        const ops = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
        return frag`(${l.sql} ${raw(ops[o.op])} ${r.sql})`;
      }
      case 'in': {
        if (o.list.length === 0) throw new InvalidRequestError('Empty $in list');
        const kinds = new Set(o.list.map((i) => (i.kind === 'literal' ? literalKind(i.value) : 'expr')));
        if (kinds.has('null')) throw new InvalidRequestError('null is not allowed in a $in list');
        if (kinds.size > 1) throw new InvalidRequestError('Mixed literal types in a $in list');
        const [left, first] = this.#pair(o.left, o.list[0]!);
        const rest = o.list.slice(1).map((i) => this.#value(i, left.kind).sql);
        const items = rest.reduce((acc, p) => frag`${acc}, ${p}`, first.sql);
        return frag`(${left.sql} IN (${items}))`;
      }
      case 'contains': {
        const input = this.#value(o.input, 'string');
        const substr = this.#value(o.substr, 'string');
        if (input.kind !== 'string' || substr.kind !== 'string')
          throw new InvalidRequestError('$contains compares strings only');
        const lower = (x: Fragment) => (o.caseInsensitive ? around(this.d.lower(A), [x]) : x);
        return frag`COALESCE(${around(this.d.containsText(A, B), [lower(input.sql), lower(substr.sql)])}, FALSE)`;
      }
      default: {
        // a literal, field or conversion where a condition belongs: only a boolean one is a condition
        const value = this.#value(o, 'bool');
        if (value.kind !== 'bool')
          throw new InvalidRequestError(
            `A condition must be a boolean: ${value.kind === 'untyped' ? 'an untyped custom attribute' : `a ${value.kind}`} is not`,
          );
        return frag`(${value.sql} <> 0)`;
      }
    }
  }
}
