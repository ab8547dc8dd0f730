/**
 * The one rule for entity and project names, on every path that takes them: the REST routes'
 * `project_id` (services/project-access.ts) and the GraphQL project upsert
 * (services/wandb-compat-service.ts). The official clients' names (`my-team/my_project.v2`) pass;
 * whitespace, control characters, separators and dot-only names (`..`) do not (issue 17).
 */

/** Longest entity or project name accepted (W&B allows 128 characters). */
export const MAX_NAME_LENGTH = 128;

const NAME_RE = /^[A-Za-z0-9_.-]+$/;

/** NAME_RE and the dot-only exclusion as one JSON-schema `pattern` (schemas taking an entity alone, e.g. schemas/keys.ts). */
export const NAME_PATTERN = '^(?!\\.+$)[A-Za-z0-9_.-]+$';

/** What a valid name looks like, for error messages. */
export const NAME_RULE = `1 to ${MAX_NAME_LENGTH} letters, digits, "-", "_" or "." (not only dots)`;

/** True when `name` may be an entity or project name. */
export function isValidName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME_RE.test(name) && !/^\.+$/.test(name);
}

/** `value` shortened for an error message (a rejected name may be 100,000 characters long). */
export function quoteForMessage(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
