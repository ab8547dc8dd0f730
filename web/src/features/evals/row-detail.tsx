import { Link } from '@tanstack/react-router';
import { JsonTree } from '../../ui/json-tree.js';
import { formatScore, rowDiff, scoreValue, trialOf, type EvalResultsRow, type ScoreDim } from '../../lib/evals.js';
import { formatLatency, formatInt } from '../../lib/format.js';

/** One dataset row across the compared runs: the input, each run's output and scores, and its trace. */
export function RowDetail({
  row,
  ids,
  labels,
  dims,
  entity,
  project,
}: {
  row: EvalResultsRow;
  ids: string[];
  labels: string[];
  dims: ScoreDim[];
  entity: string;
  project: string;
}) {
  const projectId = `${entity}/${project}`;
  const diff = rowDiff(row, ids, dims);
  return (
    <section className="row-detail" aria-label="Selected row">
      <h2>
        Row <span className="mono small">{row.row_digest.slice(0, 12)}</span>
        {diff.any && <span className="diff-mark"> ≠ the runs differ here</span>}
      </h2>
      <h3>Input</h3>
      <JsonTree value={row.raw_data_row} projectId={projectId} openDepth={2} label="Input" />
      <div className="row-detail-runs">
        {ids.map((id, i) => {
          const t = trialOf(row, id);
          return (
            <article key={id} className="run-card" aria-label={labels[i]}>
              <h3>{labels[i]}</h3>
              {!t ? (
                <p className="muted">This run has no result for the row.</p>
              ) : (
                <>
                  <dl className="facts">
                    {dims.map((d) => (
                      <FactRow key={d.label} label={d.label} differs={diff.scores[d.label]}>
                        {formatScore(scoreValue(t.scores, d))}
                      </FactRow>
                    ))}
                    <dt>Latency</dt>
                    <dd>
                      {formatLatency(
                        t.model_latency_seconds == null ? null : Math.round(t.model_latency_seconds * 1000),
                      )}
                    </dd>
                    <dt>Tokens</dt>
                    <dd>{t.total_tokens == null ? '—' : formatInt(t.total_tokens)}</dd>
                  </dl>
                  <p className={diff.output ? 'cell-diff small' : 'small muted'}>
                    {diff.output ? '≠ Output differs from the other runs' : 'Output'}
                  </p>
                  <JsonTree
                    value={t.model_output}
                    projectId={projectId}
                    openDepth={2}
                    label={`Output of ${labels[i]}`}
                  />
                  <Link
                    to="/$entity/$project/r/call/$callId"
                    params={{ entity, project, callId: t.predict_and_score_call_id }}
                    search={{}}
                  >
                    Open trace of {labels[i]}
                  </Link>
                </>
              )}
            </article>
          );
        })}
      </div>
    </section>
  );
}

function FactRow({ label, differs, children }: { label: string; differs: boolean | undefined; children: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className={differs ? 'cell-diff' : undefined}>
        {children}
        {differs && <span className="sr-only"> (differs)</span>}
      </dd>
    </>
  );
}
