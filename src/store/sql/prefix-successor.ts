/**
 * The least string greater than every string that starts with `prefix` (code point order):
 * the last code point incremented, dropping trailing U+10FFFF. Null when there is none
 * (an empty prefix, or one made only of U+10FFFF).
 */
export function prefixSuccessor(prefix: string): string | null {
  const points = [...prefix].map((ch) => ch.codePointAt(0)!);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  if (points.length === 0) return null;
  let last = points[points.length - 1]! + 1;
  if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
  points[points.length - 1] = last;
  return String.fromCodePoint(...points);
}
