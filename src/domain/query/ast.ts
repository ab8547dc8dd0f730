/**
 * The validated query language (`{"$expr": ...}`) as a tree. Field references are resolved
 * by the area that owns the table (calls, feedback, costs…), so the tree is generic over them.
 */
export type LiteralValue = string | number | boolean | null;

export type ConvertTarget = 'double' | 'string' | 'int' | 'bool' | 'exists';

export type CompareOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

export type Operand<F> =
  | { kind: 'literal'; value: unknown }
  | { kind: 'field'; field: F }
  | { kind: 'convert'; input: Operand<F>; to: ConvertTarget }
  | Operation<F>;

export type Operation<F> =
  | { kind: 'and' | 'or'; args: Operand<F>[] }
  | { kind: 'not'; arg: Operand<F> }
  | { kind: 'compare'; op: CompareOp; left: Operand<F>; right: Operand<F> }
  | { kind: 'in'; left: Operand<F>; list: Operand<F>[] }
  | { kind: 'contains'; input: Operand<F>; substr: Operand<F>; caseInsensitive: boolean; wholeToken: boolean };

export interface SortKey<F> {
  field: F;
  direction: 'asc' | 'desc';
}
