import { useState } from 'react';
import { postJson } from '../../api/client.js';
import type { ObjVersion } from '../../api/objects.js';
import { messagesFromPrompt, type PlaygroundMessage } from '../../lib/playground.js';

/** "Load prompt": a saved `MessagesPrompt` (its latest version) replaces a variant's messages. */
export function LoadPrompt({
  n,
  projectId,
  prompts,
  onLoad,
}: {
  n: number;
  projectId: string;
  prompts: string[];
  onLoad: (messages: PlaygroundMessage[]) => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  if (prompts.length === 0) return null;
  const load = async (name: string) => {
    setProblem(null);
    try {
      const { obj } = await postJson<{ obj: ObjVersion }>('/obj/read', {
        project_id: projectId,
        object_id: name,
        digest: 'latest',
      });
      const messages = messagesFromPrompt(obj.val);
      if (messages) onLoad(messages);
      else setProblem(`${name} has no messages`);
    } catch (e) {
      setProblem(`Could not load ${name}: ${(e as Error).message}`);
    }
  };
  return (
    <div className="load-prompt">
      <select
        aria-label={`Load a saved prompt into variant ${n}`}
        value=""
        onChange={(e) => e.target.value && void load(e.target.value)}
      >
        <option value="">Load prompt…</option>
        {prompts.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
      {problem && (
        <span role="alert" className="error-text small">
          {problem}
        </span>
      )}
    </div>
  );
}
