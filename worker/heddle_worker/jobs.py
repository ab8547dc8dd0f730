"""RL and SFT jobs on an Engine (docs/spec/training.md §4.9, §6, §9, §10).

RL: group advantages per group, token weights and advantage normalisation over the job, then
every history with a non-zero advantage is one sequence; sequences are shuffled (seeded by the
job) and packed into batches of at most `batch_tokens` padded tokens; one AdamW step per batch
(`num_sequences` = number of batches). The loss of a batch is objective.rl_loss over all its
tokens, each history one segment (for sequence-level importance sampling).

Each optimizer step (and the reference pass it needs) holds the device through Engine.turns, so
serving runs between steps. A job that continues from the checkpoint the previous job of its model
produced here reuses that job's adapter and AdamW state (Engine.take_kept): ART trains one job per
step, and restarting Adam's moments every step would make every step a cold start.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from .engine import Engine, Trained
from .objective import LossInputs, resolve_config, rl_loss, scale_tokens, group_advantages, tis_weights
from .trajectory import History, Renderer, TrainingContentError, tokenize_sft_example, tokenize_trajectory

Emit = Callable[[str, dict], None]


@dataclass
class Outcome:
    checkpoint: bytes
    metrics: dict
    num_gradient_steps: int
    trained_tokens: int
    seconds: float
    # the adapter and optimizer, still loaded: Engine.keep them for the model's next job or discard them
    trained: Optional[Trained] = None


@dataclass(eq=False)
class Seq:
    h: History
    advantage: float
    weight: float


def _batches(seqs: list, batch_tokens: int) -> list[list]:
    out: list[list] = []
    cur: list = []
    width = 0
    for s in seqs:
        w = max(width, len(s.h.ids))
        if cur and w * (len(cur) + 1) > batch_tokens:
            out.append(cur)
            cur, w = [], len(s.h.ids)
        cur.append(s)
        width = w
    if cur:
        out.append(cur)
    return out


def build_sequences(groups: list, cfg, renderer: Renderer, max_tokens: int, seed: int):
    kept = []  # (advantage, histories, num_trainable)
    n_traj = 0
    n_trainable_groups = 0
    for g, group in enumerate(groups):
        trajs = group.get("trajectories") if isinstance(group, dict) else None
        trajs = trajs if isinstance(trajs, list) else []
        n_traj += len(trajs)
        rewards = [float((t or {}).get("reward") or 0) if isinstance(t, dict) else 0.0 for t in trajs]
        adv = group_advantages(rewards, cfg.scale_rewards)
        trainable = False
        for i, t in enumerate(trajs):
            if adv[i] == 0 or not math.isfinite(adv[i]):
                continue
            hs = tokenize_trajectory(t, renderer, cfg.allow_training_without_logprobs, max_tokens,
                                     f"trajectory_groups[{g}].trajectories[{i}]")
            n = sum(h.num_trainable for h in hs)
            if n == 0:
                continue
            kept.append((adv[i], hs, n))
            trainable = True
        n_trainable_groups += 1 if trainable else 0
    weights, advantages = scale_tokens([(a, n) for a, _, n in kept], cfg.advantage_balance)
    seqs = [Seq(h, advantages[k], weights[k]) for k, (_, hs, _) in enumerate(kept) for h in hs]
    random.Random(seed).shuffle(seqs)
    stats = {"num_trajectories": n_traj, "num_groups_submitted": len(groups),
             "num_groups_trainable": n_trainable_groups, "num_trainable_tokens": sum(n for _, _, n in kept)}
    return seqs, stats


def _flat(width: int, rows: list[list[float]]) -> torch.Tensor:
    out = torch.zeros(len(rows) * width, dtype=torch.float32)
    for b, v in enumerate(rows):
        out[b * width : b * width + len(v)] = torch.tensor(v, dtype=torch.float32)
    return out


def _loss_inputs(batch: list, lp: torch.Tensor, olds: list[list[float]], cfg,
                 ref: Optional[torch.Tensor] = None) -> LossInputs:
    """Per-token constants shifted to the predicted positions 1..T−1, flattened over the batch."""
    width = lp.shape[1]
    old_shift = [o[1:] for o in olds]
    nan = math.isnan
    has_old = _flat(width, [[0.0 if nan(x) else 1.0 for x in o] for o in old_shift])
    old = _flat(width, [[0.0 if nan(x) else x for x in o] for o in old_shift])
    mask = _flat(width, [s.h.mask[1:] for s in batch])
    weights = _flat(width, [[s.weight] * (len(s.h.ids) - 1) for s in batch])
    adv = _flat(width, [[s.advantage] * (len(s.h.ids) - 1) for s in batch])
    cap = cfg.truncated_importance_sampling
    tis = _flat(width, [tis_weights(s.h.old[1:], o, cap) for s, o in zip(batch, old_shift)])
    seg = torch.zeros((len(batch), len(batch) * width))
    for b, s in enumerate(batch):
        seg[b, b * width : b * width + len(s.h.ids) - 1] = 1
    dev = lp.device
    return LossInputs(logprobs=lp.reshape(-1), old=old.to(dev), has_old=has_old.to(dev), mask=mask.to(dev),
                      weights=weights.to(dev), advantages=adv.to(dev), segments=seg.to(dev), tis_weight=tis.to(dev),
                      ref=None if ref is None else ref.reshape(-1))


def _step(engine: Engine, params, opt, batch, olds, cfg, max_grad_norm: float) -> dict:
    ids = [s.h.ids for s in batch]
    with engine.turns.training():
        ref = None
        if cfg.kl_penalty_coef > 0:
            # the reference policy is the base model (every adapter off)
            with torch.no_grad(), engine.model.disable_adapter():
                ref = engine.batch_logprobs(ids)[0]
        lp, entropy, _valid = engine.batch_logprobs(ids)
        inp = _loss_inputs(batch, lp, olds, cfg, ref)
        loss, frac = rl_loss(inp, cfg)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(params, max_grad_norm).item()
        opt.step()
    m = inp.mask
    n = m.sum().item()
    ent = (entropy.reshape(-1) * m).sum().item() / max(n, 1)
    out = {"loss": loss.item(), "policy_loss": loss.item(), "grad_norm": grad_norm if math.isfinite(grad_norm) else 0.0,
           "learning_rate": cfg.learning_rate, "frac_clipped": frac.item(), "entropy": ent,
           "num_trainable_tokens": n}
    if ref is not None:
        out["kl_div"] = ((lp.detach().reshape(-1) - inp.ref) * m).sum().item() / max(n, 1)
    return out


def _adapter(engine: Engine, job: dict, parent: bytes, lr: float) -> Trained:
    """The job's starting adapter and optimizer: the kept ones of its parent checkpoint, else the
    parent checkpoint (or a fresh adapter for step 0) with a new AdamW."""
    kept = engine.take_kept(job.get("model_id"), job.get("parent_checkpoint_id"))
    if kept is not None:
        engine.train_mode(kept.name)
        for g in kept.optimizer.param_groups:
            g["lr"] = lr
        return kept
    seed = int(job.get("seed") or 0)
    if not parent:
        name = engine.new_trainable(seed)
    else:
        name = engine.load_checkpoint(job.get("parent_checkpoint_id") or "parent", parent, trainable=True)
    params = engine.train_mode(name)
    opt = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.99), weight_decay=0.0)
    return Trained(name, opt, params)


def run_rl(engine: Engine, job: dict, parent: bytes, emit: Emit, *, max_tokens: int, batch_tokens: int,
           max_grad_norm: float = 1.0) -> Outcome:
    t0 = time.time()
    cfg = resolve_config(job.get("experimental_config"))
    renderer = Renderer(engine.tokenizer)
    seqs, stats = build_sequences(job.get("trajectory_groups") or [], cfg, renderer, max_tokens, int(job.get("seed") or 0))
    batches = _batches(seqs, batch_tokens)
    emit("training_started", {"num_sequences": len(batches), **stats, "parent_step": job.get("parent_step") or 0,
                              "learning_rate": cfg.learning_rate})
    with engine.lock:
        trained = _adapter(engine, job, parent, cfg.learning_rate)
        try:
            olds = {}
            if cfg.precalculate_logprobs:
                # §10.3: ℓ° recomputed with the starting weights on trainable tokens.
                with torch.no_grad():
                    for s in seqs:
                        with engine.turns.training():
                            lp = engine.batch_logprobs([s.h.ids])[0][0].tolist()
                        olds[id(s)] = [float("nan")] + [lp[i - 1] if s.h.mask[i] else float("nan") for i in range(1, len(s.h.ids))]
            all_metrics = []
            for batch in batches:
                bolds = [olds.get(id(s), s.h.old) for s in batch]
                metrics = _step(engine, trained.params, trained.optimizer, batch, bolds, cfg, max_grad_norm)
                all_metrics.append(metrics)
                emit("gradient_step", metrics)
            data = engine.finish_training(trained.name)
        except BaseException:
            engine.discard(trained.name)
            raise
    return Outcome(data, _average(all_metrics), len(batches), sum(len(s.h.ids) for s in seqs), time.time() - t0,
                   trained)


def _average(all_metrics: list[dict]) -> dict:
    if not all_metrics:
        return {}
    keys = all_metrics[0].keys()
    return {k: sum(m[k] for m in all_metrics) / len(all_metrics) for k in keys}


def run_sft(engine: Engine, job: dict, parent: bytes, emit: Emit, *, max_tokens: int, max_grad_norm: float = 1.0) -> Outcome:
    """Cross-entropy on the assistant turns; one AdamW step per batch of `batch_size` examples
    (auto: 4); `learning_rate` a number or one per batch (the last repeats), default 5e-6."""
    t0 = time.time()
    config = job.get("sft_config") or {}
    renderer = Renderer(engine.tokenizer)
    examples = [tokenize_sft_example(e, renderer, max_tokens, i) for i, e in enumerate(job.get("sft_examples") or [])]
    size = config.get("batch_size")
    batch_size = int(size) if isinstance(size, (int, float)) and not isinstance(size, bool) and size >= 1 else 4
    batches = [examples[i : i + batch_size] for i in range(0, len(examples), batch_size)]
    lr = config.get("learning_rate")
    rates = [x for x in lr if isinstance(x, (int, float))] if isinstance(lr, list) else [lr] if isinstance(lr, (int, float)) else [5e-6]
    rates = rates or [5e-6]
    emit("training_started", {"num_sequences": len(batches), "num_examples": len(examples), "batch_size": batch_size,
                              "parent_step": job.get("parent_step") or 0})
    all_metrics = []
    with engine.lock:
        trained = _adapter(engine, job, parent, rates[0])
        params, opt = trained.params, trained.optimizer
        try:
            for k, batch in enumerate(batches):
                rate = rates[min(k, len(rates) - 1)]
                for g in opt.param_groups:
                    g["lr"] = rate
                with engine.turns.training():
                    lp, _, _ = engine.batch_logprobs([e.ids for e in batch])
                    mask = torch.zeros_like(lp)
                    for b, e in enumerate(batch):
                        mask[b, : len(e.ids) - 1] = torch.tensor(e.mask[1:], dtype=torch.float32)
                    # mean of per-example mean cross-entropies
                    per = -(lp * mask).sum(-1) / mask.sum(-1).clamp(min=1)
                    loss = per.mean()
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    gn = torch.nn.utils.clip_grad_norm_(params, max_grad_norm).item()
                    opt.step()
                m = {"loss": loss.item(), "grad_norm": gn if math.isfinite(gn) else 0.0, "learning_rate": rate,
                     "num_trainable_tokens": mask.sum().item()}
                all_metrics.append(m)
                emit("gradient_step", m)
            data = engine.finish_training(trained.name)
        except BaseException:
            engine.discard(trained.name)
            raise
    return Outcome(data, _average(all_metrics), len(batches), sum(len(e.ids) for e in examples), time.time() - t0,
                   trained)


__all__ = ["run_rl", "run_sft", "Outcome", "TrainingContentError"]
