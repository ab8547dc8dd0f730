import { PROJECT } from './app.js';

/** A `/call/start` body with defaults; override any `start` field. */
export function makeStart(overrides: Record<string, unknown> = {}): { start: Record<string, unknown> } {
  const id = (overrides.id as string | undefined) ?? `call-${Math.random().toString(16).slice(2, 10)}`;
  return {
    start: {
      project_id: PROJECT,
      id,
      trace_id: id,
      op_name: 'chat',
      started_at: '2025-01-01T10:00:00Z',
      attributes: {},
      inputs: {},
      ...overrides,
    },
  };
}

/** A `/call/end` body with defaults; override any `end` field. */
export function makeEnd(id: string, overrides: Record<string, unknown> = {}): { end: Record<string, unknown> } {
  return { end: { project_id: PROJECT, id, ended_at: '2025-01-01T10:00:01Z', summary: {}, ...overrides } };
}
