/**
 * CSV cells and records (RFC 4180 §2): a field holding a comma, a double quote, CR or LF is
 * enclosed in double quotes, and a double quote inside it is doubled. Records end with CRLF.
 */

/**
 * Characters that make a spreadsheet read a text cell as a formula (OWASP "CSV Injection"):
 * `=`, `+`, `-`, `@`, and tab and CR, which some spreadsheets skip before looking for them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell value: text is neutralised and quoted as needed; numbers are written as they are. */
export type CsvValue = string | number | null | undefined;

/**
 * One field. Text starting like a formula gets a leading `'` so a spreadsheet shows it as text
 * instead of evaluating it; numbers are not touched (a negative number stays a number).
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
