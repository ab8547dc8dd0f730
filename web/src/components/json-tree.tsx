import { useState, type ReactNode } from 'react';
import { asFileValue } from '../lib/content.js';
import { FileValueView } from './file-value.js';

const MAX_CHILDREN = 200;
const LONG_STRING = 400;

interface Props {
  value: unknown;
  projectId: string;
  /** Levels open at first. */
  openDepth?: number;
  label?: string;
}

/** A collapsible JSON tree. Every value is rendered as text. */
export function JsonTree({ value, projectId, openDepth = 2, label }: Props) {
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
    return <span className="jt-string">"{value}"</span>;
  }
  if (typeof value === 'number') return <span className="jt-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="jt-bool">{String(value)}</span>;
  return <span className="jt-null">null</span>;
}
