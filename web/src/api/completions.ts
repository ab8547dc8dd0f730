import { useMutation, useQueryClient } from '@tanstack/react-query';
import { postJson, request } from './client.js';
import { readJsonl } from './stream/jsonl.js';
import { keys } from './keys.js';
import type { ApiPaths } from './openapi.gen.js';

/** The playground's API: one chat completion, recorded as a `weave.completions_create` call. */
export type CompletionRes = ApiPaths['/completions/create']['post']['response'];

export type CompletionInputs = ApiPaths['/completions/create']['post']['body']['inputs'];

export function runCompletion(projectId: string, inputs: CompletionInputs): Promise<CompletionRes> {
  return postJson<CompletionRes>('/completions/create', { project_id: projectId, inputs });
}

/**
 * One chat completion through `/completions/create_stream`: each JSON line is handed to `onLine`
 * as it arrives (the recorded call's id first, then the provider's chunks).
 */
export async function streamCompletion(
  projectId: string,
  inputs: CompletionInputs,
  onLine: (line: unknown) => void,
): Promise<void> {
  const res = await request('/completions/create_stream', {
    body: { project_id: projectId, inputs },
    accept: 'application/jsonl',
  });
  if (!res.body) return;
  for await (const line of readJsonl<unknown>(res.body)) onLine(line);
}

/** Publishes a `MessagesPrompt` version; answers its digest. */
export function useSavePrompt(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, val }: { name: string; val: Record<string, unknown> }) =>
      postJson<{ digest: string }>('/obj/create', { obj: { project_id: projectId, object_id: name, val } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}

/** After a run the traces table and dashboards have new calls. */
export function useInvalidateCalls(projectId: string): () => void {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: keys.calls(projectId) });
}
