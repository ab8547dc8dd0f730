import { Type, type TSchema } from '@sinclair/typebox';
import type { Ajv, ValidateFunction } from 'ajv';
import { RequestValidationError } from '../../errors/app-error.js';
import { toValidationDetails } from '../../schemas/ajv.js';
import { MAX_PAGE, DEFAULT_PAGE } from './mcp-bounds.js';
import { PROJECT_ID_DOC } from './mcp-tool.js';

/** Argument schemas shared by the tools (advertised in `tools/list`, checked before a tool runs). */
export const ProjectId = Type.String({ minLength: 1, description: PROJECT_ID_DOC });
export const Limit = (max = MAX_PAGE, dflt = DEFAULT_PAGE) =>
  Type.Optional(
    Type.Integer({ minimum: 1, maximum: max, description: `Page size (default ${dflt}, at most ${max}).` }),
  );
export const Offset = Type.Optional(
  Type.Integer({ minimum: 0, description: 'Rows to skip: the next_offset of the previous page.' }),
);
/** A free-form JSON object whose exact shape the tool checks against the REST API's own schema. */
export const Loose = (description: string) =>
  Type.Optional(Type.Object({}, { additionalProperties: true, description }));

/**
 * A checker for the request a tool builds for a service, with the REST route's own schema, so a
 * tool accepts exactly what the route accepts; failures read as the tool's arguments.
 */
export function requestChecker<T>(ajv: Ajv, schema: TSchema): (req: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (req) => {
    if (!validate(req)) throw new RequestValidationError(toValidationDetails(validate.errors ?? [], 'arguments'));
    return req as T;
  };
}

/** Drops the keys whose value is undefined (the REST schemas refuse nothing for absence). */
export function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

/** Reads up to `n` lines of JSON text from a service's stream, then stops it. */
export async function takeLines(lines: AsyncIterable<string>, n: number): Promise<unknown[]> {
  const out: unknown[] = [];
  if (n <= 0) return out;
  for await (const line of lines) {
    out.push(JSON.parse(line));
    if (out.length >= n) break;
  }
  return out;
}
