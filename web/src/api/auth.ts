import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, getJson, postJson, request } from './client.js';
import { keys } from './keys.js';

export interface Session {
  user: { id: string; username: string };
  entities: string[];
  /** Entities where the user may write: a viewer's entities are not among them. */
  writable_entities: string[];
  instance_admin: boolean;
}

/** The current session; `null` when signed out (401). */
export function useSession() {
  return useQuery({
    queryKey: keys.session(),
    queryFn: async ({ signal }) => {
      try {
        return await getJson<Session>('/auth/session', signal);
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 5 * 60_000,
    retry: false,
  });
}

/**
 * Whether the signed-in user may change the entity's data, so a page offers a viewer only what it can
 * do (the server refuses the rest with 403 either way). False until the session is known.
 */
export function useCanWrite(entity: string): boolean {
  const session = useSession().data;
  return session ? session.instance_admin || session.writable_entities.includes(entity) : false;
}

export function useSignIn() {
  const qc = useQueryClient();
  return useMutation({
    // The key lives only in this request's body; it is never stored.
    mutationFn: (apiKey: string) => postJson<Session>('/auth/session', { api_key: apiKey }),
    onSuccess: (session) => {
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'auth' });
      qc.setQueryData(keys.session(), session);
    },
  });
}

export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await request('/auth/session', { method: 'DELETE' });
    },
    onSettled: () => {
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'auth' });
      qc.setQueryData(keys.session(), null);
    },
  });
}
