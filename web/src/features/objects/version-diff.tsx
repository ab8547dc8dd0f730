import { useMemo } from 'react';
import { useFileText, useObject, type ObjVersion } from '../../api/objects.js';
import { diffLines, diffValues, type DiffEntry } from '../../lib/diff.js';
import { preview } from '../../lib/format.js';
import { asMessages, type ChatMessage } from '../../lib/chat.js';
import { DiffLines } from './diff-lines.js';
import { PromptDiff } from './prompt-diff.js';

const MAX_SHOWN = 500;

/** What changed from version `base` to the shown version, path by path. */
export function VersionDiff({ projectId, obj, base }: { projectId: string; obj: ObjVersion; base: string }) {
  const other = useObject(projectId, obj.object_id, base);
  const entries = useMemo(() => (other.data ? diffValues(other.data.val, obj.val) : []), [other.data, obj.val]);
  if (other.isPending) return <p className="muted">Loading the other version…</p>;
  if (other.isError)
    return (
      <p role="alert">
        Could not load version {base}: {other.error.message}
      </p>
    );
  const from = `v${other.data.version_index}`;
  const to = `v${obj.version_index}`;
  const codeLeft = opSourceDigest(other.data.val);
  const codeRight = opSourceDigest(obj.val);
  if (codeLeft !== null && codeRight !== null)
    return <CodeDiff projectId={projectId} from={from} to={to} left={codeLeft} right={codeRight} />;
  const messagesLeft = promptMessages(other.data.val);
  const messagesRight = promptMessages(obj.val);
  if (messagesLeft && messagesRight) {
    const rest = entries.filter((e) => !/^messages[.[]/.test(e.path));
    return (
      <>
        <PromptDiff from={from} to={to} left={messagesLeft} right={messagesRight} />
        {rest.length > 0 && (
          <section aria-labelledby="other-diff-h">
            <h3 id="other-diff-h">Other changes</h3>
            <ValueChanges entries={rest} from={from} to={to} />
          </section>
        )}
      </>
    );
  }
  return (
    <section aria-labelledby="diff-h">
      <h2 id="diff-h">
        Changes from {from} to {to}
      </h2>
      {entries.length === 0 ? (
        <p>The two versions hold the same value.</p>
      ) : (
        <ValueChanges entries={entries} from={from} to={to} />
      )}
    </section>
  );
}

/** Changed leaves, path by path (the first MAX_SHOWN). */
function ValueChanges({ entries, from, to }: { entries: DiffEntry[]; from: string; to: string }) {
  return (
    <>
      <table className="simple-table diff-table" aria-label={`Changes from ${from} to ${to}`}>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Change</th>
            <th scope="col">{from}</th>
            <th scope="col">{to}</th>
          </tr>
        </thead>
        <tbody>
          {entries.slice(0, MAX_SHOWN).map((e) => (
            <tr key={e.path} className={`diff-${e.kind}`}>
              <th scope="row" className="mono small">
                {e.path}
              </th>
              <td>{e.kind}</td>
              <td className="mono small diff-left">{e.kind === 'added' ? '' : preview(e.left, 200)}</td>
              <td className="mono small diff-right">{e.kind === 'removed' ? '' : preview(e.right, 200)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length > MAX_SHOWN && <p className="muted">{entries.length - MAX_SHOWN} more changes not shown.</p>}
    </>
  );
}

/** A prompt's messages (`MessagesPrompt.messages`), or null for any other value. */
function promptMessages(val: unknown): ChatMessage[] | null {
  return typeof val === 'object' && val !== null ? asMessages((val as { messages?: unknown }).messages) : null;
}

/** The digest of an op's source file (`files["obj.py"]` of a serialized op), or null. */
function opSourceDigest(val: unknown): string | null {
  if (typeof val !== 'object' || val === null) return null;
  const files = (val as { files?: unknown }).files;
  if (typeof files !== 'object' || files === null) return null;
  const digest = (files as Record<string, unknown>)['obj.py'];
  return typeof digest === 'string' ? digest : null;
}

const MAX_CODE_LINES = 5000;

/** An op's code from one version to another, line by line. */
function CodeDiff(props: { projectId: string; from: string; to: string; left: string; right: string }) {
  const { projectId, from, to } = props;
  const left = useFileText(projectId, props.left);
  const right = useFileText(projectId, props.right);
  const lines = useMemo(
    () => (left.data != null && right.data != null ? diffLines(left.data, right.data) : []),
    [left.data, right.data],
  );
  const label = `Code changes from ${from} to ${to}`;
  if (left.isError || right.isError) return <p role="alert">Could not load the code of both versions.</p>;
  if (left.data == null || right.data == null) return <p className="muted">Loading the code…</p>;
  const changed = lines.filter((l) => l.kind !== 'same').length;
  return (
    <section aria-labelledby="diff-h">
      <h2 id="diff-h">
        Changes from {from} to {to}
      </h2>
      {changed === 0 ? (
        <p>The two versions have the same code.</p>
      ) : (
        <>
          <p className="muted">
            {lines.filter((l) => l.kind === 'added').length} lines added,{' '}
            {lines.filter((l) => l.kind === 'removed').length} removed
          </p>
          <pre className="code-diff" aria-label={label} tabIndex={0}>
            <DiffLines lines={lines.slice(0, MAX_CODE_LINES)} announce />
          </pre>
        </>
      )}
    </section>
  );
}
