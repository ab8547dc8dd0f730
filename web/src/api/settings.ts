import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { postJson } from './client.js';
import { keys } from './keys.js';

/** API keys of an entity's members (src/routes/keys.ts); the secret is never listed. */
export interface ApiKey {
  id: string;
  prefix: string;
  username: string;
  admin: boolean;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  username: string;
}

export function useApiKeys(entity: string) {
  return useQuery({
    queryKey: keys.apiKeys(entity),
    retry: false,
    queryFn: async ({ signal }) => (await postJson<{ keys: ApiKey[] }>('/keys/query', { entity }, signal)).keys,
  });
}

export function useCreateKey(entity: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (req: { username?: string; entity_admin: boolean }) =>
      postJson<CreatedKey>('/keys/create', { entity, ...req }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.apiKeys(entity) }),
  });
}

export function useRevokeKey(entity: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => postJson<ApiKey>('/keys/revoke', { entity, id }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.apiKeys(entity) }),
  });
}

/** A project price (docs/spec/objects.md §8.3). */
export interface Price {
  id: string;
  llm_id: string;
  prompt_token_cost: number;
  completion_token_cost: number;
  prompt_token_cost_unit: string | null;
  effective_date: string | null;
  provider_id: string | null;
}

export function usePrices(projectId: string) {
  return useQuery({
    queryKey: keys.prices(projectId),
    queryFn: async ({ signal }) =>
      (
        await postJson<{ results: Price[] }>(
          '/cost/query',
          { project_id: projectId, sort_by: [{ field: 'llm_id', direction: 'asc' }], limit: 1000 },
          signal,
        )
      ).results,
  });
}

export function useCreatePrice(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (p: { llm_id: string; prompt: number; completion: number; effective_date: string | null }) =>
      postJson('/cost/create', {
        project_id: projectId,
        costs: {
          [p.llm_id]: {
            prompt_token_cost: p.prompt,
            completion_token_cost: p.completion,
            effective_date: p.effective_date,
          },
        },
      }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.prices(projectId) });
      void qc.invalidateQueries({ queryKey: keys.calls(projectId) });
    },
  });
}
