import type { Migration } from './migration.js';

/**
 * The texts of the substring index on PostgreSQL (migration 017) and `heddle_json_text`
 * (postgres-functions.ts) again, the same texts for every value, about three times faster (issue 30).
 * The indexer renders the text of every call it passes, and a `$contains` or `byteLength` renders
 * every object of the calls it has not reached yet.
 *
 * - `heddle_json_text`: the regular expression that told separators from string contents cost about
 *   30 µs a kilobyte. JSONB prints `\"` and `\\` inside strings, and control characters as escapes,
 *   so once those two escapes are set aside as U+0001 and U+0002 (which the printed text cannot
 *   hold), every `"` left bounds a string: the text split at them alternates between what lies
 *   outside strings (odd places) and string contents (even places), and only the former lose the
 *   space after `,` and `:`. Its body is one expression, so the planner inlines it into the
 *   statements that call it (it is no longer STRICT for that: NULL still gives NULL).
 * - `heddle_call_text` in PL/pgSQL: as an SQL function with a FROM clause it could not be inlined,
 *   and each call ran its body through the executor, twice the rendering's own cost.
 *
 * test/store/postgres-json-text.test.ts compares both with the functions they replace and with SQLite.
 */
export const migration: Migration = {
  id: 38,
  name: 'json-text-by-split',
  sqlite: [],
  postgres: String.raw`
CREATE OR REPLACE FUNCTION heddle_json_text(j jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT (SELECT replace(replace(string_agg(
      CASE WHEN part.n % 2 = 1 THEN replace(replace(part.s, ', ', ','), ': ', ':') ELSE part.s END,
      '"' ORDER BY part.n), chr(1), '\\'), chr(2), '\"')
    FROM unnest(string_to_array(replace(replace(j::text, '\\', chr(1)), '\"', chr(2)), '"'))
      WITH ORDINALITY AS part(s, n))
$$;

CREATE OR REPLACE FUNCTION heddle_call_text(j jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  w text;
BEGIN
  IF j IS NULL THEN
    RETURN '';
  END IF;
  w := heddle_json_text(j);
  IF strpos(w, '\') = 0 THEN
    RETURN w;
  END IF;
  RETURN w || COALESCE((
    SELECT E'\n' || string_agg(s, E'\n') FROM (SELECT v #>> '{}' AS s FROM jsonb_path_query(j, 'strict $.**') AS l(v)
      WHERE jsonb_typeof(v) = 'string') leaves WHERE strpos(w, s) = 0), '');
END
$$;
`,
};
