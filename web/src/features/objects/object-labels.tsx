import { useState, type FormEvent } from 'react';
import { useObjectLabels, type ObjVersion } from '../../api/objects.js';

/** Tags of this version and aliases pointing at it, with forms to publish or remove either. */
export function ObjectLabels({ projectId, obj }: { projectId: string; obj: ObjVersion }) {
  const labels = useObjectLabels(projectId, obj.object_id);
  const [tag, setTag] = useState('');
  const [alias, setAlias] = useState('');
  const submit = (action: 'add-tag' | 'set-alias', value: string, reset: () => void) => (e: FormEvent) => {
    e.preventDefault();
    const v = value.trim();
    if (!v) return;
    labels.mutate({ action, digest: obj.digest, value: v }, { onSuccess: reset });
  };
  const remove = (action: 'remove-tag' | 'remove-alias', value: string) =>
    labels.mutate({ action, digest: obj.digest, value });
  return (
    <section aria-labelledby="labels-h" className="labels">
      <h2 id="labels-h">Aliases and tags</h2>
      <div className="label-groups">
        <div>
          {/* `latest` always names the newest version; the server keeps it, so it has no remove button. */}
          <h3>Aliases</h3>
          <ul className="chips" aria-label="Aliases">
            {(obj.aliases ?? []).map((a) => (
              <li key={a} className="chip">
                {a}
                {a !== 'latest' && (
                  <button
                    type="button"
                    className="chip-x"
                    aria-label={`Remove alias ${a}`}
                    onClick={() => remove('remove-alias', a)}
                  >
                    ×
                  </button>
                )}
              </li>
            ))}
            {(obj.aliases ?? []).length === 0 && <li className="muted small">none</li>}
          </ul>
          <form className="inline-form" onSubmit={submit('set-alias', alias, () => setAlias(''))}>
            <label>
              <span className="sr-only">New alias</span>
              <input
                value={alias}
                onChange={(e) => setAlias(e.target.value)}
                placeholder="production"
                aria-label="New alias"
              />
            </label>
            <button type="submit" disabled={labels.isPending}>
              Point alias here
            </button>
          </form>
        </div>
        <div>
          <h3>Tags</h3>
          <ul className="chips" aria-label="Tags">
            {(obj.tags ?? []).map((t) => (
              <li key={t} className="chip">
                {t}
                <button
                  type="button"
                  className="chip-x"
                  aria-label={`Remove tag ${t}`}
                  onClick={() => remove('remove-tag', t)}
                >
                  ×
                </button>
              </li>
            ))}
            {(obj.tags ?? []).length === 0 && <li className="muted small">none</li>}
          </ul>
          <form className="inline-form" onSubmit={submit('add-tag', tag, () => setTag(''))}>
            <label>
              <span className="sr-only">New tag</span>
              <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="reviewed" aria-label="New tag" />
            </label>
            <button type="submit" disabled={labels.isPending}>
              Add tag
            </button>
          </form>
        </div>
      </div>
      {labels.isError && <p role="alert">Not saved: {labels.error.message}</p>}
    </section>
  );
}
