import { getRouteApi, Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useJobEvents, type Checkpoint, type JobStatus, type TrainingJob } from '../../api/training.js';
import { formatTime } from '../../lib/format.js';
import { rolloutsSearch } from '../../lib/training.js';

const trainingModelRoute = getRouteApi('/$entity/$project/weave/training/$modelId');

const STATUS: Record<JobStatus, [string, string, string]> = {
  queued: ['◌', 'Queued', 'running'],
  running: ['◌', 'Running', 'running'],
  succeeded: ['✓', 'Succeeded', 'success'],
  failed: ['✕', 'Failed', 'error'],
};

/** Status as an icon plus a word, never colour alone (as ui/status-badge.tsx). */
function JobStatusBadge({ status }: { status: JobStatus }) {
  const [icon, label, tone] = STATUS[status];
  return (
    <span className={`status status-${tone}`}>
      <span aria-hidden="true">{icon}</span>
      <span>{label}</span>
    </span>
  );
}

/** A step's rollouts: the traces page filtered to the calls logged for it (lib/training.ts). */
export function RolloutsLink({ step, label, children }: { step: number; label?: string; children: ReactNode }) {
  const { entity, project } = trainingModelRoute.useParams();
  return (
    <Link
      to="/$entity/$project/weave"
      params={{ entity, project }}
      search={rolloutsSearch(step)}
      aria-label={label ?? `Rollouts of step ${step}`}
    >
      {children}
    </Link>
  );
}

/** The model's jobs, newest first; "Events" shows a job's event log below. */
export function Jobs({ jobs, selected }: { jobs: TrainingJob[]; selected: string | null }) {
  const { entity, project, modelId } = trainingModelRoute.useParams();
  if (jobs.length === 0) return <p>No training jobs yet.</p>;
  return (
    <table className="simple-table" aria-label="Training jobs">
      <thead>
        <tr>
          <th scope="col">Created (UTC)</th>
          <th scope="col">Kind</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">
            From step
          </th>
          <th scope="col" className="num">
            New step
          </th>
          <th scope="col" className="num">
            Gradient steps
          </th>
          <th scope="col">Error</th>
          <th scope="col">Event log</th>
        </tr>
      </thead>
      <tbody>
        {[...jobs].reverse().map((j) => (
          <tr key={j.id} aria-current={j.id === selected ? 'true' : undefined}>
            <th scope="row" className="small">
              {formatTime(j.created_at, false)}
            </th>
            <td>{j.kind.toUpperCase()}</td>
            <td>
              <JobStatusBadge status={j.status} />
            </td>
            <td className="num">
              {j.parent_step === null ? (
                '—'
              ) : (
                // the job trained on the trajectories sampled at its parent step
                <RolloutsLink
                  step={j.parent_step}
                  label={`Rollouts of step ${j.parent_step}, which this job trained on`}
                >
                  {j.parent_step}
                </RolloutsLink>
              )}
            </td>
            <td className="num">{j.step ?? '—'}</td>
            <td className="num">{j.num_gradient_steps}</td>
            <td className="small">{j.error_message ?? ''}</td>
            <td>
              {j.id === selected ? (
                <span className="small muted">shown below</span>
              ) : (
                <Link
                  to="/$entity/$project/weave/training/$modelId"
                  params={{ entity, project, modelId }}
                  search={{ job: j.id }}
                  aria-label={`Events of the job created ${formatTime(j.created_at, false)}`}
                >
                  Events
                </Link>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A job's event stream (docs/spec/training.md §6.2), in order. */
export function JobEvents({ projectId, jobId }: { projectId: string; jobId: string }) {
  const events = useJobEvents(projectId, jobId);
  return (
    <section aria-labelledby="events-h">
      <h3 id="events-h">
        Event log <span className="mono small muted">{jobId}</span>
      </h3>
      {events.isPending && <p className="muted">Loading events…</p>}
      {events.isError && <p role="alert">Could not load events: {events.error.message}</p>}
      {events.data && events.data.length === 0 && <p>No events yet: the job is waiting for a trainer.</p>}
      {events.data && events.data.length > 0 && (
        <ol className="event-log" aria-label="Job events">
          {events.data.map((e) => (
            <li key={e.id}>
              <span className="mono">{e.type}</span> <span className="small muted mono">{JSON.stringify(e.data)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The model's checkpoints with their metrics. */
export function Checkpoints({ checkpoints }: { checkpoints: Checkpoint[] }) {
  if (checkpoints.length === 0) return <p>No checkpoints yet (step 0 is the base model).</p>;
  return (
    <table className="simple-table" aria-label="Checkpoints">
      <thead>
        <tr>
          <th scope="col" className="num">
            Step
          </th>
          <th scope="col">Checkpoint id</th>
          <th scope="col">Metrics</th>
        </tr>
      </thead>
      <tbody>
        {[...checkpoints].reverse().map((c) => (
          <tr key={c.id}>
            <th scope="row" className="num">
              {c.step}
            </th>
            <td className="mono small">{c.id}</td>
            <td className="small">
              {Object.entries(c.metrics)
                .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(4)}`)
                .join(' · ') || '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
