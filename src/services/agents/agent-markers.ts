import type { AgentSpanRow } from '../../store/agent-types.js';
import type { TraceStore } from '../../store/types.js';

/** Conversation feedback markers (docs/spec/agents.md §10) and the span diagnostics rule (§11). */

type Json = Record<string, unknown>;

const MARKER_TYPES = ['wandb.agent_user_feedback', 'wandb.agent_monitor'];
/** Emoji skin-tone modifiers (U+1F3FB–U+1F3FF), removed from marker tags (§10). */
const SKIN_TONES = /[\u{1F3FB}-\u{1F3FF}]/gu;

/** An agent ref of §0.2: `weave:///<entity>/<project>/<kind>/<percent-encoded id>`. */
export function agentRef(projectId: string, kind: string, id: string): string {
  // an id with a lone surrogate cannot be percent-encoded; no feedback can name it either
  let encoded: string;
  try {
    encoded = encodeURIComponent(id);
  } catch {
    encoded = encodeURIComponent(id.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
  return `weave:///${projectId}/${kind}/${encoded}`;
}

function parseMap(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseList(text: string): unknown[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** §10 markers: the conversation's and its turns' agent feedback rows, oldest first. */
export async function conversationMarkers(
  store: TraceStore,
  projectId: string,
  conversationId: string,
): Promise<Json[]> {
  const turns = await store.agentSpans.conversationTurns(projectId, conversationId, 10_000, 0);
  const refs = new Map<string, string | null>([[agentRef(projectId, 'agent_conversation', conversationId), null]]);
  for (const t of turns.traces) refs.set(agentRef(projectId, 'agent_turn', t.trace_id), t.trace_id);
  const literal = (value: string) => ({ kind: 'literal' as const, value });
  const column = (name: string) => ({
    kind: 'field' as const,
    field: { kind: 'column' as const, name, type: 'string' as const },
  });
  const rows = await store.feedback.query({
    project_id: projectId,
    where: {
      kind: 'and',
      args: [
        { kind: 'in', left: column('feedback_type'), list: MARKER_TYPES.map(literal) },
        { kind: 'in', left: column('weave_ref'), list: [...refs.keys()].map(literal) },
      ],
    },
    limit: 10_000,
  });
  return rows
    .sort((a, b) => a.created_at - b.created_at)
    .map((r) => {
      const ratings = parseMap(r.scorer_ratings);
      const reasons = parseMap(r.scorer_rating_reasons);
      const confidences = parseMap(r.scorer_rating_confidences);
      return {
        trace_id: refs.get(r.weave_ref) ?? null,
        feedback_type: r.feedback_type,
        tags: (parseList(r.scorer_tags) as unknown[]).map((t) => String(t).replace(SKIN_TONES, '')),
        ratings: Object.entries(ratings).map(([name, value]) => ({
          name,
          value,
          reason: typeof reasons[name] === 'string' && reasons[name] !== '' ? reasons[name] : null,
          confidence: confidences[name] ?? null,
        })),
      };
    });
}

/** §11: the cache-accounting rule on one span. */
export function cacheFindings(span: AgentSpanRow): Json[] {
  const { input_tokens: input, cache_read_input_tokens: read, cache_creation_input_tokens: created } = span;
  const findings: Json[] = [];
  if (read + created > input) {
    findings.push({
      code: 'cache_tokens_exceed_input',
      rule_version: 1,
      certainty: 'confirmed',
      impact: 'cost',
      span_id: span.span_id,
      trace_id: span.trace_id,
      excess_tokens: read + created - input,
      fields: [
        { name: 'input_tokens', attribute_name: 'gen_ai.usage.input_tokens', value: input },
        { name: 'cache_read_input_tokens', attribute_name: 'gen_ai.usage.cache_read.input_tokens', value: read },
        {
          name: 'cache_creation_input_tokens',
          attribute_name: 'gen_ai.usage.cache_creation.input_tokens',
          value: created,
        },
      ],
      title: 'Cache tokens exceed input tokens',
      explanation:
        'Cached input (read plus creation) should be part of input_tokens, but this span reports more cached tokens than input tokens.',
      remediation: 'Report input_tokens including cached input, as the GenAI conventions define it.',
    });
  }
  return findings;
}
