import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { parseIsoMicros } from '../domain/time.js';

/**
 * The one Ajv instance behind route validation and the few validations services run themselves
 * (batch items). Unknown properties are rejected, not dropped (Fastify's default silently drops
 * them); the lax integer/boolean fields of docs/spec/calls.md §6.3 are converted by `heddleCoerce`.
 */
export function createAjv(sharedSchemas: TSchema[] = []): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    coerceTypes: false,
    useDefaults: true,
    strict: false,
    allowUnionTypes: true,
    verbose: true,
  });
  ajv.addFormat('heddle-date-time', { type: 'string', validate: (text: string) => parseIsoMicros(text) !== null });
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => parseIsoMicros(text) !== null });
  ajv.addKeyword({
    keyword: 'heddleCoerce',
    modifying: true,
    schemaType: 'string',
    compile:
      (kind: string) =>
      (
        data: unknown,
        ctx?: { parentData?: Record<string | number, unknown>; parentDataProperty?: string | number },
      ) => {
        if (ctx?.parentData === undefined || ctx.parentDataProperty === undefined) return true;
        let converted: unknown = data;
        if (kind === 'int' && typeof data === 'string' && /^\s*[+-]?\d+\s*$/.test(data)) converted = Number(data);
        if (kind === 'bool' && (data === 0 || data === 1)) converted = data === 1;
        if (kind === 'bool' && (data === 'true' || data === 'false')) converted = data === 'true';
        if (converted !== data) ctx.parentData[ctx.parentDataProperty] = converted;
        return true;
      },
  });
  for (const schema of sharedSchemas) ajv.addSchema(schema);
  return ajv;
}

export interface ValidationDetail {
  loc: string[];
  msg: string;
  type: string;
  input?: unknown;
}

function typeErrorKind(expected: string | string[], schema: Record<string, unknown>): [string, string] {
  if (schema.format === 'heddle-date-time') return ['datetime_type', 'Input should be a valid datetime'];
  if (schema.heddleCoerce === 'int') return ['int_type', 'Input should be a valid integer'];
  if (schema.heddleCoerce === 'bool') return ['bool_type', 'Input should be a valid boolean'];
  const first = (Array.isArray(expected) ? expected.filter((t) => t !== 'null')[0] : expected) ?? 'null';
  const table: Record<string, [string, string]> = {
    string: ['string_type', 'Input should be a valid string'],
    integer: ['int_type', 'Input should be a valid integer'],
    number: ['float_type', 'Input should be a valid number'],
    boolean: ['bool_type', 'Input should be a valid boolean'],
    object: ['dict_type', 'Input should be a valid dictionary or object'],
    array: ['list_type', 'Input should be a valid list'],
    null: ['none_required', 'Input should be None'],
  };
  return table[first] ?? ['type_error', `Input should be of type ${first}`];
}

function describe(error: ErrorObject): [string, string, string[]] {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return ['missing', 'Field required', [String(params.missingProperty)]];
    case 'additionalProperties':
      return ['extra_forbidden', 'Extra inputs are not permitted', [String(params.additionalProperty)]];
    case 'type':
      return [...typeErrorKind(params.type as string, schema), []];
    case 'format':
      return params.format === 'heddle-date-time' || params.format === 'date-time'
        ? ['datetime_parsing', 'Input should be a valid datetime', []]
        : ['value_error', `Input should match format ${String(params.format)}`, []];
    case 'pattern':
      return schema.heddleCoerce === 'int'
        ? ['int_parsing', 'Input should be a valid integer, unable to parse string as an integer', []]
        : ['string_pattern_mismatch', `String should match pattern '${String(params.pattern)}'`, []];
    case 'enum':
    case 'const':
      return schema.heddleCoerce === 'bool'
        ? ['bool_parsing', 'Input should be a valid boolean, unable to interpret input', []]
        : ['literal_error', `Input should be ${JSON.stringify(params.allowedValues ?? params.allowedValue)}`, []];
    case 'minItems':
      return ['too_short', `List should have at least ${String(params.limit)} items`, []];
    case 'maxItems':
      return ['too_long', `List should have at most ${String(params.limit)} items`, []];
    case 'anyOf':
      return ['union_invalid', 'Input does not match any allowed shape', []];
    default:
      return ['value_error', error.message ?? 'Invalid value', []];
  }
}

/**
 * The offending value, as the reference reports it (docs/spec/calls.md §6.1): the extra value for an
 * unknown key, the enclosing object for a missing one, else the value itself. Ajv keeps it
 * because the instance is created with `verbose`.
 */
function inputOf(error: ErrorObject): unknown {
  const data = error.data;
  if (error.keyword === 'additionalProperties' && data !== null && typeof data === 'object') {
    return echoable(
      (data as Record<string, unknown>)[String((error.params as Record<string, unknown>).additionalProperty)],
    );
  }
  return echoable(data);
}

/** Longest JSON text of an offending value echoed back; a 32 MiB body is not worth repeating. */
const MAX_ECHO_CHARS = 1024;

function echoable(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= MAX_ECHO_CHARS ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ajv errors → the `detail` items of a 422 (`loc` strings, reference type names). Errors inside
 * a union branch are folded into the union's own error, which names the failing location.
 */
export function toValidationDetails(errors: ErrorObject[], where: string): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (/\/anyOf\/\d+\//.test(error.schemaPath)) continue;
    // if/then/else (training Message | Choice): the branch's own errors name the fault; the
    // summary "must match then schema" adds nothing.
    if (error.keyword === 'if') continue;
    const [type, msg, extraLoc] = describe(error);
    const path =
      error.instancePath === ''
        ? []
        : error.instancePath
            .slice(1)
            .split('/')
            .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const loc = [where, ...path, ...extraLoc];
    const key = `${loc.join('\u0000')}|${type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ loc, msg, type, input: inputOf(error) });
  }
  return details;
}

export type { ValidateFunction };
