import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { MAX_NAME_LENGTH, NAME_PATTERN } from '../domain/project-name.js';

/**
 * Schema building blocks shared by every area. Wire names stay snake_case; model names follow
 * Weave's (`CallStartReq`…) so the OpenAPI components match the published spec.
 */

/** Unknown properties rejected with 422 `extra_forbidden`. */
export const strict = { additionalProperties: false } as const;

/** An entity name on its own (the first half of a project id): the rule of domain/project-name.ts. */
export const EntityName = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, pattern: NAME_PATTERN, description });

/** Request date-time: ISO 8601 (Z, offset, naive = UTC, date-only) or Unix seconds. */
export const DateTimeIn = (options: Record<string, unknown> = {}): TUnsafe<string | number> =>
  Type.Unsafe<string | number>({ type: ['string', 'number'], format: 'heddle-date-time', ...options });

/** Integer that also accepts integral numbers and numeric strings (docs/spec/calls.md §6.3), converted to a number. */
export const LaxInt = (options: Record<string, unknown> = {}): TUnsafe<number> =>
  Type.Unsafe<number>({ type: ['integer', 'string'], pattern: '^\\s*[+-]?\\d+\\s*$', heddleCoerce: 'int', ...options });

/** Boolean that also accepts 0/1 and "true"/"false", converted to a boolean. */
export const LaxBool = (options: Record<string, unknown> = {}): TUnsafe<boolean> =>
  Type.Unsafe<boolean>({
    type: ['boolean', 'integer', 'string'],
    enum: [true, false, 0, 1, 'true', 'false'],
    heddleCoerce: 'bool',
    ...options,
  });

/**
 * `T | null`, optional. Written as a JSON-type list (`["object", "null"]`) rather than `anyOf`
 * so that a validation failure points at the real fault instead of a union.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const type = (schema as { type?: string | string[] }).type;
  if (type === undefined) return Type.Optional(schema as TSchema as TUnsafe<Static<T> | null>);
  const types = Array.isArray(type) ? [...type, 'null'] : [type, 'null'];
  const values = (schema as unknown as { enum?: unknown[] }).enum;
  const nullableEnum = Array.isArray(values) ? { enum: [...values, null] } : {};
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: types, ...nullableEnum }));
};

export const NullableLaxInt = (options: Record<string, unknown> = {}) =>
  Type.Optional(
    Type.Unsafe<number | null>({
      type: ['integer', 'string', 'null'],
      pattern: '^\\s*[+-]?\\d+\\s*$',
      heddleCoerce: 'int',
      ...options,
    }),
  );

export const NullableLaxBool = (options: Record<string, unknown> = {}) =>
  Type.Optional(
    Type.Unsafe<boolean | null>({
      type: ['boolean', 'integer', 'string', 'null'],
      enum: [true, false, 0, 1, 'true', 'false', null],
      heddleCoerce: 'bool',
      ...options,
    }),
  );

/** A free-form JSON object (inputs, attributes, payloads): anything inside is accepted. */
export const FreeObject = (options: Record<string, unknown> = {}) =>
  Type.Record(Type.String(), Type.Unknown(), options);

/** Every error body with a `reason`. */
export const ErrorRes = Type.Object({ reason: Type.String() }, { additionalProperties: true, $id: 'ErrorRes' });

export const ValidationErrorRes = Type.Object(
  {
    detail: Type.Array(
      Type.Object(
        { loc: Type.Array(Type.String()), msg: Type.String(), type: Type.String() },
        { additionalProperties: true },
      ),
    ),
  },
  { $id: 'HTTPValidationError' },
);

export const EmptyRes = Type.Object({});
