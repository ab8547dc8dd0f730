import { useState } from 'react';
import type { ChatMessage } from '../lib/chat.js';
import { isSafeImageDataUrl } from '../lib/content.js';

/** A conversation: one block per message, role first, every part as text. */
export function ChatView({ messages, label }: { messages: ChatMessage[]; label: string }) {
  return (
    <ol className="chat" aria-label={label}>
      {messages.map((m, i) => (
        <li key={i} className={`chat-msg role-${m.role}`}>
          <div className="chat-role">
            {m.role}
            {m.name ? ` · ${m.name}` : ''}
          </div>
          {m.parts.map((p, j) =>
            p.kind === 'image' ? (
              <ChatImage key={j} url={p.text} />
            ) : (
              <div key={j} className={p.kind === 'text' ? 'chat-text' : 'chat-text mono small'}>
                {p.text}
              </div>
            ),
          )}
          {m.toolCalls.map((t, j) => (
            <div key={`t${j}`} className="chat-tool mono small">
              → {t.name}({t.arguments})
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}

function ChatImage({ url }: { url: string }) {
  const [show, setShow] = useState(false);
  const safe = isSafeImageDataUrl(url);
  return (
    <div className="chat-text">
      <span className="chip">Image</span>{' '}
      {safe ? (
        show ? (
          <img className="chat-img" src={url} alt="Image from the message" />
        ) : (
          <button type="button" onClick={() => setShow(true)}>
            Show image
          </button>
        )
      ) : (
        <span className="mono small">{url.length > 200 ? `${url.slice(0, 200)}…` : url}</span>
      )}
    </div>
  );
}
