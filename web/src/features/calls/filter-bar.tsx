import { useEffect, useState, type FormEvent } from 'react';
import { FieldFilterError, parseFieldFilter, STATUSES, type TracesSearch } from '../../lib/query.js';

interface Props {
  search: TracesSearch;
  opNames: string[];
  onChange: (patch: Partial<TracesSearch>) => void;
}

/** datetime-local value (UTC shown as local input) ↔ ISO string in the URL. */
const toInput = (iso?: string) => (iso ? new Date(iso).toISOString().slice(0, 16) : '');
const fromInput = (v: string) => (v ? new Date(`${v}:00Z`).toISOString() : undefined);

export function FilterBar({ search, opNames, onChange }: Props) {
  const [q, setQ] = useState(search.q ?? '');
  const [text, setText] = useState(search.text ?? '');
  const [op, setOp] = useState(search.op ?? '');
  const [qError, setQError] = useState<string | null>(null);
  useEffect(() => setQ(search.q ?? ''), [search.q]);
  useEffect(() => setText(search.text ?? ''), [search.text]);
  useEffect(() => setOp(search.op ?? ''), [search.op]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const filter = q.trim();
    if (filter) {
      try {
        parseFieldFilter(filter);
      } catch (err) {
        setQError(err instanceof FieldFilterError ? err.message : String(err));
        return;
      }
    }
    setQError(null);
    onChange({ q: filter || undefined, text: text.trim() || undefined, op: op.trim() || undefined });
  };

  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      <fieldset className="seg">
        <legend className="sr-only">Which calls</legend>
        <label>
          <input type="radio" name="scope" checked={!search.all} onChange={() => onChange({ all: undefined })} /> Root
          calls
        </label>
        <label>
          <input type="radio" name="scope" checked={!!search.all} onChange={() => onChange({ all: true })} /> All calls
        </label>
      </fieldset>
      <label className="field">
        <span>Op name</span>
        <input
          list="op-names"
          value={op}
          onChange={(e) => setOp(e.target.value)}
          onBlur={() => op.trim() !== (search.op ?? '') && onChange({ op: op.trim() || undefined })}
          placeholder="any"
          size={14}
        />
        <datalist id="op-names">
          {opNames.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </label>
      <label className="field">
        <span>Status</span>
        <select
          value={search.status ?? ''}
          onChange={(e) => onChange({ status: (e.target.value || undefined) as TracesSearch['status'] })}
        >
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>From (UTC)</span>
        <input
          type="datetime-local"
          value={toInput(search.from)}
          onChange={(e) => onChange({ from: fromInput(e.target.value) })}
        />
      </label>
      <label className="field">
        <span>To (UTC)</span>
        <input
          type="datetime-local"
          value={toInput(search.to)}
          onChange={(e) => onChange({ to: fromInput(e.target.value) })}
        />
      </label>
      <label className="field grow">
        <span>Search</span>
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="text in inputs or output"
          data-shortcut="search"
          title="Case-insensitive text anywhere in the inputs or output (their JSON, keys included). Enter to search."
        />
      </label>
      <label className="field grow">
        <span>Field filter</span>
        <input
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder='inputs.user_id = "x" and summary.weave.latency_ms > 1000'
          aria-invalid={qError ? true : undefined}
          aria-describedby={qError ? 'q-error' : undefined}
          className="mono"
          data-shortcut="filter"
        />
      </label>
      <button type="submit">Apply</button>
      {(search.op || search.status || search.from || search.to || search.text || search.q || search.all) && (
        <button
          type="button"
          onClick={() => {
            setQError(null);
            onChange({
              op: undefined,
              status: undefined,
              from: undefined,
              to: undefined,
              text: undefined,
              q: undefined,
              all: undefined,
            });
          }}
        >
          Clear filters
        </button>
      )}
      {qError && (
        <p id="q-error" role="alert" className="error-text full">
          {qError}
        </p>
      )}
    </form>
  );
}
