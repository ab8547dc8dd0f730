import { callUseSnippets } from '../../lib/use-code.js';
import { SnippetBlock } from '../../ui/snippet-block.js';

/** The call's "Use" tab: code that fetches this call from Python, TypeScript and cURL. */
export function UseTab({ projectId, callId }: { projectId: string; callId: string }) {
  const snippets = callUseSnippets(projectId, callId, window.location.origin);
  return (
    <div className="use-tab">
      <p className="muted">
        Fetch this call with the official <code>weave</code> clients, or read it over HTTP. Run the set-up lines first,
        with your key in place of the placeholder.
      </p>
      {snippets.map((s) => (
        <SnippetBlock key={s.id} snippet={s} />
      ))}
    </div>
  );
}
