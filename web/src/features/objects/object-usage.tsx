import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useInputRefCalls, useOpCallCounts, USAGE_SHOWN } from '../../api/object-usage.js';
import { countText, type CountResult } from '../../api/calls.js';
import { MAX_COMPARED } from '../evals/compare-search.js';
import { callStatus, latencyMs } from '../../lib/call.js';
import { formatLatency, formatTime, opDisplayName, parseRef, preview } from '../../lib/format.js';
import {
  EVALUATE_OP,
  inputRefFilterText,
  objectAttributes,
  objectMethods,
  usageInputs,
  type ObjectKind,
  type UsageInput,
} from '../../lib/object-kinds.js';
import { RefLink } from '../../ui/json-tree.js';
import { StatusBadge } from '../../ui/status-badge.js';

interface Place {
  entity: string;
  project: string;
}

/** "1,234 calls", "10,000+ calls", or a placeholder while counting. */
export function CallCount({ result, pending }: { result: CountResult | undefined; pending: boolean }) {
  if (pending) return <span className="muted">Counting…</span>;
  if (!result) return <span className="muted">—</span>;
  return <>{countText(result)}</>;
}

/** An op's call count as a link to exactly those calls in Traces (`op` as the traces page takes it). */
export function OpCallsLink({
  entity,
  project,
  op,
  count,
  label,
}: Place & { op: string; count: UseQueryResult<CountResult> | undefined; label: string }) {
  return (
    <Link to="/$entity/$project/weave" params={{ entity, project }} search={{ all: true, op }}>
      <CallCount result={count?.data} pending={count?.isPending ?? true} />
      <span className="sr-only"> {label}</span>
    </Link>
  );
}

/** The attributes a model, scorer or other object is configured with (not its methods or the serializer's fields). */
export function ObjectAttributes({ name, val }: { name: string; val: unknown }) {
  const attributes = objectAttributes(val);
  if (attributes.length === 0) return null;
  return (
    <section aria-labelledby="attributes-h">
      <h2 id="attributes-h">Attributes</h2>
      <table className="simple-table" aria-label={`Attributes of ${name}`}>
        <tbody>
          {attributes.map((a) => (
            <tr key={a.name}>
              <th scope="row" className="mono">
                {a.name}
              </th>
              <td className="mono small">
                <AttributeValue value={a.value} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** An attribute's value: a ref as a link to its page, a string as it is, anything else as JSON. */
function AttributeValue({ value }: { value: unknown }) {
  if (typeof value !== 'string') return <>{preview(value, 300)}</>;
  const ref = parseRef(value);
  return ref && ref.kind !== 'table' ? <RefLink text={value} ref_={ref} /> : <>{value}</>;
}

/** The ops an object holds (`predict`, `score`), each a link to its version with the calls of that version. */
export function ObjectMethods({ entity, project, name, val }: Place & { name: string; val: unknown }) {
  const methods = objectMethods(val);
  const counts = useOpCallCounts(
    `${entity}/${project}`,
    methods.map((m) => m.ref),
  );
  if (methods.length === 0) return null;
  return (
    <section aria-labelledby="methods-h">
      <h2 id="methods-h">Methods</h2>
      <table className="simple-table" aria-label={`Methods of ${name}`}>
        <thead>
          <tr>
            <th scope="col">Method</th>
            <th scope="col">Op version</th>
            <th scope="col" className="num">
              Calls
            </th>
          </tr>
        </thead>
        <tbody>
          {methods.map((m, i) => (
            <tr key={m.attribute}>
              <th scope="row" className="mono">
                {m.attribute}
              </th>
              <td>
                <Link
                  to="/$entity/$project/weave/ops/$name/versions/$digest"
                  params={{ entity, project, name: m.name, digest: m.digest }}
                  search={{}}
                >
                  {m.name}
                </Link>{' '}
                <span className="mono small muted">{m.digest.slice(0, 8)}</span>
              </td>
              <td className="num">
                <OpCallsLink
                  entity={entity}
                  project={project}
                  op={m.ref}
                  count={counts[i]}
                  label={`calls of ${m.attribute}`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Where this version was used: the calls that took it as an input (a model's evaluations, a method's calls). */
export function ObjectUsage({ entity, project, kind, objectRef }: Place & { kind: ObjectKind; objectRef: string }) {
  const inputs = usageInputs(kind);
  return (
    <>
      {inputs.map((u) => (
        <UsageList key={u.field} entity={entity} project={project} objectRef={objectRef} {...u} />
      ))}
    </>
  );
}

function UsageList({ entity, project, objectRef, field, title, op }: Place & UsageInput & { objectRef: string }) {
  const { list, count } = useInputRefCalls(`${entity}/${project}`, field, objectRef, op);
  const id = `usage-${field}-h`;
  const rows = list.data ?? [];
  const evaluations = op === EVALUATE_OP ? rows.filter((c) => c.ended_at != null && !c.exception) : [];
  return (
    <section aria-labelledby={id}>
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        <span className="muted">
          <CallCount result={count.data} pending={count.isPending} />
        </span>
        <span className="spacer" />
        {evaluations.length >= 2 && (
          <Link
            to="/$entity/$project/weave/evaluations/compare"
            params={{ entity, project }}
            search={{
              ids: evaluations
                .slice(0, MAX_COMPARED)
                .map((c) => c.id)
                .join(','),
            }}
          >
            Compare the newest {Math.min(evaluations.length, MAX_COMPARED)}
          </Link>
        )}
        <Link
          to="/$entity/$project/weave"
          params={{ entity, project }}
          search={{ all: true, q: inputRefFilterText(field, objectRef), ...(op ? { op } : {}) }}
        >
          All in Traces
        </Link>
      </div>
      {list.isPending && <p className="muted">Loading calls…</p>}
      {list.isError && <p role="alert">Could not load the calls: {list.error.message}</p>}
      {list.data && rows.length === 0 && <p>No call has used this version yet.</p>}
      {rows.length > 0 && (
        <table className="simple-table" aria-label={title}>
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Op</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Latency
              </th>
              <th scope="col">Started (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId: c.id }} search={{}}>
                    {c.display_name || opDisplayName(c.op_name)}
                  </Link>
                </th>
                <td>{opDisplayName(c.op_name)}</td>
                <td>
                  <StatusBadge status={callStatus(c)} />
                </td>
                <td className="num">{formatLatency(latencyMs(c))}</td>
                <td className="small">{formatTime(c.started_at, false)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {count.data && count.data.count > USAGE_SHOWN && (
        <p className="muted">The newest {USAGE_SHOWN} are shown; “All in Traces” lists every one.</p>
      )}
    </section>
  );
}
