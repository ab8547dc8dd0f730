import { formatMicros } from '../../domain/time.js';
import type { AgentSpanRow } from '../../store/agent-types.js';
import { displayText, outputText, trailingRun, userTexts } from './agent-chat-text.js';
import type { PriceBook } from '../price-lookup.js';
import { durationMs, spanCosts } from './agent-rows.js';

/**
 * The chat projection of docs/spec/agents.md §9.2 over one trace's raw spans. Not yet served: media
 * refs (step 5), the Claude Code refinements of step 6 other than the mirrored child (task
 * notifications, async launches), `include_model_tool_calls` (§9.3), costs and feedback.
 */

type Json = Record<string, unknown>;
type Message = Json & { type: string };

const PAYLOADS = [
  'user_message',
  'assistant_message',
  'tool_call',
  'agent_start',
  'context_compacted',
  'agent_handoff',
];
const MAX_DEPTH = 200;

function message(type: string, span: AgentSpanRow | null, agentName: string | null, payload: Json): Message {
  const out: Message = {
    type,
    span_id: span?.span_id ?? null,
    agent_name: agentName,
    agent_version: span?.agent_version ?? null,
    status_code: span?.status_code ?? null,
    error_type: span?.error_type ?? null,
    status_message: span?.status_message ?? null,
    started_at: span === null ? null : formatMicros(span.started_at),
    feedback: null,
  };
  for (const p of PAYLOADS) out[p] = p === type ? payload : null;
  return out;
}

const ownLabel = (s: AgentSpanRow): string | null =>
  s.agent_name !== '' ? s.agent_name : s.agent_id !== '' ? s.agent_id : null;

