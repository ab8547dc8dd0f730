import { useEffect, useRef, useState } from 'react';
import type { Call } from '../../lib/call.js';
import type { CallsFilter, Query } from '../../lib/query.js';

export type LiveState = 'off' | 'connecting' | 'live' | 'reconnecting' | 'hidden';

/** The live-tail URL for a filter; the session cookie authenticates it (never a key in the URL). */
export function liveTailUrl(projectId: string, filter: CallsFilter, query: Query | null): string {
  const p = new URLSearchParams({ project_id: projectId, filter: JSON.stringify(filter) });
  if (query) p.set('query', JSON.stringify(query));
  return `/calls/live_tail?${p.toString()}`;
}

/**
 * Follows `/calls/live_tail` with EventSource. The browser reconnects by itself and resends the last
 * `id:` as Last-Event-ID; `onCall` may still see a call twice, so callers dedupe by id. The stream is
 * closed while the tab is hidden.
 */
export function useLiveTail(url: string | null, onCall: (call: Call) => void): LiveState {
  const [state, setState] = useState<LiveState>('off');
  const [attempt, setAttempt] = useState(0);
  const [hidden, setHidden] = useState(() => typeof document !== 'undefined' && document.hidden);
  const cb = useRef(onCall);
  cb.current = onCall;

  useEffect(() => {
    const onVis = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', onVis);
    return () => document.removeEventListener('visibilitychange', onVis);
  }, []);

  useEffect(() => {
    if (!url) {
      setState('off');
      return;
    }
    if (hidden) {
      setState('hidden');
      return;
    }
    setState('connecting');
    const es = new EventSource(url, { withCredentials: true });
    es.onopen = () => setState('live');
    es.onerror = () => setState('reconnecting');
    const onEvent = (ev: MessageEvent<string>) => {
      try {
        cb.current(JSON.parse(ev.data) as Call);
      } catch {
        /* a malformed event is skipped */
      }
    };
    es.addEventListener('call', onEvent);
    // A CLOSED EventSource (the server answered an error status) does not retry by itself.
    const poll = setInterval(() => {
      if (es.readyState === EventSource.CLOSED) setAttempt((a) => a + 1);
    }, 5000);
    return () => {
      clearInterval(poll);
      es.close();
    };
  }, [url, hidden, attempt]);

  return state;
}
