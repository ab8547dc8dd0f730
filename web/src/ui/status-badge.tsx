import type { CallStatus } from '../lib/call.js';

const LABEL: Record<CallStatus, string> = {
  success: 'Success',
  error: 'Error',
  running: 'Running',
  descendant_error: 'Child error',
};
const ICON: Record<CallStatus, string> = { success: '✓', error: '✕', running: '◌', descendant_error: '!' };

/** Status as an icon plus a word, never colour alone. */
export function StatusBadge({ status, compact = false }: { status: CallStatus; compact?: boolean }) {
  return (
    <span className={`status status-${status}`} title={LABEL[status]}>
      <span aria-hidden="true">{ICON[status]}</span>
      {compact ? <span className="sr-only">{LABEL[status]}</span> : <span>{LABEL[status]}</span>}
    </span>
  );
}
