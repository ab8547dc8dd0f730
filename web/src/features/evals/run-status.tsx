import { useEvaluationStatus } from '../../api/evaluations.js';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, type Call } from '../../lib/call.js';

/** A finished run's status; a running one's progress from `/evaluations/status`, polled. */
export function RunStatus({ projectId, call }: { projectId: string; call: Call }) {
  const running = call.ended_at == null;
  const status = useEvaluationStatus(projectId, call.id, running);
  if (!running) return <StatusBadge status={callStatus(call)} />;
  const s = status.data;
  if (s?.code === 'running')
    return <Progress done={s.completed_rows} total={s.total_rows} label={call.display_name ?? call.id} />;
  if (s?.code === 'complete') return <StatusBadge status="success" />;
  if (s?.code === 'failed') return <StatusBadge status="error" />;
  return <StatusBadge status="running" />;
}

export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  return (
    <span className="progress">
      <StatusBadge status="running" compact />
      <progress value={done} max={Math.max(total, 1)} aria-label={`Progress of ${label}`} />
      <span className="small">
        {done} / {total} rows
      </span>
    </span>
  );
}
