import { Type } from '@sinclair/typebox';
import { LaxBool, Nullable, NullableLaxInt, strict } from './common.js';

/**
 * The shared query language `{"$expr": …}` (docs/spec/calls.md §5.1). Operator objects hold exactly one
 * operator key; `$convert`/`$contains` specs ignore extra keys. The root being an operation is
 * checked when the tree is parsed.
 */
const convertTargets = ['double', 'string', 'int', 'bool', 'exists'] as const;

export const Operand = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object({ $literal: Type.Unknown() }, strict),
      Type.Object({ $getField: Type.String() }, strict),
      Type.Object(
        { $convert: Type.Object({ input: Self, to: Type.Union(convertTargets.map((t) => Type.Literal(t))) }) },
        strict,
      ),
      Type.Object({ $and: Type.Array(Self) }, strict),
      Type.Object({ $or: Type.Array(Self) }, strict),
      Type.Object({ $not: Type.Array(Self, { minItems: 1, maxItems: 1 }) }, strict),
      ...(['$eq', '$gt', '$gte', '$lt', '$lte'] as const).map((op) =>
        Type.Object({ [op]: Type.Array(Self, { minItems: 2, maxItems: 2 }) }, strict),
      ),
      Type.Object({ $in: Type.Tuple([Self, Type.Array(Self)]) }, strict),
      ...(['$contains', '$containsToken'] as const).map((op) =>
        Type.Object(
          { [op]: Type.Object({ input: Self, substr: Self, case_insensitive: Type.Optional(LaxBool()) }) },
          strict,
        ),
      ),
    ]),
  { $id: 'QueryOperand' },
);

/** Registered once with `app.addSchema`; routes reference it. */
export const Query = Type.Object({ $expr: Type.Ref(Operand) }, strict);

export const SortBy = Type.Object(
  { field: Type.String(), direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) },
  strict,
);

/** The request of a records query (feedback, costs): projection, the query language, sort, paging. */
export const recordQueryFields = () => ({
  project_id: Type.String(),
  fields: Nullable(Type.Array(Type.String())),
  query: Nullable(Query),
  sort_by: Nullable(Type.Array(SortBy)),
  limit: NullableLaxInt(),
  offset: NullableLaxInt(),
});
