import type { AgentMessage } from '../../store/agent-types.js';
import { isObject, parseJsonText, stringifyJson } from './attribute-tree.js';
import type { OtelJson } from './otlp-model.js';

/** Coercions and message normalisation of docs/spec/agents.md §2.2 and §2.4 (pure). */

/** §2.2 string: numbers in JSON number form, booleans as true/false, objects as compact JSON, none → "". */
export function asString(value: OtelJson | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return stringifyJson(value);
}

/** §2.2 int: integers, doubles truncated toward zero, decimal strings, booleans as 1/0; else 0. */
export function asInt(value: OtelJson | undefined): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) || 0 : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** §2.2 float: numbers and numeric strings; else 0. */
export function asFloat(value: OtelJson | undefined): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** §2.2 string list. */
export function asStringList(value: OtelJson | undefined): string[] {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map((v) => asString(v));
  if (typeof value === 'string' && value !== '') {
    const parsed = value.startsWith('[') ? parseJsonText(value) : undefined;
    return Array.isArray(parsed) ? asStringList(parsed) : [value];
  }
  return [];
}

/** §2.3: an object keyed exactly "0".."n-1" (the indexed legacy form) as a list. */
export function indexedList(value: OtelJson | undefined): OtelJson | undefined {
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((k, i) => k === String(i))) return value;
  return keys.map((k) => value[k]!);
}

function message(raw: OtelJson, role: string): AgentMessage | null {
  if (typeof raw === 'string') return { role, content: raw, finish_reason: '' };
  if (!isObject(raw)) return null;
  const ownRole = typeof raw.role === 'string' && raw.role !== '' ? raw.role : role;
  let content = '';
  if (Array.isArray(raw.parts)) content = stringifyJson(raw.parts);
  else if (typeof raw.content === 'string') content = raw.content;
  else if (Array.isArray(raw.content)) content = stringifyJson(raw.content);
  const finish = typeof raw.finish_reason === 'string' ? raw.finish_reason : '';
  return { role: ownRole, content, finish_reason: finish };
}

/** §2.4: the stored messages of a raw value, `role` the default (`user` for input, `assistant` for output). */
export function normaliseMessages(value: OtelJson | undefined, role: string): AgentMessage[] {
  let raw = indexedList(value);
  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw);
    if (parsed === undefined) return [{ role, content: raw, finish_reason: '' }];
    raw = indexedList(parsed);
  }
  if (Array.isArray(raw)) return raw.map((item) => message(item, role)).filter((m) => m !== null);
  if (isObject(raw) && typeof raw.role === 'string') {
    const one = message(raw, role);
    return one === null ? [] : [one];
  }
  return [];
}

/** §2.4 system instructions. */
export function systemInstructions(value: OtelJson | undefined): string[] {
  let raw = value;
  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw);
    if (parsed === undefined) return raw === '' ? [] : [raw];
    raw = parsed;
  }
  if (!Array.isArray(raw)) return [];
  const out: string[] = [];
  for (const item of raw) {
    if (typeof item === 'string') {
      if (item !== '') out.push(item);
    } else if (isObject(item)) {
      const text = item.content ?? item.text;
      const s = text === undefined || text === null ? '' : asString(text);
      if (s !== '') out.push(s);
    }
  }
  return out;
}

/** §2.3 reasoning_content: the `content` of every output part of type `reasoning`, joined with "\n". */
export function reasoningOf(value: OtelJson | undefined): string {
  let raw = indexedList(value);
  if (typeof raw === 'string') raw = indexedList(parseJsonText(raw));
  const messages = Array.isArray(raw) ? raw : isObject(raw) ? [raw] : [];
  const texts: string[] = [];
  for (const m of messages) {
    if (!isObject(m) || !Array.isArray(m.parts)) continue;
    for (const part of m.parts)
      if (isObject(part) && part.type === 'reasoning' && part.content !== undefined) texts.push(asString(part.content));
  }
  return texts.join('\n');
}
