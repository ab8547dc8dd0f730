import { highlight } from '../../lib/agents.js';

/** `text` with every occurrence of `needle` in a `<mark>`; text only, never HTML. */
export function Highlighted({ text, needle }: { text: string; needle: string | undefined }) {
  return <>{highlight(text, needle ?? '').map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : p.text))}</>;
}
