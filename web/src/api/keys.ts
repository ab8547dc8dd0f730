/** Query keys: [area, projectId, operation, request], so invalidation works by prefix. */
export const keys = {
  session: () => ['auth', 'session'] as const,
  projects: () => ['projects'] as const,
  calls: (projectId: string) => ['calls', projectId] as const,
  callsQuery: (projectId: string, req: unknown) => ['calls', projectId, 'stream_query', req] as const,
  callsCount: (projectId: string, req: unknown) => ['calls', projectId, 'query_stats', req] as const,
  call: (projectId: string, id: string) => ['calls', projectId, 'read', id] as const,
  trace: (projectId: string, traceId: string) => ['calls', projectId, 'trace', traceId] as const,
  feedback: (projectId: string, ref: string) => ['feedback', projectId, 'query', ref] as const,
  threads: (projectId: string) => ['threads', projectId, 'stream_query'] as const,
  turns: (projectId: string, threadId: string) => ['calls', projectId, 'turns', threadId] as const,
  obj: (projectId: string, name: string, digest: string) => ['objects', projectId, 'read', name, digest] as const,
  evalRuns: (projectId: string) => ['evals', projectId, 'runs'] as const,
  evalRoots: (projectId: string, ids: string[]) => ['evals', projectId, 'roots', ids] as const,
  evalStatus: (projectId: string, id: string) => ['evals', projectId, 'status', id] as const,
  evalResults: (projectId: string, req: unknown) => ['evals', projectId, 'eval_results', req] as const,
  file: (projectId: string, digest: string) => ['files', projectId, 'content', digest] as const,
};
