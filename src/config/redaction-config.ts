import { BUILTIN_KINDS } from '../domain/redaction.js';

/**
 * The redaction settings (issue 35, docs/redaction.md), from three variables:
 * `HEDDLE_REDACT` (kinds for every project, comma-separated), `HEDDLE_REDACT_SCOPES` (JSON: an
 * entity or `entity/project` → its kinds, the most specific wins, `[]` turns redaction off there)
 * and `HEDDLE_REDACT_PATTERNS` (JSON: a name → a regular expression). A kind is a built-in
 * (`email`, `phone`, `ssn`, `credit_card`, `ip`), `all` (every built-in and custom pattern),
 * `custom` (every custom pattern) or a custom pattern's name.
 */
export interface RedactionSettings {
  /** Kinds applied to a project no scope names. */
  defaultKinds: readonly string[];
  /** Entity or `entity/project` → kinds. */
  scopes: ReadonlyMap<string, readonly string[]>;
  custom: ReadonlyMap<string, RegExp>;
}

/** Parses the three variables; throws an Error whose message names the variable and the problem. */
export function parseRedactionSettings(
  kinds: string | undefined,
  scopes: string | undefined,
  patterns: string | undefined,
): RedactionSettings {
  const custom = new Map<string, RegExp>();
  for (const [name, source] of Object.entries(jsonObject('HEDDLE_REDACT_PATTERNS', patterns))) {
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(name))
      throw new Error(`HEDDLE_REDACT_PATTERNS: "${name}" is not a pattern name (lowercase letters, digits, _)`);
    if ((BUILTIN_KINDS as readonly string[]).includes(name) || name === 'all' || name === 'custom')
      throw new Error(`HEDDLE_REDACT_PATTERNS: "${name}" is a built-in kind`);
    if (typeof source !== 'string') throw new Error(`HEDDLE_REDACT_PATTERNS: "${name}" must be a string`);
    try {
      custom.set(name, new RegExp(source, 'g'));
    } catch (error) {
      throw new Error(`HEDDLE_REDACT_PATTERNS: "${name}": ${(error as Error).message}`, { cause: error });
    }
    if (custom.get(name)!.test('')) throw new Error(`HEDDLE_REDACT_PATTERNS: "${name}" matches the empty string`);
  }
  const known = new Set<string>([...BUILTIN_KINDS, 'all', 'custom', ...custom.keys()]);
  const kindList = (variable: string, list: unknown[]): string[] => {
    for (const k of list)
      if (typeof k !== 'string' || !known.has(k))
        throw new Error(`${variable}: unknown kind ${JSON.stringify(k)} (known: ${[...known].join(', ')})`);
    const out = list as string[];
    return out.includes('all') ? [...BUILTIN_KINDS, ...custom.keys()] : out;
  };
  const defaultKinds = kindList(
    'HEDDLE_REDACT',
    (kinds ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
  );
  const scopeMap = new Map<string, string[]>();
  for (const [scope, list] of Object.entries(jsonObject('HEDDLE_REDACT_SCOPES', scopes))) {
    if (!/^[^/\s]+(\/[^/\s]+)?$/.test(scope))
      throw new Error(`HEDDLE_REDACT_SCOPES: "${scope}" is not an entity or entity/project`);
    if (!Array.isArray(list)) throw new Error(`HEDDLE_REDACT_SCOPES: "${scope}" must map to a list of kinds`);
    scopeMap.set(scope, kindList(`HEDDLE_REDACT_SCOPES["${scope}"]`, list));
  }
  return { defaultKinds, scopes: scopeMap, custom };
}

function jsonObject(variable: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${variable}: not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${variable}: must be a JSON object`);
  return value as Record<string, unknown>;
}
