/**
 * SQL functions the PostgreSQL dialect calls (created by migration 001). Each mirrors the JavaScript
 * function the SQLite adapter registers under the same name (sqlite/sqlite-dialect.ts), so a query
 * means the same on both stores. Written with String.raw: the bodies hold regular expressions.
 * Part of a released migration: never edit; change a function with a new migration.
 */
export const POSTGRES_FUNCTIONS_SQL = String.raw`
DO $check$
BEGIN
  -- every text function below assumes UTF-8 (code point order of the "C" collation, Unicode case)
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'Heddle needs a UTF8 database, this one is %', current_setting('server_encoding');
  END IF;
END
$check$;

-- JSONB prints ", " and ": " between items; the compact text is what SQLite returns and measures.
CREATE FUNCTION heddle_json_text(j jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT regexp_replace(j::text, '("(?:[^"\\]|\\.)*")|([,:]) ', '\1\2', 'g') $$;

-- Number(text) for decimal text; NULL otherwise. Out-of-range values saturate like JavaScript.
CREATE FUNCTION heddle_text_to_double(t text) RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
AS $$
DECLARE
  n numeric;
BEGIN
  IF t !~ '^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$' THEN
    RETURN NULL;
  END IF;
  IF length(t) <= 300 AND t !~ '[eE]' THEN
    RETURN t::float8;  -- the common case needs no error handling: it cannot overflow
  END IF;
  BEGIN
    RETURN t::float8;
  EXCEPTION WHEN numeric_value_out_of_range THEN
    BEGIN
      n := t::numeric;
      RETURN CASE WHEN abs(n) < 1 THEN 0 WHEN n < 0 THEN '-Infinity'::float8 ELSE 'Infinity'::float8 END;
    EXCEPTION WHEN OTHERS THEN
      RETURN CASE WHEN t ~ '[eE]\s*-' THEN 0 WHEN t ~ '^\s*-' THEN '-Infinity'::float8 ELSE 'Infinity'::float8 END;
    END;
  END;
END
$$;

-- Integer text within JavaScript's safe integers; NULL otherwise.
CREATE FUNCTION heddle_text_to_int(t text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
  SELECT CASE WHEN m IS NOT NULL AND length(ltrim(m[2], '0')) <= 16 AND abs((m[1] || m[2])::numeric) <= 9007199254740991
    THEN (m[1] || m[2])::bigint END
  FROM regexp_match(t, '^\s*([+-]?)(\d+)\s*$') AS m
$$;

-- "true" → 1, "false" → 0, an integer 0..255 as itself, otherwise NULL.
CREATE FUNCTION heddle_text_to_bool(t text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
  SELECT CASE
    WHEN t = 'true' THEN 1
    WHEN t = 'false' THEN 0
    -- nested so the cast only ever sees short integer text
    WHEN t ~ '^\s*[+-]?\d+\s*$' AND length(ltrim(regexp_replace(t, '\D', '', 'g'), '0')) <= 3 THEN
      CASE WHEN t::integer BETWEEN 0 AND 255 THEN t::integer END
  END
$$;

-- String(number) of JavaScript: shortest round-trip digits, exponent only below 1e-6 or from 1e21.
CREATE FUNCTION heddle_number_to_text(x float8) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT
SET extra_float_digits = 1
AS $$
DECLARE
  s text := x::text;
  neg boolean := false;
  m text[];
  digits text;
  e integer;
  k integer;
  r text;
BEGIN
  IF x = 0 THEN RETURN '0'; END IF;
  IF s IN ('Infinity', '-Infinity', 'NaN') THEN RETURN s; END IF;
  IF left(s, 1) = '-' THEN neg := true; s := substr(s, 2); END IF;
  m := regexp_match(s, '^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$');
  digits := m[1] || coalesce(m[2], '');
  e := coalesce(m[3]::integer, 0) + length(m[1]);  -- x = 0.digits × 10^e
  WHILE left(digits, 1) = '0' LOOP
    digits := substr(digits, 2);
    e := e - 1;
  END LOOP;
  digits := rtrim(digits, '0');
  k := length(digits);
  IF k <= e AND e <= 21 THEN
    r := digits || repeat('0', e - k);
  ELSIF 0 < e AND e <= 21 THEN
    r := left(digits, e) || '.' || substr(digits, e + 1);
  ELSIF -6 < e AND e <= 0 THEN
    r := '0.' || repeat('0', -e) || digits;
  ELSE
    r := left(digits, 1) || CASE WHEN k > 1 THEN '.' || substr(digits, 2) ELSE '' END
      || 'e' || CASE WHEN e - 1 >= 0 THEN '+' ELSE '-' END || abs(e - 1)::text;
  END IF;
  RETURN CASE WHEN neg THEN '-' || r ELSE r END;
END
$$;

-- formatMicros (domain/time.ts): 2025-01-01T10:00:00Z, or with six fraction digits when not whole.
CREATE FUNCTION heddle_format_micros(micros bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
  SELECT to_char(to_timestamp(s) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
    || CASE WHEN c - s * 1000000 = 0 THEN '' ELSE '.' || lpad((c - s * 1000000)::text, 6, '0') END || 'Z'
  FROM (SELECT c, div(c - ((c % 1000000) + 1000000) % 1000000, 1000000)::bigint AS s
        FROM (SELECT least(greatest(micros, -62135596800000000), 253402300799999968) AS c) clamped) parts
$$;

-- Unicode-aware case folding and word tokens need a Unicode collation: ICU's root locale when the
-- server has ICU, else C.utf8, else the database default.
DO $unicode$
DECLARE
  coll text := CASE
    WHEN EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN '"und-x-icu"'
    WHEN EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'C.utf8' AND collencoding IN (-1, 6)) THEN '"C.utf8"'
    ELSE '"default"'
  END;
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION heddle_lower(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS 'SELECT lower(t COLLATE %s)'
  $f$, coll);
  EXECUTE format($f$
    CREATE FUNCTION heddle_contains_token(t text, token text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS 'SELECT token <> '''' AND EXISTS (SELECT 1 FROM regexp_split_to_table(t COLLATE %s, ''[^[:alnum:]]+'') AS w(word)
        WHERE w.word COLLATE "C" = token COLLATE "C")'
  $f$, coll);
END
$unicode$;
`;
