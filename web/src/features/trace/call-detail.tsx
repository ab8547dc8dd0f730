import { lazy, Suspense } from 'react';
import { Link } from '@tanstack/react-router';
import { useCall } from '../../api/calls.js';
import { useFileText, useObject } from '../../api/objects.js';
import { ChatView } from '../../ui/chat-view.js';
import { JsonTree } from '../../ui/json-tree.js';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, latencyMs, callException, tokenUsage, totalCost, type Call } from '../../lib/call.js';
import { chatFromInputs, chatFromOutput } from '../../lib/chat.js';
import { markdownOf } from '../../lib/content.js';
import { variantFromInputs } from '../../lib/playground.js';
import { Markdown } from '../../ui/markdown.js';
import { formatCost, formatInt, formatLatency, formatTime, opDisplayName, parseRef } from '../../lib/format.js';
import { FeedbackPanel } from './feedback-panel.js';
import { UseTab } from './use-tab.js';

/** The call view's tabs (`?tab=` in the URL; the first is the default). */
export const CALL_TABS = ['call', 'use'] as const;
export type CallTab = (typeof CALL_TABS)[number];
const TAB_LABEL: Record<CallTab, string> = { call: 'Call', use: 'Use' };

const CodeView = lazy(() => import('../../ui/code-view.js'));

interface Props {
  projectId: string;
  entity: string;
  project: string;
  callId: string;
  tab: CallTab;
  onTab: (tab: CallTab) => void;
}

export function CallDetail({ projectId, entity, project, callId, tab, onTab }: Props) {
  const q = useCall(projectId, callId);
  if (q.isPending) return <section className="detail-pane muted">Loading call…</section>;
  if (q.isError)
    return (
      <section className="detail-pane" role="alert">
        Could not load the call: {q.error.message}
      </section>
    );
  const call = q.data;
  if (!call) return <section className="detail-pane">Call not found.</section>;
  return (
    <section className="detail-pane" aria-labelledby="call-title">
      <Header call={call} entity={entity} project={project} />
      <Tabs tab={tab} onTab={onTab} />
      <div role="tabpanel" id={`call-panel-${tab}`} aria-labelledby={`call-tab-${tab}`}>
        {tab === 'use' ? (
          <UseTab projectId={projectId} callId={call.id} />
        ) : (
          <CallTabBody call={call} projectId={projectId} />
        )}
      </div>
    </section>
  );
}

function Tabs({ tab, onTab }: { tab: CallTab; onTab: (tab: CallTab) => void }) {
  const move = (delta: number) => {
    const next = CALL_TABS[(CALL_TABS.indexOf(tab) + delta + CALL_TABS.length) % CALL_TABS.length]!;
    onTab(next);
    requestAnimationFrame(() => document.getElementById(`call-tab-${next}`)?.focus());
  };
  return (
    <div
      className="call-tabs"
      role="tablist"
      aria-label="Call view"
      onKeyDown={(e) => {
        if (e.key === 'ArrowRight') move(1);
        else if (e.key === 'ArrowLeft') move(-1);
      }}
    >
      {CALL_TABS.map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          id={`call-tab-${t}`}
          aria-selected={t === tab}
          aria-controls={`call-panel-${t}`}
          tabIndex={t === tab ? 0 : -1}
          onClick={() => onTab(t)}
        >
          {TAB_LABEL[t]}
        </button>
      ))}
    </div>
  );
}

function CallTabBody({ call, projectId }: { call: Call; projectId: string }) {
  return (
    <>
      <IoSection title="Inputs" projectId={projectId} value={call.inputs} chat={chatFromInputs(call.inputs)} />
      {call.exception != null && (
        <section>
          <h3>Exception</h3>
          <ExceptionView call={call} />
        </section>
      )}
      <IoSection title="Output" projectId={projectId} value={call.output} chat={chatFromOutput(call.output)} />
      <Usage call={call} />
      {Object.keys(call.attributes ?? {}).length > 0 && (
        <section>
          <h3>Attributes</h3>
          <JsonTree value={call.attributes} projectId={projectId} openDepth={1} label="Attributes" />
        </section>
      )}
      <FeedbackPanel projectId={projectId} callId={call.id} />
      <OpCode projectId={projectId} opName={call.op_name} />
    </>
  );
}

