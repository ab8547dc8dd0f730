/** What is wrong with a name for a new object (a prompt, a dataset), or null. */
export function objectNameProblem(name: string, noun: string): string | null {
  if (name === '') return `Name the ${noun}`;
  if (name.length > 128) return 'A name has at most 128 characters';
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return 'Use letters, digits, “-”, “_” and “.” only';
  return null;
}
