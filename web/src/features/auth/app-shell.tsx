import { Link, Outlet, useParams } from '@tanstack/react-router';
import { Suspense } from 'react';
import { useSession, useSignOut } from '../../api/auth.js';
import { SignInPage } from './sign-in-page.js';
import { ShortcutsDialog } from '../../ui/shortcuts-dialog.js';

/** Header and sign-in gate: a signed-out visitor sees the sign-in form at any URL, then that URL. */
export function AppShell() {
  const session = useSession();
  const signOut = useSignOut();
  const params = useParams({ strict: false }) as { entity?: string; project?: string };
  const inProject = params.entity && params.project;

  if (session.isPending) return <p className="page muted">Loading…</p>;
  if (session.isError)
    return (
      <main className="page narrow">
        <h1>Heddle</h1>
        <p role="alert">Cannot reach the server: {session.error.message}</p>
      </main>
    );
  if (!session.data) return <SignInPage />;

  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand">
          Heddle
        </Link>
        {inProject && (
          <nav aria-label="Project">
            <span className="crumb mono">
              {params.entity}/{params.project}
            </span>
            <Link
              to="/$entity/$project/weave"
              params={{ entity: params.entity!, project: params.project! }}
              activeOptions={{ exact: true, includeSearch: false }}
            >
              Traces
            </Link>
            <Link to="/$entity/$project/weave/threads" params={{ entity: params.entity!, project: params.project! }}>
              Threads
            </Link>
            <Link to="/$entity/$project/weave/agents" params={{ entity: params.entity!, project: params.project! }}>
              Agents
            </Link>
            <Link to="/$entity/$project/weave/dashboard" params={{ entity: params.entity!, project: params.project! }}>
              Dashboard
            </Link>
            <Link
              to="/$entity/$project/weave/evaluations"
              params={{ entity: params.entity!, project: params.project! }}
            >
              Evaluations
            </Link>
            <Link to="/$entity/$project/weave/objects" params={{ entity: params.entity!, project: params.project! }}>
              Objects
            </Link>
            <Link to="/$entity/$project/weave/queues" params={{ entity: params.entity!, project: params.project! }}>
              Queues
            </Link>
            <Link to="/$entity/$project/weave/monitors" params={{ entity: params.entity!, project: params.project! }}>
              Monitors
            </Link>
            <Link to="/$entity/$project/weave/alerts" params={{ entity: params.entity!, project: params.project! }}>
              Alerts
            </Link>
            <Link to="/$entity/$project/weave/playground" params={{ entity: params.entity!, project: params.project! }}>
              Playground
            </Link>
            <Link to="/$entity/$project/weave/training" params={{ entity: params.entity!, project: params.project! }}>
              Training
            </Link>
            <Link to="/$entity/$project/settings" params={{ entity: params.entity!, project: params.project! }}>
              Settings
            </Link>
          </nav>
        )}
        <span className="spacer" />
        <span className="muted small">
          Press <kbd>?</kbd> for shortcuts
        </span>
        <span className="muted">{session.data.user.username}</span>
        <button type="button" onClick={() => signOut.mutate()}>
          Sign out
        </button>
      </header>
      <ShortcutsDialog />
      <Suspense fallback={<p className="page muted">Loading…</p>}>
        <Outlet />
      </Suspense>
    </div>
  );
}