function order(a: AgentSpanRow, b: AgentSpanRow): number {
  if (a.started_at !== b.started_at) return a.started_at - b.started_at;
  if ((a.ended_at === null) !== (b.ended_at === null)) return a.ended_at === null ? 1 : -1;
  if (a.ended_at !== null && b.ended_at !== null && a.ended_at !== b.ended_at) return a.ended_at - b.ended_at;
  return a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

interface WalkResult {
  emitted: boolean;
  /** The assistant message this span itself emitted (for the mirrored-child rule). */
  own: Message | null;
}

class Projection {
  readonly out: Message[] = [];
  #lastUser: string | null = null;
  #lastInstructions: string | null = null;
  #pending: Message | null = null;
  readonly #children = new Map<string, AgentSpanRow[]>();

  readonly #seenCalls = new Set<string>();

  constructor(
    readonly spans: AgentSpanRow[],
    readonly prices: PriceBook,
    readonly modelToolCalls = false,
  ) {
    for (const s of spans)
      if ((s.operation_name === 'execute_tool' || s.operation_name === 'invoke_agent') && s.tool_call_id !== '')
        this.#seenCalls.add(s.tool_call_id);
    const ids = new Set(spans.map((s) => s.span_id));
    for (const s of spans) {
      const parent = s.parent_span_id !== '' && ids.has(s.parent_span_id) ? s.parent_span_id : '';
      const list = this.#children.get(parent) ?? [];
      list.push(s);
      this.#children.set(parent, list);
    }
    for (const list of this.#children.values()) list.sort(order);
  }

  children(spanId: string): AgentSpanRow[] {
    return spanId === '' ? (this.#children.get('') ?? []) : (this.#children.get(spanId) ?? []);
  }

  run(): void {
    for (const root of this.children('')) this.walk(root, null, 0);
  }

  #agentStart(span: AgentSpanRow, label: string | null, instructions: string | null): Message {
    return message('agent_start', span, label, {
      model: span.request_model,
      system_instructions: instructions,
      tool_definitions: span.details.tool_definitions === '' ? null : span.details.tool_definitions,
      status: span.status_code,
    });
  }

  walk(span: AgentSpanRow, inherited: string | null, depth: number): WalkResult {
    if (depth > MAX_DEPTH) return { emitted: false, own: null };
    if (span.operation_name === 'invoke_agent') return this.#invoke(span, inherited, depth);
    if (span.operation_name === 'execute_tool') return this.#tool(span, inherited, depth);
    return this.#other(span, inherited, depth);
  }

  #invoke(span: AgentSpanRow, inherited: string | null, depth: number): WalkResult {
    const own = ownLabel(span);
    const nameLabel = span.span_name.startsWith('invoke_agent ') ? span.span_name.slice(13).trim() || null : null;
    const pass = own ?? inherited ?? nameLabel;
    const instructions = span.details.system_instructions.join('\n');
    if (own !== null || span.request_model !== '' || instructions !== '' || span.details.tool_definitions !== '') {
      const card = this.#agentStart(span, own, instructions === '' ? null : instructions);
      this.out.push(card);
      if (instructions !== '') {
        this.#lastInstructions = instructions;
        this.#pending = null;
      } else this.#pending = card;
    }
    if (span.details.compaction_summary !== '' || span.compaction_items_before > 0) {
      this.out.push(
        message('context_compacted', span, pass, {
          compaction_summary: span.details.compaction_summary,
          compaction_items_before: span.compaction_items_before,
          compaction_items_after: span.compaction_items_after,
        }),
      );
    }
    let any = false;
    for (const child of this.children(span.span_id)) any = this.walk(child, pass, depth + 1).emitted || any;
    if (any) return { emitted: true, own: null };
    const mine = this.assistant(span, pass, true);
    if (mine === null) return { emitted: false, own: null };
    this.out.push(mine);
    return { emitted: true, own: mine };
  }

  #tool(span: AgentSpanRow, inherited: string | null, depth: number): WalkResult {
    const label = ownLabel(span) ?? inherited;
    const name = span.tool_name !== '' ? span.tool_name : span.span_name.replace(/^execute_tool /, '');
    this.out.push(
      message('tool_call', span, label, {
        tool_name: name,
        tool_arguments: span.details.tool_call_arguments,
        tool_result: span.details.tool_call_result,
        duration_ms: durationMs(span),
        status: span.status_code,
        content_refs: span.details.content_refs.filter((r) => r !== ''),
      }),
    );
    let any = false;
    for (const child of this.children(span.span_id)) any = this.walk(child, label, depth + 1).emitted || any;
    return { emitted: any, own: null };
  }

  #instructions(span: AgentSpanRow, label: string | null): void {
    const instructions = span.details.system_instructions.join('\n');
    if (instructions === '' || instructions === this.#lastInstructions) return;
    this.#lastInstructions = instructions;
    const card = this.#pending;
    this.#pending = null;
    if (card !== null && card.agent_name === label) {
      const payload = card.agent_start as Json;
      payload.system_instructions = instructions;
      if (payload.tool_definitions === null && span.details.tool_definitions !== '')
        payload.tool_definitions = span.details.tool_definitions;
    } else this.out.push(this.#agentStart(span, label, instructions));
  }

  #other(span: AgentSpanRow, inherited: string | null, depth: number): WalkResult {
    const label = ownLabel(span) ?? inherited;
    this.#instructions(span, label);
    for (const m of trailingRun(span.details.input_messages)) {
      const text = displayText(m.content);
      if (text === '' || text === this.#lastUser) continue;
      this.#lastUser = text;
      this.#pending = null;
      this.out.push(message('user_message', null, 'User', { text, content_refs: [] }));
      this.out[this.out.length - 1]!.started_at = formatMicros(span.started_at);
    }
    let any = false;
    const childOwn: Message[] = [];
    for (const child of this.children(span.span_id)) {
      const r = this.walk(child, label, depth + 1);
      any = r.emitted || any;
      if (r.own !== null) childOwn.push(r.own);
    }
    const mine = this.assistant(span, label, false);
    const requests = this.#requests(span, label);
    if (mine === null) {
      this.out.push(...requests);
      return { emitted: any, own: null };
    }
    const text = (mine.assistant_message as Json).text as string;
    const mirror =
      text === '' ? undefined : childOwn.reverse().find((c) => (c.assistant_message as Json).text === text);
    if (mirror !== undefined) {
      enrich(mirror, mine);
      this.out.push(...requests);
      return { emitted: true, own: null };
    }
    this.out.push(mine, ...requests);
    return { emitted: text !== '' || any, own: mine };
  }

  /**
   * §9.3 (2) with `include_model_tool_calls`: the tool calls a model asked for that no execution span
   * answers, as `tool_call` messages without result. Our simplification: they follow the span's
   * assistant message whole (the message is not split at each request).
   */
  #requests(span: AgentSpanRow, label: string | null): Message[] {
    if (!this.modelToolCalls) return [];
    const out: Message[] = [];
    for (const m of span.details.output_messages) {
      if (m.role !== 'assistant' || !m.content.startsWith('[')) continue;
      let parts: unknown;
      try {
        parts = JSON.parse(m.content);
      } catch {
        continue;
      }
      if (!Array.isArray(parts)) continue;
      for (const part of parts as Array<Record<string, unknown>>) {
        if (part?.type !== 'tool_call' || typeof part.name !== 'string' || part.name === '') continue;
        const id = typeof part.id === 'string' ? part.id : '';
        if (id !== '' && this.#seenCalls.has(id)) continue;
        if (id !== '') this.#seenCalls.add(id);
        const args = part.arguments;
        const msg = message('tool_call', span, label, {
          tool_name: part.name,
          tool_arguments:
            args === undefined || args === null ? null : typeof args === 'string' ? args : JSON.stringify(args),
          tool_result: null,
          duration_ms: null,
          status: null,
          content_refs: [],
        });
        Object.assign(msg, { status_code: null, error_type: null, status_message: null });
        msg.started_at = formatMicros(span.ended_at ?? span.started_at);
        out.push(msg);
      }
    }
    return out;
  }

  /** A span's assistant message (§9.2), with subtree sums for the `invoke_agent` fallback. */
  assistant(span: AgentSpanRow, label: string | null, subtree: boolean): Message | null {
    const text = outputText(span.details.output_messages);
    let reasoning = span.details.reasoning_content;
    let input = span.input_tokens;
    let output = span.output_tokens;
    let reasoningTokens = span.reasoning_tokens;
    if (subtree) {
      const below = this.#descendants(span);
      if (reasoning === '')
        reasoning = below.find((s) => s.details.reasoning_content !== '')?.details.reasoning_content ?? '';
      const sum = (f: (s: AgentSpanRow) => number) => [span, ...below].reduce((n, s) => n + f(s), 0);
      input = sum((s) => s.input_tokens) || span.input_tokens;
      output = sum((s) => s.output_tokens) || span.output_tokens;
      reasoningTokens = sum((s) => s.reasoning_tokens) || span.reasoning_tokens;
    }
    if (text === '' && reasoning === '' && span.status_code !== 'ERROR') return null;
    const priced = (subtree ? [span, ...this.#descendants(span)] : [span])
      .map((s) => spanCosts(s, this.prices))
      .filter((c) => c !== null);
    const cost = (f: (c: NonNullable<ReturnType<typeof spanCosts>>) => number) =>
      priced.length === 0 ? null : priced.reduce((n, c) => n + f(c), 0);
    return message('assistant_message', span, label, {
      text,
      model: span.response_model !== '' ? span.response_model : span.request_model,
      reasoning_content: reasoning,
      reasoning_tokens: reasoningTokens,
      input_tokens: input,
      output_tokens: output,
      input_cost_usd: cost((c) => c.input_cost_usd),
      output_cost_usd: cost((c) => c.output_cost_usd),
      total_cost_usd: cost((c) => c.total_cost_usd),
      duration_ms: durationMs(span),
      status: span.status_code,
      content_refs: [],
    });
  }

  /** Depth-first descendants, in walk order. */
  #descendants(span: AgentSpanRow): AgentSpanRow[] {
    const out: AgentSpanRow[] = [];
    const visit = (s: AgentSpanRow, depth: number) => {
      if (depth > MAX_DEPTH) return;
      for (const c of this.children(s.span_id)) {
        out.push(c);
        visit(c, depth + 1);
      }
    };
    visit(span, 0);
    return out;
  }
}

/** §9.2 step 6 "mirrored child": the child's message keeps its place, empty fields taken from the parent's. */
function enrich(child: Message, parent: Message): void {
  for (const key of ['agent_name', 'agent_version', 'status_code'])
    if (child[key] === '' || child[key] === null) child[key] = parent[key];
  const c = child.assistant_message as Json;
  const p = parent.assistant_message as Json;
  for (const key of ['model', 'reasoning_content', 'status']) if (c[key] === '' || c[key] === null) c[key] = p[key];
  for (const key of ['reasoning_tokens', 'input_tokens', 'output_tokens', 'duration_ms'])
    if (c[key] === 0 || c[key] === null || c[key] === undefined) c[key] = p[key];
}

/** §9.2 step 3: a user message from the leading context when the walk emitted none. */
function leadingUser(spans: AgentSpanRow[]): Message | null {
  const ordered = [...spans].sort((a, b) => {
    const ai = a.operation_name === 'invoke_agent' ? 0 : 1;
    const bi = b.operation_name === 'invoke_agent' ? 0 : 1;
    if (ai !== bi) return ai - bi;
    if (a.started_at !== b.started_at) return a.started_at - b.started_at;
    if (a.ended_at !== b.ended_at) return (b.ended_at ?? 0) - (a.ended_at ?? 0);
    return a.span_id < b.span_id ? -1 : 1;
  });
  for (const span of ordered) {
    const texts = userTexts(span.details.input_messages);
    if (texts.length === 0) continue;
    const m = message('user_message', null, 'User', { text: texts[texts.length - 1], content_refs: [] });
    m.started_at = formatMicros(span.started_at);
    return m;
  }
  return null;
}

/** The root of the header: the only span without a parent, else the latest-ended (then highest id). */
function headerRoot(spans: AgentSpanRow[]): AgentSpanRow | null {
  const roots = spans.filter((s) => s.parent_span_id === '');
  if (roots.length === 1) return roots[0]!;
  const sorted = [...spans].sort(
    (a, b) => (b.ended_at ?? -1) - (a.ended_at ?? -1) || (b.span_id > a.span_id ? 1 : b.span_id < a.span_id ? -1 : 0),
  );
  return sorted[0] ?? null;
}

/** The summed cost of the priced spans, null when none is priced (§12). */
function totalCost(spans: AgentSpanRow[], prices: PriceBook): number | null {
  const priced = spans.map((s) => spanCosts(s, prices)).filter((c) => c !== null);
  return priced.length === 0 ? null : priced.reduce((n, c) => n + c.total_cost_usd, 0);
}

/** `AgentTraceChatRes` (§9.4) of one trace's spans. */
export function traceChat(traceId: string, spans: AgentSpanRow[], prices: PriceBook, modelToolCalls = false): Json {
  const p = new Projection(spans, prices, modelToolCalls);
  p.run();
  const messages = p.out;
  if (!messages.some((m) => m.type === 'user_message')) {
    const lead = leadingUser(spans);
    if (lead !== null) messages.unshift(lead);
  }
  if (messages[0]?.type === 'agent_start' && messages[1]?.type === 'user_message')
    [messages[0], messages[1]] = [messages[1], messages[0]];
  const root = headerRoot(spans);
  const sum = (f: (s: AgentSpanRow) => number) => spans.reduce((n, s) => n + f(s), 0);
  return {
    trace_id: traceId,
    root_span_name: root === null ? null : root.agent_name !== '' ? root.agent_name : root.span_name,
    agent_name: root?.agent_name ?? null,
    agent_version: root?.agent_version ?? null,
    status_code: root?.status_code ?? null,
    provider: root?.provider_name ?? null,
    started_at: root === null ? null : formatMicros(root.started_at),
    ended_at: root === null || root.ended_at === null ? null : formatMicros(root.ended_at),
    wb_user_id: root?.wb_user_id ?? null,
    total_duration_ms: root === null ? null : durationMs(root),
    total_input_tokens: sum((s) => s.input_tokens),
    total_output_tokens: sum((s) => s.output_tokens),
    total_reasoning_tokens: sum((s) => s.reasoning_tokens),
    total_cache_creation_input_tokens: sum((s) => s.cache_creation_input_tokens),
    total_cache_read_input_tokens: sum((s) => s.cache_read_input_tokens),
    total_cost_usd: totalCost(spans, prices),
    messages,
    feedback: null,
  };
}

/** `AgentConversationChatRes` (§9.5); `turns` and `traces` oldest first. */
export function conversationChat(
  conversationId: string,
  turns: AgentSpanRow[][],
  traces: Array<{ trace_id: string }>,
  total: number,
  limit: number,
  offset: number,
  prices: PriceBook,
  modelToolCalls = false,
): Json {
  const chats = turns.map((spans, i) => traceChat(traces[i]!.trace_id, spans, prices, modelToolCalls));
  const costs = chats.map((c) => c.total_cost_usd).filter((c): c is number => typeof c === 'number');
  return {
    conversation_id: conversationId,
    turns: chats,
    total_turns: total,
    has_more: turns.length > 0 && offset + turns.length < total,
    limit,
    offset,
    total_cost_usd: costs.length === 0 ? null : costs.reduce((a, b) => a + b, 0),
    feedback: null,
  };
}
