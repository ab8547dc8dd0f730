import { useMemo } from 'react';
import { Link } from '@tanstack/react-router';
import { useCallsByIds } from '../../api/calls.js';
import { SCORES_LIMIT, useMonitorScores } from '../../api/monitors.js';
import { formatInt, formatLatency, formatTime, opDisplayName, plural, preview } from '../../lib/format.js';
import { medianLag, monitorScores, scoredCallId } from '../../lib/monitors.js';

/** A monitor's newest scores: the call scored, by which scorer, its output, when, and how long after the call ended. */
export function MonitorScores({ entity, project, name }: { entity: string; project: string; name: string }) {
  const projectId = `${entity}/${project}`;
  const feedback = useMonitorScores(projectId, name);
  const callIds = useMemo(
    () => [...new Set((feedback.data?.scores ?? []).flatMap((f) => scoredCallId(f) ?? []))],
    [feedback.data],
  );
  const calls = useCallsByIds(projectId, callIds);
  const byId = useMemo(() => new Map((calls.data ?? []).map((c) => [c.id, c])), [calls.data]);
  const scores = useMemo(() => monitorScores(feedback.data?.scores ?? [], byId), [feedback.data, byId]);
  const lag = medianLag(scores);
  return (
    <section aria-labelledby="scores-h">
      <h2 id="scores-h">
        Scored calls of <span className="mono">{name}</span>
      </h2>
      {feedback.isPending && <p className="muted">Loading scores…</p>}
      {feedback.isError && <p role="alert">Could not load scores: {feedback.error.message}</p>}
      {feedback.data && (
        <p className="muted" aria-live="polite">
          {plural(formatInt(feedback.data.total), 'score')}
          {feedback.data.total > SCORES_LIMIT && ` · the newest ${SCORES_LIMIT} below`}
          {lag != null && ` · median lag ${formatLatency(lag)} from a call's end to its score`}
        </p>
      )}
      {feedback.data?.total === 0 && (
        <p>No call scored yet: calls are scored once they finish after the monitor is active.</p>
      )}
      {scores.length > 0 && (
        <table className="simple-table" aria-label="Scored calls">
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Op</th>
              <th scope="col">Scorer</th>
              <th scope="col">Score</th>
              <th scope="col">Scored (UTC)</th>
              <th scope="col">Lag</th>
            </tr>
          </thead>
          <tbody>
            {scores.map((s) => {
              const call = s.callId ? byId.get(s.callId) : undefined;
              return (
                <tr key={s.id}>
                  <th scope="row" className="mono small">
                    {s.callId ? (
                      <Link
                        to="/$entity/$project/r/call/$callId"
                        params={{ entity, project, callId: s.callId }}
                        search={{}}
                      >
                        {s.callId}
                      </Link>
                    ) : (
                      '—'
                    )}
                  </th>
                  <td>{call ? opDisplayName(call.op_name) : '—'}</td>
                  <td>{s.scorer}</td>
                  <td className="mono small" title={preview(s.output, 400)}>
                    {preview(s.output, 120)}
                  </td>
                  <td className="small">{formatTime(s.scoredAt, false)}</td>
                  <td>{formatLatency(s.lagMs)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
