/** `text` as a literal inside a `LIKE`/`ILIKE` pattern: its `\`, `%` and `_` escaped with the default escape `\`. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
