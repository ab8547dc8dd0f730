import { RequestValidationError } from '../../errors/app-error.js';

/** Cursor lists of the training API (docs/spec/training.md §1.1). */

export interface Page<T> {
  object: 'list';
  data: T[];
  first_id: string;
  last_id: string;
  has_more: boolean;
}

/** Builds the envelope from `limit + 1` fetched rows. */
export function toPage<R, T extends { id: string }>(rows: R[], limit: number, view: (row: R) => T): Page<T> {
  const data = rows.slice(0, limit).map(view);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: rows.length > limit,
  };
}

function queryError(field: string, type: string, msg: string, input: unknown): RequestValidationError {
  return new RequestValidationError([{ loc: ['query', field], msg, type, input }]);
}

/** `limit`: integer 1–100, default 20 (§1.1). */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 20;
  if (!/^\s*[+-]?\d+\s*$/.test(raw))
    throw queryError(
      'limit',
      'int_parsing',
      'Input should be a valid integer, unable to parse string as an integer',
      raw,
    );
  const n = Number(raw);
  if (n < 1) throw queryError('limit', 'greater_than_equal', 'Input should be greater than or equal to 1', raw);
  if (n > 100) throw queryError('limit', 'less_than_equal', 'Input should be less than or equal to 100', raw);
  return n;
}

/** `order`: `asc` (default) or `desc` (§4.3). */
export function parseOrder(raw: string | undefined): 'asc' | 'desc' {
  if (raw === undefined || raw === 'asc') return 'asc';
  if (raw === 'desc') return 'desc';
  throw queryError('order', 'literal_error', "Input should be 'asc' or 'desc'", raw);
}

/** Our choice (§1.1): an `after` that is not an item of the collection is a 422. */
export function unknownAfter(raw: string): RequestValidationError {
  return queryError('after', 'value_error', `No item with id '${raw}' in this list`, raw);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** Body fields typed `format: uuid` (§1): anything else is a 422 `uuid_parsing`. */
export function bodyUuid(field: string, value: string): string {
  if (!isUuid(value)) {
    throw new RequestValidationError([
      { loc: ['body', field], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: value },
    ]);
  }
  return value.toLowerCase();
}

/** Our choice (§4.1): empty strings are a 422 `string_too_short`. */
export function nonEmpty(field: string, value: string): string {
  if (value === '')
    throw new RequestValidationError([
      { loc: ['body', field], msg: 'String should have at least 1 character', type: 'string_too_short', input: value },
    ]);
  return value;
}
