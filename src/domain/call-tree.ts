/**
 * Adds to `collected` every call reachable through parent links from a collected id: the
 * descendants a delete cascades to (docs/spec/calls.md §3.1). `calls` are the live calls of the traces
 * involved; links to calls outside them are not followed.
 */
export function collectDescendants(
  collected: Set<string>,
  calls: ReadonlyArray<{ id: string; parent_id: string | null }>,
): void {
  const children = new Map<string, string[]>();
  for (const call of calls) {
    if (call.parent_id === null) continue;
    const list = children.get(call.parent_id) ?? [];
    list.push(call.id);
    children.set(call.parent_id, list);
  }
  const pending = [...collected];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      if (!collected.has(child)) {
        collected.add(child);
        pending.push(child);
      }
    }
  }
}
