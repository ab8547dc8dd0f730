import { useMemo, useState, type ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { parseRef, type ParsedRef } from '../lib/format.js';
import { asFileValue } from '../lib/content.js';
import { FileValueView } from './file-value.js';

const MAX_CHILDREN = 200;
const LONG_STRING = 400;
/** Above this much JSON text a value shows as a preview with a download, not a tree. */
const SIZE_GATE = 1_000_000;

function BigValue({ text, label, onTree }: { text: string; label: string; onTree: () => void }) {
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div className="big-value">
      <p className="muted">
        {label} is {(text.length / 1_000_000).toFixed(1)} MB of JSON; the first 2,000 characters:
      </p>
      <pre className="io-preview">{text.slice(0, 2000)}…</pre>
      <button type="button" onClick={download}>
        Download JSON
      </button>{' '}
      <button type="button" onClick={onTree}>
        Show as a tree anyway
      </button>
    </div>
  );
}

interface Props {
  value: unknown;
  projectId: string;
  /** Levels open at first. */
  openDepth?: number;
  label?: string;
}

/** A collapsible JSON tree. Every value is rendered as text. */
export function JsonTree({ value, projectId, openDepth = 2, label }: Props) {
  const [force, setForce] = useState(false);
  const text = useMemo(() => {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '';
    }
  }, [value]);
  if (text.length > SIZE_GATE && !force)
    return <BigValue text={text} label={label ?? 'value'} onTree={() => setForce(true)} />;
  return (
    <div className="json-tree" role="tree" aria-label={label ?? 'JSON value'}>
      <Node name={null} value={value} depth={0} openDepth={openDepth} projectId={projectId} />
    </div>
  );
}

function Node({
  name,
  value,
  depth,
  openDepth,
  projectId,
}: {
  name: string | null;
  value: unknown;
  depth: number;
  openDepth: number;
  projectId: string;
}) {
  const [open, setOpen] = useState(depth < openDepth);
  const [limit, setLimit] = useState(MAX_CHILDREN);
  const keyLabel = name != null ? <span className="jt-key">{name}: </span> : null;
  const file = asFileValue(value);
  if (file) {
    return (
      <div role="treeitem" aria-selected="false" className="jt-row">
        {keyLabel}
        <FileValueView file={file} projectId={projectId} />
      </div>
    );
  }
  if (value === null || typeof value !== 'object') {
    return (
      <div role="treeitem" aria-selected="false" className="jt-row">
        {keyLabel}
        <Scalar value={value} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0)
    return (
      <div role="treeitem" aria-selected="false" className="jt-row">
        {keyLabel}
        <span className="jt-punct">{Array.isArray(value) ? '[]' : '{}'}</span>
      </div>
    );
  return (
    <div role="treeitem" aria-expanded={open} aria-selected="false">
      <button
        type="button"
        className="jt-toggle"
        onClick={() => setOpen(!open)}
        aria-label={`${open ? 'Collapse' : 'Expand'} ${name ?? 'value'}`}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
      </button>
      {keyLabel}
      <span className="jt-punct">{summary}</span>
      {open && (
        <div role="group" className="jt-children">
          {entries.slice(0, limit).map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} projectId={projectId} />
          ))}
          {entries.length > limit && (
            <button type="button" className="link-button" onClick={() => setLimit(limit + MAX_CHILDREN)}>
              Show {Math.min(MAX_CHILDREN, entries.length - limit)} more of {entries.length - limit}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function Scalar({ value }: { value: unknown }): ReactNode {
  const [full, setFull] = useState(false);
  if (typeof value === 'string') {
    if (value.length > LONG_STRING && !full)
      return (
        <>
          <span className="jt-string">"{value.slice(0, LONG_STRING)}…"</span>{' '}
          <button type="button" className="link-button" onClick={() => setFull(true)}>
            Show all {value.length} characters
          </button>
        </>
      );
    const ref = parseRef(value);
    if (ref && ref.kind !== 'table') return <RefLink text={value} ref_={ref} />;
    return <span className="jt-string">"{value}"</span>;
  }
  if (typeof value === 'number') return <span className="jt-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="jt-bool">{String(value)}</span>;
  return <span className="jt-null">null</span>;
}

/**
 * A `weave:///` ref as a link to its page (objects spec §5.1): ops and objects to their version,
 * calls to their trace. The path is built from the router's params (each part encoded), so a ref
 * from trace data can only ever lead to a page of this app.
 */
export function RefLink({ text, ref_ }: { text: string; ref_: ParsedRef }): ReactNode {
  const base = { entity: ref_.entity, project: ref_.project };
  const link =
    ref_.kind === 'call' ? (
      <Link to="/$entity/$project/r/call/$callId" params={{ ...base, callId: ref_.name }} search={{}}>
        {text}
      </Link>
    ) : (
      <Link
        to={
          ref_.kind === 'op'
            ? '/$entity/$project/weave/ops/$name/versions/$digest'
            : '/$entity/$project/weave/objects/$name/versions/$digest'
        }
        params={{ ...base, name: ref_.name, digest: ref_.digest }}
        search={{}}
      >
        {text}
      </Link>
    );
  return <span className="jt-string jt-ref">{link}</span>;
}
