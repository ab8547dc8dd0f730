/**
 * Trajectory groups as ART ≥ 0.5.20 sends them (docs/art-client.md "Trajectory groups on the
 * wire"), brought to the shape of docs/spec/training.md §5 before a job stores them: fields equal to their
 * default are omitted by the client (missing `reward` ⇒ 0.0, `trajectories` /
 * `messages_and_choices` ⇒ `[]`; this overrides docs/spec/training.md §5.2 and checklist item 6), and
 * captured rollouts carry `exchanges.chat_completions` instead of `messages_and_choices` — each
 * exchange is one history: the request's messages, then the response's first choice as a Choice.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

interface History {
  messages_and_choices: unknown[];
  tools: unknown;
}

function exchangeHistory(exchange: unknown): History {
  const request = isObj(exchange) && isObj(exchange.request) ? exchange.request : {};
  const response = isObj(exchange) && isObj(exchange.response) ? exchange.response : {};
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const first = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const items = [...messages];
  if (isObj(first)) {
    // The response's prompt ids belong to its choice (vLLM extras, docs/spec/training.md §9 step 6).
    const choice =
      first.prompt_token_ids === undefined && response.prompt_token_ids !== undefined
        ? { ...first, prompt_token_ids: response.prompt_token_ids }
        : first;
    items.push(choice);
  }
  return { messages_and_choices: items, tools: request.tools ?? null };
}

function normalizeTrajectory(input: unknown): unknown {
  if (!isObj(input)) return input;
  const raw = input.reward === undefined ? { ...input, reward: 0 } : input;
  if (raw.messages_and_choices !== undefined) return raw;
  const exchanges =
    isObj(raw.exchanges) && Array.isArray(raw.exchanges.chat_completions) ? raw.exchanges.chat_completions : [];
  const [main, ...rest] = exchanges.map(exchangeHistory);
  if (main === undefined) return { ...raw, messages_and_choices: [] };
  const additional = Array.isArray(raw.additional_histories) ? raw.additional_histories : [];
  return {
    ...raw,
    messages_and_choices: main.messages_and_choices,
    tools: raw.tools ?? main.tools,
    additional_histories: [...additional, ...rest],
  };
}

export function normalizeGroups(groups: unknown[]): unknown[] {
  return groups.map((group) => {
    if (!isObj(group)) return group;
    const trajectories = Array.isArray(group.trajectories) ? group.trajectories : [];
    return { ...group, trajectories: trajectories.map(normalizeTrajectory) };
  });
}
