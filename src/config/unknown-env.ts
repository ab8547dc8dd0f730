/**
 * `HEDDLE_*` variables Heddle does not read: most likely a typo (`HEDDLE_PROT`), which would
 * otherwise leave the setting at its default without a word. Reported as warnings, not failures:
 * the same environment often carries variables for tools around Heddle (its test harness, client
 * scripts), and a newer deployment file may set a variable an older Heddle does not know yet.
 */

/** Variables of Heddle's test harness and client scripts, not of the server. */
const OTHER_TOOLS = /^HEDDLE_(TEST_|DEMO_)|^HEDDLE_(URL|KEY|API_KEY)$/;

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  // d is (a.length + 1) × (b.length + 1), so every index below is in range
  for (let j = 1; j <= b.length; j += 1) d[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** One warning line per unknown `HEDDLE_*` variable, naming the closest known one. */
export function unknownVariableWarnings(known: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const knownSet = new Set(known);
  const candidates = known.filter((name) => name.startsWith('HEDDLE_'));
  return Object.keys(env)
    .filter((name) => name.startsWith('HEDDLE_') && !knownSet.has(name) && !OTHER_TOOLS.test(name))
    .sort()
    .map((name) => {
      let best = candidates[0];
      if (best === undefined) return `Unknown setting ${name} is ignored`;
      for (const candidate of candidates)
        if (editDistance(name, candidate) < editDistance(name, best)) best = candidate;
      return `Unknown setting ${name} is ignored; did you mean ${best}?`;
    });
}
