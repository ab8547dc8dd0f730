import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useMemo } from 'react';
import { useTrainingModel, type ModelDetail } from '../../api/training.js';
import { Chart, seriesColor } from '../../ui/chart.js';
import { PageHeading } from '../../ui/page-heading.js';
import { metricCurves, rolloutsSearch, stepOf } from '../../lib/training.js';
import { Checkpoints, JobEvents, Jobs, RolloutsLink } from './model-tables.js';

const trainingModelRoute = getRouteApi('/$entity/$project/weave/training/$modelId');

const formatMetric = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(4).replace(/\.?0+$/, ''));

/** Every logged metric as a curve by step, one series per split (train, val …); a step opens its rollouts. */
function Curves({ detail }: { detail: ModelDetail }) {
  const { entity, project } = trainingModelRoute.useParams();
  const navigate = useNavigate();
  const curves = useMemo(() => metricCurves(detail.checkpoints, detail.history), [detail]);
  if (curves.length === 0) return <p>No metrics logged yet.</p>;
  const pick = {
    label: 'Rollouts',
    onPick: (x: unknown) => {
      const step = stepOf(x);
      if (step !== null)
        void navigate({ to: '/$entity/$project/weave', params: { entity, project }, search: rolloutsSearch(step) });
    },
    cell: (x: unknown) => {
      const step = stepOf(x);
      return step === null ? null : <RolloutsLink step={step}>Rollouts</RolloutsLink>;
    },
  };
  return (
    <div className="chart-grid">
      {curves.map((c) => (
        <Chart
          key={c.name}
          title={c.name}
          data={c.points}
          x="step"
          xLabel="Step"
          kind="line"
          series={c.splits.map((s, i) => ({ key: s, label: s, color: seriesColor(i) }))}
          formatX={(v) => `step ${String(v)}`}
          formatY={formatMetric}
          pick={pick}
        />
      ))}
    </div>
  );
}

/** A training model: metric curves, jobs with status and event log, checkpoints. */
export default function ModelPage() {
  const { entity, project, modelId } = trainingModelRoute.useParams();
  const { job } = trainingModelRoute.useSearch();
  const projectId = `${entity}/${project}`;
  const detail = useTrainingModel(projectId, modelId);
  const d = detail.data;
  const selectedJob = job ?? d?.jobs.at(-1)?.id ?? null;
  return (
    <main className="page">
      <p className="small">
        <Link to="/$entity/$project/weave/training" params={{ entity, project }}>
          ← Training
        </Link>
      </p>
      <PageHeading>{d ? d.model.name : 'Training model'}</PageHeading>
      {detail.isPending && <p className="muted">Loading model…</p>}
      {detail.isError && <p role="alert">Could not load this model: {detail.error.message}</p>}
      {d && (
        <>
          <dl className="facts">
            <dt>Base model</dt>
            <dd className="mono">{d.model.base_model}</dd>
            <dt>Current step</dt>
            <dd>{d.model.current_step ?? 0}</dd>
            <dt>Trainer</dt>
            <dd>{d.model.trainer ?? '—'}</dd>
          </dl>
          {d.truncated && (
            <p role="status" className="muted small">
              This model has more data than the page reads; the oldest 5,000 rows of each list are shown.
            </p>
          )}
          <section aria-labelledby="metrics-h">
            <h2 id="metrics-h">Metrics by step</h2>
            <p className="muted small">
              Click a point, or follow a row of a curve&apos;s data or a job&apos;s &ldquo;From step&rdquo;, to open the
              rollouts of that step: the calls logged inside{' '}
              <span className="mono">{'weave.attributes({"step": N})'}</span>.
            </p>
            <Curves detail={d} />
          </section>
          <section aria-labelledby="jobs-h">
            <h2 id="jobs-h">Training jobs</h2>
            <Jobs jobs={d.jobs} selected={selectedJob} />
            {selectedJob && <JobEvents projectId={projectId} jobId={selectedJob} />}
          </section>
          <section aria-labelledby="checkpoints-h">
            <h2 id="checkpoints-h">Checkpoints</h2>
            <Checkpoints checkpoints={d.checkpoints} />
          </section>
        </>
      )}
    </main>
  );
}
