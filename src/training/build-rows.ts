/**
 * Turns a job's trajectory groups into packed training rows (docs/spec/training.md §9 steps 7–8, §10.1–10.2).
 * Our packing: every history (main or additional) of a trajectory with a non-zero advantage is one
 * segment; segments are shuffled and packed greedily into rows of at most the policy's context
 * length; attention never crosses segments (shared-prefix deduplication is not done). One row is
 * one gradient step, so `num_sequences` = number of rows.
 */
import { groupAdvantages, scaleTokens, shuffleInPlace } from './objective/advantages.js';
import { seededRandom } from './random.js';
import type { ObjectiveConfig } from './objective/config.js';
import { type TokenizedHistory, tokenizeTrajectory } from './tokenize-trajectory.js';

export interface TrainingRow {
  ids: number[];
  /** Position of each token inside its segment (positions restart per segment). */
  positions: number[];
  /** Segment index of each token within the row. */
  segments: number[];
  mask: number[];
  oldLogprobs: number[];
  advantages: number[];
  weights: number[];
}

export interface RowsResult {
  rows: TrainingRow[];
  numTrajectories: number;
  numGroupsSubmitted: number;
  numGroupsTrainable: number;
  numTrainableTokens: number;
}

interface Segment {
  history: TokenizedHistory;
  advantage: number;
  weight: number;
}

interface KeptTrajectory {
  advantage: number;
  histories: TokenizedHistory[];
  numTrainable: number;
}

type Rec = Record<string, unknown>;
const asRecord = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});

/** §10.1 per group, then §9 tokenisation of every trajectory whose advantage is not 0. */
function keepTrajectories(groups: readonly unknown[], cfg: ObjectiveConfig, context: number) {
  const kept: KeptTrajectory[] = [];
  let numTrajectories = 0;
  let numGroupsTrainable = 0;
  groups.forEach((group, g) => {
    const trajectories = asRecord(group).trajectories;
    const list = Array.isArray(trajectories) ? trajectories : [];
    numTrajectories += list.length;
    const rewards = list.map((t) => Number(asRecord(t).reward ?? 0));
    const advantages = groupAdvantages(rewards, cfg.scaleRewards);
    let trainable = false;
    list.forEach((t, i) => {
      if (advantages[i] === 0 || !Number.isFinite(advantages[i])) return;
      const opts = { allowTrainingWithoutLogprobs: cfg.allowTrainingWithoutLogprobs, maxTokens: context };
      const tok = tokenizeTrajectory(t, opts, `trajectory_groups[${g}].trajectories[${i}]`);
      if (tok.numTrainable === 0) return;
      kept.push({ advantage: advantages[i]!, histories: tok.histories, numTrainable: tok.numTrainable });
      trainable = true;
    });
    if (trainable) numGroupsTrainable++;
  });
  return { kept, numTrajectories, numGroupsTrainable };
}

function packSegments(segments: readonly Segment[], context: number): TrainingRow[] {
  const rows: TrainingRow[] = [];
  let row: TrainingRow | null = null;
  let segIndex = 0;
  for (const s of segments) {
    const h = s.history;
    if (!row || row.ids.length + h.ids.length > context) {
      row = { ids: [], positions: [], segments: [], mask: [], oldLogprobs: [], advantages: [], weights: [] };
      rows.push(row);
      segIndex = 0;
    }
    for (let i = 0; i < h.ids.length; i++) {
      row.ids.push(h.ids[i]!);
      row.positions.push(i);
      row.segments.push(segIndex);
      row.mask.push(h.mask[i]!);
      row.oldLogprobs.push(h.oldLogprobs[i]!);
      row.advantages.push(s.advantage);
      row.weights.push(s.weight);
    }
    segIndex++;
  }
  return rows;
}

/** Builds the shuffled, packed rows of one RL job; no rows = a no-op job (§6.4). */
export function buildRows(groups: readonly unknown[], cfg: ObjectiveConfig, context: number, seed: number): RowsResult {
  const { kept, numTrajectories, numGroupsTrainable } = keepTrajectories(groups, cfg, context);
  const scaling = scaleTokens(kept, cfg.advantageBalance);
  const segments: Segment[] = [];
  kept.forEach((t, i) => {
    // §9 step 7 / §5.2: additional histories share the trajectory's weight and advantage.
    for (const history of t.histories)
      segments.push({ history, advantage: scaling.advantages[i]!, weight: scaling.weights[i]! });
  });
  const random = seededRandom(seed);
  shuffleInPlace(segments, random);
  const rows = shuffleInPlace(packSegments(segments, context), random);
  return {
    rows,
    numTrajectories,
    numGroupsSubmitted: groups.length,
    numGroupsTrainable,
    numTrainableTokens: kept.reduce((n, t) => n + t.numTrainable, 0),
  };
}
