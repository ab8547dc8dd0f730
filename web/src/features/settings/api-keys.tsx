import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.js';
import { useApiKeys, useCreateKey, useRevokeKey, type CreatedKey } from '../../api/settings.js';
import { formatTime } from '../../lib/format.js';

/** API keys of the entity's members: create (the secret shown once), list, revoke. */
export function ApiKeys({ entity }: { entity: string }) {
  const list = useApiKeys(entity);
  const create = useCreateKey(entity);
  const revoke = useRevokeKey(entity);
  const [username, setUsername] = useState('');
  const [entityAdmin, setEntityAdmin] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { username: username.trim() || undefined, entity_admin: entityAdmin },
      {
        onSuccess: (k) => {
          setCreated(k);
          setUsername('');
          setEntityAdmin(false);
        },
      },
    );
  };
  if (list.isError && list.error instanceof ApiError && list.error.status === 403)
    return (
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">API keys</h2>
        <p>Only an admin of {entity} can manage its keys.</p>
      </section>
    );
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys of {entity}</h2>
      <form className="inline-form wrap" onSubmit={submit}>
        <label htmlFor="key-user">User</label>
        <input
          id="key-user"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          placeholder={entity}
          pattern="[^/]+"
        />
        <label>
          <input type="checkbox" checked={entityAdmin} onChange={(e) => setEntityAdmin(e.target.checked)} /> Entity
          admin
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {create.isError && (
        <p role="alert" className="error-text">
          Could not create the key: {create.error.message}
        </p>
      )}
      {created && (
        <div className="new-key" role="status">
          <p>
            New key for <strong>{created.username}</strong>. Copy it now: it is not shown again.
          </p>
          <code className="mono" aria-label="New API key">
            {created.key}
          </code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.key)}>
            Copy
          </button>{' '}
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      {list.isPending && <p className="muted">Loading keys…</p>}
      {list.isError && <p role="alert">Could not load keys: {list.error.message}</p>}
      {list.data && (
        <table className="simple-table" aria-label="API keys">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">User</th>
              <th scope="col">Created (UTC)</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((k) => (
              <tr key={k.id}>
                <th scope="row" className="mono">
                  {k.prefix}…
                </th>
                <td>
                  {k.username}
                  {k.admin ? ' (instance admin)' : ''}
                </td>
                <td className="small">{formatTime(k.created_at, false)}</td>
                <td>{k.revoked_at ? `Revoked ${formatTime(k.revoked_at, false)}` : 'Active'}</td>
                <td>
                  {!k.revoked_at &&
                    (confirm === k.id ? (
                      <>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => revoke.mutate(k.id, { onSettled: () => setConfirm(null) })}
                        >
                          Confirm revoke {k.prefix}
                        </button>{' '}
                        <button type="button" onClick={() => setConfirm(null)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" onClick={() => setConfirm(k.id)} aria-label={`Revoke key ${k.prefix}`}>
                        Revoke
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {revoke.isError && (
        <p role="alert" className="error-text">
          Could not revoke: {revoke.error.message}
        </p>
      )}
    </section>
  );
}
