/**
 * Reading rows back from either database: PostgreSQL hands BIGINT columns back as strings and
 * SQLite as numbers, and a NULL may come back as `null` or be absent, so the stores written once
 * over the transaction runner read each column through a decoder rather than trusting the driver.
 */

/** Turns one column's value, as a driver returned it, into the record's field. */
export type Decode<T> = (value: unknown) => T;

export const text: Decode<string> = (v) => String(v);
export const textOrNull: Decode<string | null> = (v) => (v === null || v === undefined ? null : String(v));
export const num: Decode<number> = (v) => Number(v);
export const numOrNull: Decode<number | null> = (v) => (v === null || v === undefined ? null : Number(v));

/** A text column whose values are the members of `T` (a status, a state), which the schema's CHECK keeps so. */
export function textOf<T extends string>(): Decode<T> {
  return (v) => String(v) as T;
}

/** One decoder per field of `T`, each reading the column of the same name. */
export type Columns<T> = { readonly [K in keyof T]-?: Decode<T[K]> };

/**
 * The function that turns a row into a `T`, reading each column named in `columns` through its
 * decoder; columns not named (`rn` of a window query, say) are left out.
 *
 * @example
 * const policyFromDb = rowDecoder<RetentionPolicyRow>({ project_id: text, keep_days: num, … });
 */
export function rowDecoder<T>(columns: Columns<T>): (row: Record<string, unknown>) => T {
  const fields = Object.entries(columns) as Array<[string, Decode<unknown>]>;
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const [name, decode] of fields) out[name] = decode(row[name]);
    return out as T;
  };
}
