import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useSavePrompt } from '../../api/completions.js';
import { messagesPromptValue, promptNameProblem, type Variant } from '../../lib/playground.js';

/** Saves a variant's messages as a `MessagesPrompt` object (a new version when the name exists). */
export function SavePrompt({
  n,
  variant,
  entity,
  project,
}: {
  n: number;
  variant: Variant;
  entity: string;
  project: string;
}) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSavePrompt(`${entity}/${project}`);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    const wrong =
      promptNameProblem(trimmed) ?? (variant.messages.some((m) => m.content.trim()) ? null : 'Write a message first');
    setProblem(wrong);
    if (!wrong) save.mutate({ name: trimmed, val: messagesPromptValue(variant, trimmed) });
  };
  return (
    <form className="save-prompt" onSubmit={submit} noValidate>
      <label htmlFor={`variant-${n}-prompt-name`}>Prompt name</label>
      <input
        id={`variant-${n}-prompt-name`}
        aria-label={`Prompt name for variant ${n}`}
        value={name}
        spellCheck={false}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" disabled={save.isPending}>
        Save prompt
      </button>
      {problem && (
        <span role="alert" className="error-text">
          {problem}
        </span>
      )}
      {save.isError && (
        <span role="alert" className="error-text">
          Could not save: {save.error.message}
        </span>
      )}
      {save.data && save.variables && (
        <span role="status" className="small">
          Saved{' '}
          <Link
            to="/$entity/$project/weave/objects/$name/versions/$digest"
            params={{ entity, project, name: save.variables.name, digest: save.data.digest }}
          >
            {save.variables.name}:{save.data.digest.slice(0, 8)}
          </Link>
        </span>
      )}
    </form>
  );
}
