/**
 * Runs `tasks` with at most `limit` at once. On the first failure no new task starts; the ones
 * already running are awaited (so nothing writes after this returns), then the failure is thrown.
 */
export async function runBounded(tasks: ReadonlyArray<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < tasks.length) {
      const task = tasks[next]!;
      next += 1;
      try {
        await task();
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
