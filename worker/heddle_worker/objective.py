"""Heddle's RL objective (docs/spec/training.md §5.8, §10), written once for the worker.

It mirrors the built-in trainer (src/training/objective/) term for term, and
tests/test_objective.py checks it against the same hand-computed vectors as
test/unit/training/loss.test.ts and advantages.test.ts.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import torch

LEVELS = ("token", "sequence", "average", "geometric_average")


def _num(raw: dict, key: str) -> Optional[float]:
    v = raw.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def _bool(raw: dict, key: str) -> Optional[bool]:
    v = raw.get(key)
    return v if isinstance(v, bool) else None


@dataclass(frozen=True)
class ObjectiveConfig:
    learning_rate: float
    scale_rewards: bool
    advantage_balance: float
    ppo: bool
    epsilon: float
    epsilon_high: float
    importance_sampling_level: str
    max_importance_sampling_weight: Optional[float]
    mask_prob_ratio: bool
    kimi_k2_tau: Optional[float]
    precalculate_logprobs: bool
    allow_training_without_logprobs: bool
    normalize_advantages: bool
    truncated_importance_sampling: Optional[float]
    kl_penalty_coef: float
    kl_penalty_source: str = "sample"


def resolve_config(raw_config: Optional[dict]) -> ObjectiveConfig:
    """Applies the §5.8 defaults to a raw experimental_config, as resolveObjectiveConfig does."""
    raw = raw_config if isinstance(raw_config, dict) else {}
    ppo_flag = _bool(raw, "ppo")
    if ppo_flag is not None:
        ppo = ppo_flag
    else:
        loss_fn = raw.get("loss_fn")
        ppo = isinstance(loss_fn, str) and loss_fn.lower() == "ppo"
    epsilon = _num(raw, "epsilon")
    if epsilon is None:
        epsilon = 0.2 if ppo else 1.0
    epsilon_high = _num(raw, "epsilon_high")
    if epsilon_high is None:
        epsilon_high = epsilon if ppo else 4.0
    normalize = _bool(raw, "normalize_advantages")
    normalize = True if normalize is None else normalize
    scale = _bool(raw, "scale_rewards")
    level = raw.get("importance_sampling_level")
    kimi = _num(raw, "kimi_k2_tau")
    if kimi is None:
        kimi = _num(raw, "partner_k2_tau")
    lr = _num(raw, "learning_rate")
    return ObjectiveConfig(
        learning_rate=5e-6 if lr is None else lr,
        # §5.8: normalize_advantages=false forces scale_rewards off.
        scale_rewards=(True if scale is None else scale) if normalize else False,
        advantage_balance=_num(raw, "advantage_balance") or 0.0,
        ppo=ppo,
        epsilon=epsilon,
        epsilon_high=epsilon_high,
        importance_sampling_level=level if isinstance(level, str) and level in LEVELS else "token",
        max_importance_sampling_weight=_num(raw, "max_negative_advantage_importance_sampling_weight"),
        mask_prob_ratio=bool(_bool(raw, "mask_prob_ratio")),
        kimi_k2_tau=kimi,
        precalculate_logprobs=bool(_bool(raw, "precalculate_logprobs")),
        allow_training_without_logprobs=bool(_bool(raw, "allow_training_without_logprobs")),
        normalize_advantages=normalize,
        truncated_importance_sampling=_num(raw, "truncated_importance_sampling"),
        kl_penalty_coef=_num(raw, "kl_penalty_coef") or 0.0,
        # ART sends "sample" when kl_penalty_coef > 0: the penalised log-ratio uses the sampler's ℓ°
        kl_penalty_source="current_learner" if raw.get("kl_penalty_source") == "current_learner" else "sample",
    )


def group_advantages(rewards: Sequence[float], scale_rewards: bool) -> list[float]:
    """§10.1: A_i = r_i − μ, divided by σ + 1e-6 (population std) when scale_rewards."""
    if not rewards:
        return []
    # Equal rewards give exactly 0: the group is dropped.
    if all(r == rewards[0] for r in rewards):
        return [0.0 for _ in rewards]
    mean = sum(rewards) / len(rewards)
    centred = [r - mean for r in rewards]
    if not scale_rewards:
        return centred
    std = math.sqrt(sum(c * c for c in centred) / len(rewards))
    return [c / (std + 1e-6) for c in centred]


def balance_advantage(advantage: float, balance: float) -> float:
    """§10.2: b > 0 shrinks negative advantages by (1−b), b < 0 positive ones by (1+b)."""
    if balance > 0 and advantage < 0:
        return advantage * (1 - balance)
    if balance < 0 and advantage > 0:
        return advantage * (1 + balance)
    return advantage


def scale_tokens(trajectories: Sequence[tuple[float, int]], balance: float) -> tuple[list[float], list[float]]:
    """§10.2 over (advantage, trainable token count) pairs: token weights with mean 1, then
    advantages balanced and divided by mean_t(|A_t|·w_t). Returns (weights, advantages)."""
    total = sum(n for _, n in trajectories)
    if total == 0:
        return [0.0] * len(trajectories), [0.0] * len(trajectories)
    raw = [1 / (n + 1e-6) for _, n in trajectories]
    raw_mean = sum(raw[i] * n for i, (_, n) in enumerate(trajectories)) / total
    weights = [w / raw_mean for w in raw]
    balanced = [balance_advantage(a, balance) for a, _ in trajectories]
    mean_abs = sum(abs(balanced[i]) * weights[i] * n for i, (_, n) in enumerate(trajectories)) / total
    advantages = [a / mean_abs for a in balanced] if mean_abs > 0 else balanced
    return weights, advantages


def shuffle_in_place(items: list, rng: random.Random) -> list:
    rng.shuffle(items)
    return items


@dataclass
class LossInputs:
    """Per-token tensors of one batch, each [T] except segments ([S, T], 0/1 membership)."""

    logprobs: torch.Tensor
    old: torch.Tensor
    has_old: torch.Tensor
    mask: torch.Tensor
    weights: torch.Tensor
    advantages: torch.Tensor
    segments: torch.Tensor
    tis_weight: torch.Tensor
    # the reference policy's log-probs [T] (kl_penalty_coef > 0), else None
    ref: Optional[torch.Tensor] = None


def _importance_ratio(delta: torch.Tensor, inp: LossInputs, cfg: ObjectiveConfig) -> torch.Tensor:
    """§10.3: the ratio at the configured level; delta is ℓ − ℓ° per token."""
    token_ratio = torch.exp(delta)
    if cfg.importance_sampling_level == "token":
        return token_ratio
    sums = inp.segments @ (delta * inp.mask)
    counts = inp.segments @ inp.mask
    seg_mean = sums / counts.clamp(min=1)
    seq_delta = inp.segments.t() @ seg_mean
    if cfg.importance_sampling_level == "sequence":
        return torch.exp(seq_delta)
    if cfg.importance_sampling_level == "average":
        return (token_ratio + torch.exp(seq_delta)) / 2
    return torch.exp((delta + seq_delta) / 2)


def rl_loss(inp: LossInputs, cfg: ObjectiveConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """§10.3–10.6: Σ_t L_t·w_t·m_t / (Σ_t m_t + 1e-6), and the share of clipped trainable tokens."""
    lo = 1 - cfg.epsilon
    hi = 1 + cfg.epsilon_high
    # §10.3: a missing old log-prob is taken as ℓ itself (ratio 1, gradient kept).
    old_eff = inp.has_old * inp.old + (1 - inp.has_old) * inp.logprobs.detach()
    delta = inp.logprobs - old_eff
    ratio = _importance_ratio(delta, inp, cfg)
    if cfg.max_importance_sampling_weight is not None:
        ratio = torch.clamp(ratio, max=cfg.max_importance_sampling_weight)
    fixed = ratio.detach()
    outside = ((fixed <= lo) | (fixed >= hi)).to(inp.mask.dtype)
    if cfg.mask_prob_ratio:
        ratio = ratio * (1 - outside)
    adv = inp.advantages
    if cfg.kimi_k2_tau is not None:
        adv = adv - cfg.kimi_k2_tau * delta.detach()
    if cfg.kl_penalty_coef > 0 and inp.ref is not None:
        # §5.8 kl_penalty_coef, a KL-shaped advantage penalty: A_t ← A_t − β·(ℓ_src,t − ℓ_ref,t), a
        # constant, where ℓ_src is the sampler's ℓ° ("sample", missing: ℓ) or the learner's ℓ.
        src = old_eff if cfg.kl_penalty_source == "sample" else inp.logprobs
        adv = adv - cfg.kl_penalty_coef * (src - inp.ref).detach()
    clipped = torch.clamp(ratio, lo, hi)
    if cfg.ppo:
        per_token = -torch.minimum(ratio * adv, clipped * adv)
    else:
        per_token = -(clipped.detach() * adv * inp.logprobs)
    weighted = per_token * inp.tis_weight * inp.weights * inp.mask
    denom = inp.mask.sum() + 1e-6
    return weighted.sum() / denom, (outside * inp.mask).sum() / denom


def tis_weights(orig: Sequence[float], recomputed: Sequence[float], cap: Optional[float]) -> list[float]:
    """§10.5: sg[min(exp(ℓ° − ℓ^orig), c)], 1 where either log-prob is unknown (NaN)."""
    out = []
    for o, r in zip(orig, recomputed):
        if cap is None or math.isnan(o) or math.isnan(r):
            out.append(1.0)
        else:
            out.append(min(math.exp(r - o), cap))
    return out


def as_dict(cfg: ObjectiveConfig) -> dict[str, Any]:
    return dict(cfg.__dict__)
