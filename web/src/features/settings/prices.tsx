import { useState, type FormEvent } from 'react';
import { useCreatePrice, usePrices } from '../../api/settings.js';
import { formatTime } from '../../lib/format.js';

const PER_MILLION = 1_000_000;
const perMillion = (perToken: number) => `$${+(perToken * PER_MILLION).toPrecision(6)}`;

/** The project's model prices (per token on the wire, per million tokens on screen). */
export function Prices({ projectId }: { projectId: string }) {
  const prices = usePrices(projectId);
  const create = useCreatePrice(projectId);
  const [llm, setLlm] = useState('');
  const [prompt, setPrompt] = useState('');
  const [completion, setCompletion] = useState('');
  const [from, setFrom] = useState('');
  const p = Number(prompt);
  const c = Number(completion);
  const valid = llm.trim() !== '' && prompt !== '' && completion !== '' && p >= 0 && c >= 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    create.mutate(
      {
        llm_id: llm.trim(),
        prompt: p / PER_MILLION,
        completion: c / PER_MILLION,
        effective_date: from ? new Date(`${from}T00:00:00Z`).toISOString() : null,
      },
      {
        onSuccess: () => {
          setLlm('');
          setPrompt('');
          setCompletion('');
          setFrom('');
        },
      },
    );
  };
  return (
    <section aria-labelledby="prices-h">
      <h2 id="prices-h">Prices</h2>
      <p className="muted small">Costs in the traces use the newest price in effect when the call started.</p>
      {prices.isError && <p role="alert">Could not load prices: {prices.error.message}</p>}
      {prices.data && prices.data.length === 0 && <p className="muted">No project prices yet.</p>}
      {prices.data && prices.data.length > 0 && (
        <table className="simple-table" aria-label="Prices">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col" className="num">
                Prompt per 1M tokens
              </th>
              <th scope="col" className="num">
                Completion per 1M tokens
              </th>
              <th scope="col">Effective from (UTC)</th>
              <th scope="col">Provider</th>
            </tr>
          </thead>
          <tbody>
            {prices.data.map((r) => (
              <tr key={r.id}>
                <th scope="row" className="mono">
                  {r.llm_id}
                </th>
                <td className="num">{perMillion(r.prompt_token_cost)}</td>
                <td className="num">{perMillion(r.completion_token_cost)}</td>
                <td className="small">{formatTime(r.effective_date, false)}</td>
                <td>{r.provider_id ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="inline-form wrap" onSubmit={submit} aria-label="Add a price">
        <label htmlFor="price-llm">Model</label>
        <input id="price-llm" value={llm} onChange={(e) => setLlm(e.target.value)} placeholder="gpt-4o-mini" />
        <label htmlFor="price-prompt">Prompt $/1M</label>
        <input
          id="price-prompt"
          type="number"
          min="0"
          step="any"
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
        />
        <label htmlFor="price-completion">Completion $/1M</label>
        <input
          id="price-completion"
          type="number"
          min="0"
          step="any"
          value={completion}
          onChange={(e) => setCompletion(e.target.value)}
        />
        <label htmlFor="price-from">From</label>
        <input id="price-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        <button type="submit" disabled={!valid || create.isPending}>
          Add price
        </button>
      </form>
      {create.isError && (
        <p role="alert" className="error-text">
          Could not add the price: {create.error.message}
        </p>
      )}
    </section>
  );
}
