import { CHAT_ROLES, type ChatRole, type PlaygroundMessage, type Variant } from '../../lib/playground.js';

interface Props {
  index: number;
  variant: Variant;
  modelListId: string;
  onChange: (next: Variant) => void;
}

/** One variant's model, parameters and messages; every field labelled with the variant's number. */
export function VariantEditor({ index, variant, modelListId, onChange }: Props) {
  const id = (field: string) => `variant-${index}-${field}`;
  const n = index + 1;
  const setMessage = (at: number, patch: Partial<PlaygroundMessage>) =>
    onChange({ ...variant, messages: variant.messages.map((m, i) => (i === at ? { ...m, ...patch } : m)) });
  return (
    <div className="variant-editor">
      <div className="variant-params">
        <label htmlFor={id('model')}>Model</label>
        <input
          id={id('model')}
          aria-label={`Model of variant ${n}`}
          list={modelListId}
          value={variant.model}
          placeholder="provider/model"
          spellCheck={false}
          onChange={(e) => onChange({ ...variant, model: e.target.value })}
        />
        <label htmlFor={id('temperature')}>Temperature</label>
        <input
          id={id('temperature')}
          aria-label={`Temperature of variant ${n}`}
          inputMode="decimal"
          size={5}
          value={variant.temperature}
          placeholder="default"
          onChange={(e) => onChange({ ...variant, temperature: e.target.value })}
        />
        <label htmlFor={id('max-tokens')}>Max tokens</label>
        <input
          id={id('max-tokens')}
          aria-label={`Max tokens of variant ${n}`}
          inputMode="numeric"
          size={6}
          value={variant.maxTokens}
          placeholder="default"
          onChange={(e) => onChange({ ...variant, maxTokens: e.target.value })}
        />
      </div>
      <ol className="variant-messages" aria-label={`Messages of variant ${n}`}>
        {variant.messages.map((m, at) => (
          <li key={at}>
            <select
              aria-label={`Role of message ${at + 1} of variant ${n}`}
              value={m.role}
              onChange={(e) => setMessage(at, { role: e.target.value as ChatRole })}
            >
              {CHAT_ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
            <textarea
              aria-label={`Message ${at + 1} of variant ${n}`}
              rows={Math.min(8, Math.max(2, m.content.split('\n').length))}
              value={m.content}
              onChange={(e) => setMessage(at, { content: e.target.value })}
            />
            <button
              type="button"
              aria-label={`Remove message ${at + 1} of variant ${n}`}
              disabled={variant.messages.length === 1}
              onClick={() => onChange({ ...variant, messages: variant.messages.filter((_, i) => i !== at) })}
            >
              ×
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        onClick={() => {
          const last = variant.messages[variant.messages.length - 1];
          const role: ChatRole = last?.role === 'user' ? 'assistant' : 'user';
          onChange({ ...variant, messages: [...variant.messages, { role, content: '' }] });
        }}
      >
        Add message
      </button>
    </div>
  );
}
