/**
 * Checkpoint codec of the built-in policy: `HDLP` magic, format version (u32 LE), header length
 * (u32 LE), a JSON header (model config, weight names and shapes, optimizer step), padding to 4
 * bytes, then float32 LE weights in header order, followed — when the optimizer state is kept — by
 * the AdamW first and second moments in the same order. Pure JS: no tfjs needed to read or write.
 */
import {
  DEFAULT_POLICY_CONFIG,
  INITIAL_POLICY_SEED,
  type PolicyConfig,
  initialWeights,
  sizeOf,
  weightSpecs,
} from './weights.js';

const MAGIC = 'HDLP';
export const CHECKPOINT_VERSION = 1;

export interface PolicyState {
  config: PolicyConfig;
  weights: Float32Array[];
  /** AdamW moments (same order as weights) and step count; null before any update. */
  optimizer: { step: number; m: Float32Array[]; v: Float32Array[] } | null;
}

interface Header {
  config: PolicyConfig;
  tensors: { name: string; shape: number[] }[];
  optimizer_step: number | null;
}

export function encodeCheckpoint(state: PolicyState): Uint8Array {
  const specs = weightSpecs(state.config);
  const header: Header = {
    config: state.config,
    tensors: specs.map((s) => ({ name: s.name, shape: s.shape })),
    optimizer_step: state.optimizer ? state.optimizer.step : null,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = Math.ceil((12 + json.length) / 4) * 4;
  const arrays = state.optimizer ? [...state.weights, ...state.optimizer.m, ...state.optimizer.v] : state.weights;
  const floats = arrays.reduce((n, a) => n + a.length, 0);
  const out = new Uint8Array(start + floats * 4);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(4, CHECKPOINT_VERSION, true);
  view.setUint32(8, json.length, true);
  out.set(json, 12);
  let offset = start;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++, offset += 4) view.setFloat32(offset, a[i]!, true);
  }
  return out;
}

export function decodeCheckpoint(bytes: Uint8Array): PolicyState {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC)
    throw new Error('not a built-in policy checkpoint');
  const version = view.getUint32(4, true);
  if (version !== CHECKPOINT_VERSION) throw new Error(`unsupported checkpoint version ${version}`);
  const length = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length))) as Header;
  let offset = Math.ceil((12 + length) / 4) * 4;
  const perCopy = header.tensors.reduce((n, t) => n + sizeOf(t.shape), 0);
  const copies = header.optimizer_step === null ? 1 : 3;
  if (offset + perCopy * copies * 4 !== bytes.length) throw new Error('checkpoint length does not match its header');
  const read = (): Float32Array[] =>
    header.tensors.map((t) => {
      const a = new Float32Array(sizeOf(t.shape));
      for (let i = 0; i < a.length; i++, offset += 4) a[i] = view.getFloat32(offset, true);
      return a;
    });
  const weights = read();
  const optimizer = header.optimizer_step === null ? null : { step: header.optimizer_step, m: read(), v: read() };
  return { config: header.config, weights, optimizer };
}

/** The step-0 policy: the seeded initialisation, the same bytes every time. */
export function initialPolicyState(config: PolicyConfig = DEFAULT_POLICY_CONFIG): PolicyState {
  return { config, weights: initialWeights(config, INITIAL_POLICY_SEED), optimizer: null };
}

export function loadPolicyState(bytes: Uint8Array | null): PolicyState {
  return bytes ? decodeCheckpoint(bytes) : initialPolicyState();
}
