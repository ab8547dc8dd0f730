import type { RedactionSettings } from '../config/redaction-config.js';
import {
  redactJsonText,
  redactString,
  rulesFor,
  type RedactionCounts,
  type RedactionRule,
} from '../domain/redaction.js';
import type { AgentSpanRecord } from '../store/agent-types.js';
import type { FeedbackRow } from '../store/feedback-types.js';
import type { CallPart, TraceStore } from '../store/types.js';

/**
 * PII redaction at the ingest boundary (issue 35, docs/redaction.md). `redactingWrites` wraps the
 * store the services write through, so every path that stores calls (call start/end/upsert_batch,
 * OTLP, v2 routes, evaluations) and feedback goes through it before anything reaches the store, and
 * so before any export reads it back; agent spans (`store.agentSpans.write` and `start`) likewise.
 */
export class RedactionService {
  readonly #settings: RedactionSettings;
  readonly #rules = new Map<string, RedactionRule[]>();
  /** Replacements since the process started, per project and kind (docs/redaction.md: not durable). */
  readonly #counts = new Map<string, RedactionCounts>();

  constructor(settings: RedactionSettings) {
    this.#settings = settings;
  }

  /** The kinds applied to a project: its own scope, else its entity's, else the default. */
  kindsFor(projectId: string): readonly string[] {
    const entity = projectId.split('/', 1)[0]!;
    return this.#settings.scopes.get(projectId) ?? this.#settings.scopes.get(entity) ?? this.#settings.defaultKinds;
  }

  /** Replacements made in the project since the process started, by kind. */
  counts(projectId: string): RedactionCounts {
    return { ...this.#counts.get(projectId) };
  }

  /** `text` (JSON) with the project's kinds redacted inside its strings. */
  redactJson(projectId: string, text: string): string {
    const rules = this.#rulesFor(projectId);
    return rules.length === 0 ? text : redactJsonText(text, rules, this.#countsOf(projectId));
  }

  /** A plain text field (a display name) with the project's kinds redacted. */
  redactText(projectId: string, text: string): string {
    const rules = this.#rulesFor(projectId);
    return rules.length === 0 ? text : redactString(text, rules, this.#countsOf(projectId));
  }

  redactCallParts(parts: CallPart[]): CallPart[] {
    return parts.map((part) => this.#redactPart(part));
  }

  /** An agent span (docs/spec/agents.md) with its messages, tool calls, attributes and dump redacted. */
  redactAgentSpan(record: AgentSpanRecord): AgentSpanRecord {
    const p = record.project_id;
    if (this.#rulesFor(p).length === 0) return record;
    const json = <T>(value: T): T => JSON.parse(this.redactJson(p, JSON.stringify(value))) as T;
    return {
      ...record,
      details: json(record.details),
      custom: json(record.custom),
      raw_span_dump: this.redactJson(p, record.raw_span_dump),
      status_message: this.redactText(p, record.status_message),
      conversation_name: this.redactText(p, record.conversation_name),
      span_name: this.redactText(p, record.span_name),
    };
  }

  redactFeedback(row: FeedbackRow): FeedbackRow {
    if (this.#rulesFor(row.project_id).length === 0) return row;
    return { ...row, payload: this.redactJson(row.project_id, row.payload) };
  }

  #redactPart(part: CallPart): CallPart {
    const p = part.project_id;
    if (this.#rulesFor(p).length === 0) return part;
    if (part.kind === 'update') return { ...part, display_name: this.redactText(p, part.display_name) };
    if (part.kind === 'start') {
      return {
        ...part,
        ...(part.display_name != null ? { display_name: this.redactText(p, part.display_name) } : {}),
        attributes: this.redactJson(p, part.attributes),
        inputs: this.redactJson(p, part.inputs),
        otel_dump: part.otel_dump === null ? null : this.redactJson(p, part.otel_dump),
      };
    }
    const summary = this.redactJson(p, part.summary);
    return {
      ...part,
      exception: part.exception === null ? null : this.redactText(p, part.exception),
      output: part.output === null ? null : this.redactJson(p, part.output),
      summary,
      // the roll-up reads usage from the parsed value; keep it the value of what is stored
      ...(summary !== part.summary && part.parsed_summary !== undefined
        ? { parsed_summary: JSON.parse(summary) as unknown }
        : {}),
    };
  }

  #rulesFor(projectId: string): RedactionRule[] {
    let rules = this.#rules.get(projectId);
    if (!rules) {
      rules = rulesFor(this.kindsFor(projectId), this.#settings.custom);
      // bounded: one entry per project written to since the start
      this.#rules.set(projectId, rules);
    }
    return rules;
  }

  #countsOf(projectId: string): RedactionCounts {
    let counts = this.#counts.get(projectId);
    if (!counts) this.#counts.set(projectId, (counts = {}));
    return counts;
  }
}

/** The store as the services write to it: call parts and feedback rows redacted first. */
export function redactingWrites(store: TraceStore, redaction: RedactionService): TraceStore {
  const wrap = <T extends object>(target: T, overrides: Record<string, unknown>): T =>
    new Proxy(target, {
      get(t, prop) {
        if (typeof prop === 'string' && prop in overrides) return overrides[prop];
        const value: unknown = Reflect.get(t, prop, t);
        return typeof value === 'function' ? value.bind(t) : value;
      },
    });
  const calls = wrap(store.calls, {
    write: (parts: CallPart[]) => store.calls.write(redaction.redactCallParts(parts)),
  });
  const feedback = wrap(store.feedback, {
    insert: (rows: FeedbackRow[]) => store.feedback.insert(rows.map((r) => redaction.redactFeedback(r))),
    replace: (projectId: string, oldId: string, row: FeedbackRow) =>
      store.feedback.replace(projectId, oldId, redaction.redactFeedback(row)),
  });
  const agentSpans = wrap(store.agentSpans, {
    write: (records: AgentSpanRecord[]) => store.agentSpans.write(records.map((r) => redaction.redactAgentSpan(r))),
    start: (record: AgentSpanRecord) => store.agentSpans.start(redaction.redactAgentSpan(record)),
  });
  return wrap(store, { calls, feedback, agentSpans });
}
