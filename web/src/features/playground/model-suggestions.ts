import { useMemo } from 'react';
import { useObjectsList } from '../../api/objects.js';
import { useTrainingModels } from '../../api/training.js';
import { objectVersionRef } from '../../lib/format.js';

interface Suggestion {
  value: string;
  label?: string;
}

const isClass = (o: { kind: string; base_object_class: string | null; leaf_object_class: string | null }, c: string) =>
  o.kind === 'object' && (o.base_object_class === c || o.leaf_object_class === c);

/**
 * Models to suggest: `heddle/<model>` for the project's trained models, `<id>/` for its Provider
 * objects, and each `ProviderModel` object by its ref (labelled with its name); and the names of
 * the saved `MessagesPrompt`s.
 */
export function useModelSuggestions(entity: string, project: string): { models: Suggestion[]; prompts: string[] } {
  const trained = useTrainingModels(entity, project);
  const objects = useObjectsList(`${entity}/${project}`);
  return useMemo(() => {
    const models: Suggestion[] = (trained.data ?? []).map((m) => ({ value: `heddle/${m.name}` }));
    const prompts: string[] = [];
    for (const o of objects.data ?? []) {
      if (isClass(o, 'Provider')) models.push({ value: `${o.object_id}/` });
      else if (isClass(o, 'ProviderModel'))
        models.push({
          value: objectVersionRef(`${entity}/${project}`, 'object', o.object_id, o.digest),
          label: `${o.object_id} (provider model)`,
        });
      else if (isClass(o, 'MessagesPrompt')) prompts.push(o.object_id);
    }
    return { models, prompts: prompts.sort() };
  }, [trained.data, objects.data, entity, project]);
}
