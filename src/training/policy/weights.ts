/**
 * Shape and seeded initialisation of the built-in policy's weights (plain JS, no tfjs), shared by
 * the model (model.ts) and the checkpoint codec.
 */
import { seededRandom } from '../random.js';
import { VOCAB_SIZE } from './tokenizer.js';

export interface PolicyConfig {
  vocabSize: number;
  dModel: number;
  nHeads: number;
  nLayers: number;
  dFf: number;
  /** Context window in tokens (longest row and longest prompt + completion). */
  context: number;
}

export const DEFAULT_POLICY_CONFIG: PolicyConfig = {
  vocabSize: VOCAB_SIZE,
  dModel: 64,
  nHeads: 4,
  nLayers: 2,
  dFf: 192,
  context: 512,
};

/** The seed of the step-0 policy: every model starts from the same bytes. */
export const INITIAL_POLICY_SEED = 20261122;

export interface WeightSpec {
  name: string;
  shape: number[];
  /** `normal` = N(0, std²), `zeros`, `ones`. */
  init: 'normal' | 'zeros' | 'ones';
  std?: number;
}

/** Names, shapes and initialisers of every weight, in checkpoint order. */
export function weightSpecs(c: PolicyConfig): WeightSpec[] {
  const specs: WeightSpec[] = [{ name: 'tok_emb', shape: [c.vocabSize, c.dModel], init: 'normal', std: 0.02 }];
  // Residual projections are scaled down with depth (GPT-2 style) so the initial policy is near uniform.
  const residualStd = 0.02 / Math.sqrt(2 * c.nLayers);
  for (let l = 0; l < c.nLayers; l++) {
    specs.push(
      { name: `l${l}.ln1.g`, shape: [c.dModel], init: 'ones' },
      { name: `l${l}.ln1.b`, shape: [c.dModel], init: 'zeros' },
      { name: `l${l}.qkv`, shape: [c.dModel, 3 * c.dModel], init: 'normal', std: 0.02 },
      { name: `l${l}.proj`, shape: [c.dModel, c.dModel], init: 'normal', std: residualStd },
      { name: `l${l}.ln2.g`, shape: [c.dModel], init: 'ones' },
      { name: `l${l}.ln2.b`, shape: [c.dModel], init: 'zeros' },
      { name: `l${l}.ff1`, shape: [c.dModel, c.dFf], init: 'normal', std: 0.02 },
      { name: `l${l}.ff1.b`, shape: [c.dFf], init: 'zeros' },
      { name: `l${l}.ff2`, shape: [c.dFf, c.dModel], init: 'normal', std: residualStd },
      { name: `l${l}.ff2.b`, shape: [c.dModel], init: 'zeros' },
    );
  }
  specs.push({ name: 'ln_f.g', shape: [c.dModel], init: 'ones' }, { name: 'ln_f.b', shape: [c.dModel], init: 'zeros' });
  return specs;
}

export const sizeOf = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** Seeded initial weights in plain JS (Box–Muller on mulberry32), identical on every backend. */
export function initialWeights(c: PolicyConfig, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return weightSpecs(c).map((s) => {
    const out = new Float32Array(sizeOf(s.shape));
    if (s.init === 'ones') out.fill(1);
    if (s.init !== 'normal') return out;
    for (let i = 0; i < out.length; i++) {
      const u = Math.max(random(), 1e-12);
      out[i] = (s.std ?? 0.02) * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    }
    return out;
  });
}
