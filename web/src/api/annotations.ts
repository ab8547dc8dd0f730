import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  annotationSpecValue,
  specView,
  type AnnotationFeedback,
  type SpecDraft,
  type SpecView,
} from '../lib/annotations.js';
import { parseRef } from '../lib/format.js';
import { postJson } from './client.js';
import { keys } from './keys.js';
import { latestOfClass } from './objects.js';
import type { QueueItem } from './queues.js';

/** The project's annotation specs: the latest version of every `AnnotationSpec` object. */
export function useAnnotationSpecs(projectId: string) {
  return useQuery({
    queryKey: ['objects', projectId, 'annotation-specs'] as const,
    queryFn: async ({ signal }) =>
      (await latestOfClass(projectId, 'AnnotationSpec', signal)).map((o) => specView(projectId, o)),
  });
}

/** The specs a queue names in `scorer_refs` (the versions named), through `/refs/read_batch`; other refs are left out. */
export function useQueueSpecs(projectId: string, refs: readonly string[]) {
  return useQuery({
    queryKey: ['objects', projectId, 'queue-specs', refs] as const,
    enabled: refs.length > 0,
    staleTime: Infinity,
    queryFn: async ({ signal }) => {
      const objectRefs = refs.filter((r) => parseRef(r)?.kind === 'object');
      if (objectRefs.length === 0) return [];
      const { vals } = await postJson<{ vals: unknown[] }>('/refs/read_batch', { refs: objectRefs }, signal);
      return objectRefs.flatMap((ref, i): SpecView[] => {
        const val = vals[i] as { _class_name?: unknown } | null;
        const parsed = parseRef(ref)!;
        if (!val || val._class_name !== 'AnnotationSpec') return [];
        return [{ ...specView(projectId, { object_id: parsed.name, digest: parsed.digest, val }), ref }];
      });
    },
  });
}

/** Publishes an `AnnotationSpec` (a new version when the name exists). */
export function useCreateSpec(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ draft, schema }: { draft: SpecDraft; schema: Record<string, unknown> }) =>
      postJson<{ digest: string }>('/obj/create', {
        obj: {
          project_id: projectId,
          object_id: draft.name,
          val: annotationSpecValue(draft, schema),
          builtin_object_class: 'AnnotationSpec',
        },
      }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}

export interface AnnotationEntry {
  spec: SpecView;
  value: unknown;
  /** The reviewer's earlier annotation of this spec on the call: replaced, not added to. */
  previous: AnnotationFeedback | undefined;
}

/**
 * Saves a reviewer's annotations of one queue item (`wandb.annotation.<spec>` feedback with the
 * spec's ref and the queue's id; an earlier one by the same reviewer is replaced), then marks the
 * item reviewed.
 */
export function useAnnotate(projectId: string, queueId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ item, entries }: { item: QueueItem; entries: AnnotationEntry[] }) => {
      const weaveRef = `weave:///${projectId}/call/${item.call_id}`;
      for (const e of entries) {
        const body = {
          project_id: projectId,
          weave_ref: weaveRef,
          feedback_type: `wandb.annotation.${e.spec.name}`,
          annotation_ref: e.spec.ref,
          queue_id: queueId,
          payload: { value: e.value },
        };
        if (e.previous) await postJson('/feedback/replace', { ...body, feedback_id: e.previous.id });
        else await postJson('/feedback/create', body);
      }
      if (item.annotation_state === 'completed' || item.annotation_state === 'skipped') return;
      await postJson(
        `/annotation_queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(item.id)}/progress`,
        { project_id: projectId, annotation_state: 'completed' },
      );
    },
    onSuccess: (_r, { item }) => {
      void qc.invalidateQueries({ queryKey: keys.queueItems(projectId, queueId) });
      void qc.invalidateQueries({ queryKey: keys.queues(projectId) });
      void qc.invalidateQueries({ queryKey: keys.feedback(projectId, `weave:///${projectId}/call/${item.call_id}`) });
    },
  });
}
