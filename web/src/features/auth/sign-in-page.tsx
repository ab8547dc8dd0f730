import { useState, type FormEvent } from 'react';
import { useSignIn } from '../../api/auth.js';
import { PageHeading } from '../../ui/page-heading.js';

export function SignInPage() {
  const [key, setKey] = useState('');
  const signIn = useSignIn();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!key.trim()) return;
    signIn.mutate(key.trim(), { onSuccess: () => setKey('') });
  };
  return (
    <main className="page signin">
      <form className="card" onSubmit={submit} aria-labelledby="signin-title">
        <PageHeading>
          <span id="signin-title">Sign in to Heddle</span>
        </PageHeading>
        <p className="muted">
          Use an API key created with <code>heddle keys create</code>. It is sent once and kept by nothing but the
          server's session.
        </p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
          autoFocus
        />
        {signIn.isError && (
          <p role="alert" className="error-text">
            {signIn.error.message === 'Invalid API key' || /401|invalid|not authenticated/i.test(signIn.error.message)
              ? 'That API key was not accepted.'
              : signIn.error.message}
          </p>
        )}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
