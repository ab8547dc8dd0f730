import { Link } from '@tanstack/react-router';
import { asMessages } from '../../lib/chat.js';
import { ChatView } from '../../ui/chat-view.js';

/** A `MessagesPrompt` version's messages as a conversation, and "Open in playground" with them. */
export function PromptMessages({
  entity,
  project,
  name,
  digest,
  val,
}: {
  entity: string;
  project: string;
  name: string;
  digest: string;
  val: unknown;
}) {
  const messages = asMessages((val as { messages?: unknown } | null)?.messages);
  if (!messages) return null;
  return (
    <section aria-labelledby="prompt-h">
      <div className="section-head">
        <h2 id="prompt-h">Messages</h2>
        <Link
          to="/$entity/$project/weave/playground"
          params={{ entity, project }}
          search={{ prompt: `${name}:${digest}` }}
          className="open-playground"
        >
          Open in playground
        </Link>
      </div>
      <ChatView messages={messages} label={`Messages of ${name}`} />
    </section>
  );
}