function Header({ call, entity, project }: { call: Call; entity: string; project: string }) {
  const ref = parseRef(call.op_name);
  return (
    <div className="detail-head">
      <h2 id="call-title">{call.display_name ?? opDisplayName(call.op_name)}</h2>
      {variantFromInputs(call.inputs) && (
        <Link
          to="/$entity/$project/weave/playground"
          params={{ entity, project }}
          search={{ call: call.id }}
          className="open-playground"
        >
          Open in playground
        </Link>
      )}
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={callStatus(call)} />
        </dd>
        <dt>Op</dt>
        <dd>
          {ref && ref.kind === 'op' ? (
            <Link
              to="/$entity/$project/weave/ops/$name/versions/$digest"
              params={{ entity, project, name: ref.name, digest: ref.digest }}
              className="mono"
            >
              {ref.name}:{ref.digest.slice(0, 8)}
            </Link>
          ) : (
            <span className="mono">{call.op_name}</span>
          )}
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(call.started_at)}</dd>
        <dt>Latency</dt>
        <dd>{formatLatency(latencyMs(call))}</dd>
        <dt>Call id</dt>
        <dd className="mono small">{call.id}</dd>
        {call.thread_id && (
          <>
            <dt>Thread</dt>
            <dd>
              <Link
                to="/$entity/$project/weave/threads"
                params={{ entity, project }}
                search={{ thread: call.thread_id }}
                className="mono small"
              >
                {call.thread_id}
              </Link>
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}

function IoSection({
  title,
  projectId,
  value,
  chat,
}: {
  title: string;
  projectId: string;
  value: unknown;
  chat: ReturnType<typeof chatFromInputs>;
}) {
  const markdown = markdownOf(value);
  return (
    <section>
      <h3>{title}</h3>
      {markdown !== null ? (
        <>
          <Markdown text={markdown} label={`${title} as Markdown`} />
          <details>
            <summary>{title} as JSON</summary>
            <JsonTree value={value} projectId={projectId} label={title} />
          </details>
        </>
      ) : chat ? (
        <>
          <ChatView messages={chat} label={`${title} as a conversation`} />
          <details>
            <summary>{title} as JSON</summary>
            <JsonTree value={value} projectId={projectId} label={title} />
          </details>
        </>
      ) : value == null ? (
        <p className="muted">None</p>
      ) : (
        <JsonTree value={value} projectId={projectId} label={title} />
      )}
    </section>
  );
}

function Usage({ call }: { call: Call }) {
  const t = tokenUsage(call);
  const cost = totalCost(call);
  if (!t && cost == null) return null;
  return (
    <section>
      <h3>Usage</h3>
      <dl className="facts">
        {t && (
          <>
            <dt>Prompt tokens</dt>
            <dd>{formatInt(t.prompt)}</dd>
            <dt>Completion tokens</dt>
            <dd>{formatInt(t.completion)}</dd>
            <dt>Total tokens</dt>
            <dd>{formatInt(t.total)}</dd>
          </>
        )}
        <dt>Cost</dt>
        <dd>{formatCost(cost)}</dd>
        <dt>Models</dt>
        <dd className="mono small">{Object.keys(call.summary?.usage ?? {}).join(', ') || '—'}</dd>
      </dl>
    </section>
  );
}

/** The op's source, when its stored object carries it (Python: file `obj.py`). */
function OpCode({ projectId, opName }: { projectId: string; opName: string }) {
  const ref = parseRef(opName);
  const obj = useObject(projectId, ref?.kind === 'op' ? ref.name : null, ref?.kind === 'op' ? ref.digest : null);
  const val = obj.data?.val as { files?: Record<string, string>; code?: unknown } | undefined;
  const digest = val?.files && typeof val.files['obj.py'] === 'string' ? val.files['obj.py'] : null;
  const file = useFileText(projectId, digest);
  const inline = typeof val?.code === 'string' ? val.code : null;
  const text = file.data ?? inline;
  if (!ref || ref.kind !== 'op' || !text) return null;
  return (
    <section>
      <h3>Op source</h3>
      <Suspense fallback={<pre className="code-fallback">{text}</pre>}>
        <CodeView text={text} language="python" label={`Source of ${ref.name}`} />
      </Suspense>
    </section>
  );
}

/** An exception as type, message and a folded traceback; every part is text. */
function ExceptionView({ call }: { call: Call }) {
  const e = callException(call);
  if (e === null) return null;
  return (
    <div className="exception-box">
      <p className="exception">
        {e.type !== null && <strong className="mono">{e.type}: </strong>}
        {e.message}
      </p>
      {e.traceback !== null && (
        <details>
          <summary>Traceback</summary>
          <pre className="exception">{e.traceback}</pre>
        </details>
      )}
    </div>
  );
}
