import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CallsRequest } from './calls.js';
import { getJson, postJson, postJsonl } from './client.js';
import { keys } from './keys.js';

/** Annotation queues (docs/spec/otel-service-queues.md §D). */
export interface Queue {
  id: string;
  name: string;
  description: string;
  created_at: string;
  created_by: string;
  /** Refs of the annotation specs (or scorers) a reviewer fills in. */
  scorer_refs: string[];
}

export type ItemState = 'unstarted' | 'in_progress' | 'completed' | 'skipped';

export interface QueueItem {
  id: string;
  call_id: string;
  call_op_name: string;
  call_started_at: string;
  display_fields: string[];
  annotation_state: ItemState;
  position_in_queue: number | null;
}

/** The most calls a queue is created with from one traces view. */
export const QUEUE_FROM_VIEW_LIMIT = 500;

export function useQueues(projectId: string) {
  return useQuery({
    queryKey: keys.queues(projectId),
    queryFn: async ({ signal }) => {
      const queues = await postJsonl<Queue>(
        '/annotation_queues/query',
        { project_id: projectId, sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 500 },
        signal,
      );
      const ids = queues.map((q) => q.id);
      const { stats } = ids.length
        ? await postJson<{ stats: { queue_id: string; total_items: number; completed_items: number }[] }>(
            '/annotation_queues/stats',
            { project_id: projectId, queue_ids: ids },
            signal,
          )
        : { stats: [] };
      const byId = new Map(stats.map((s) => [s.queue_id, s]));
      return queues.map((q) => ({
        ...q,
        total: byId.get(q.id)?.total_items ?? 0,
        done: byId.get(q.id)?.completed_items ?? 0,
      }));
    },
  });
}

export function useQueue(projectId: string, queueId: string) {
  return useQuery({
    queryKey: keys.queue(projectId, queueId),
    queryFn: async ({ signal }) =>
      (
        await getJson<{ queue: Queue }>(
          `/annotation_queues/${encodeURIComponent(queueId)}?project_id=${encodeURIComponent(projectId)}`,
          signal,
        )
      ).queue,
  });
}

/** Every item of a queue in review order (the order they were added), with its state. */
export function useQueueItems(projectId: string, queueId: string) {
  return useQuery({
    queryKey: keys.queueItems(projectId, queueId),
    queryFn: async ({ signal }) =>
      (
        await postJson<{ items: QueueItem[] }>(
          `/annotation_queues/${encodeURIComponent(queueId)}/items/query`,
          {
            project_id: projectId,
            sort_by: [{ field: 'created_at', direction: 'asc' }],
            include_position: true,
            limit: 10_000,
          },
          signal,
        )
      ).items,
  });
}

/**
 * Creates a queue and adds the calls of the current traces view (its filter and sort, the first
 * QUEUE_FROM_VIEW_LIMIT), reading their ids from `/calls/stream_query`.
 */
export function useCreateQueueFromView(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, req, scorerRefs }: { name: string; req: CallsRequest; scorerRefs: string[] }) => {
      const calls = await postJsonl<{ id: string }>('/calls/stream_query', {
        ...req,
        columns: ['id'],
        limit: QUEUE_FROM_VIEW_LIMIT,
      });
      if (calls.length === 0) throw new Error('No calls match this view');
      const { id } = await postJson<{ id: string }>('/annotation_queues', {
        project_id: projectId,
        name,
        description: null,
        scorer_refs: scorerRefs,
      });
      await postJson(`/annotation_queues/${encodeURIComponent(id)}/items`, {
        project_id: projectId,
        call_ids: calls.map((c) => c.id),
        display_fields: ['inputs', 'output'],
      });
      return { id, added: calls.length };
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.queues(projectId) }),
  });
}

export type Judgement = { kind: 'thumb'; emoji: '👍' | '👎' } | { kind: 'note'; note: string } | { kind: 'skip' };

/**
 * One reviewer judgement: a reaction or note lands as feedback on the call,
 * then the item's progress is recorded; a skip records progress only.
 */
export function useJudge(projectId: string, queueId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ item, judgement }: { item: QueueItem; judgement: Judgement }) => {
      if (judgement.kind !== 'skip')
        await postJson('/feedback/create', {
          project_id: projectId,
          // tags the judgement with the queue it was made in (docs/spec/objects.md §7.1)
          queue_id: queueId,
          weave_ref: `weave:///${projectId}/call/${item.call_id}`,
          ...(judgement.kind === 'thumb'
            ? { feedback_type: 'wandb.reaction.1', payload: { emoji: judgement.emoji } }
            : { feedback_type: 'wandb.note.1', payload: { note: judgement.note } }),
        });
      // A second judgement of an item already judged keeps its first state (the server refuses a
      // change from completed to skipped); the feedback still lands.
      if (item.annotation_state === 'completed' || item.annotation_state === 'skipped') return;
      await postJson(
        `/annotation_queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(item.id)}/progress`,
        {
          project_id: projectId,
          annotation_state: judgement.kind === 'skip' ? 'skipped' : 'completed',
        },
      );
    },
    onSuccess: (_r, { item }) => {
      void qc.invalidateQueries({ queryKey: keys.queueItems(projectId, queueId) });
      void qc.invalidateQueries({ queryKey: keys.queues(projectId) });
      void qc.invalidateQueries({
        queryKey: ['feedback', projectId, 'query', `weave:///${projectId}/call/${item.call_id}`],
      });
    },
  });
}
