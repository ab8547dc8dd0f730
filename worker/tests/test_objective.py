"""The worker's objective against the hand-computed vectors of the built-in trainer's tests
(test/unit/training/loss.test.ts, test/unit/training/advantages.test.ts), plus gradient checks."""

import math
import unittest

import torch

from heddle_worker.objective import (
    LossInputs,
    balance_advantage,
    group_advantages,
    resolve_config,
    rl_loss,
    scale_tokens,
)

R = [math.exp(0.5), math.exp(-1)]
DEN = 2 + 1e-6


def inputs(**overrides):
    """Two trainable tokens in one segment: ℓ = [−1, −2], ℓ° = [−1.5, −1] → δ = [0.5, −1]; A = [1, −1]."""
    v = dict(
        logprobs=[-1, -2],
        old=[-1.5, -1],
        has_old=[1, 1],
        mask=[1, 1],
        weights=[1, 1],
        advantages=[1, -1],
        tis_weight=[1, 1],
    )
    v.update(overrides)
    t = {k: torch.tensor(x, dtype=torch.float64) for k, x in v.items()}
    t["segments"] = torch.ones((1, len(v["logprobs"])), dtype=torch.float64)
    return LossInputs(**t)


def loss(raw, inp=None):
    out, frac = rl_loss(inp or inputs(), resolve_config(raw))
    return out.item(), frac.item()


class LossVectors(unittest.TestCase):
    def close(self, a, b, tol=1e-4):
        self.assertLessEqual(abs(a - b), tol, f"{a} != {b}")

    def test_cispo_default(self):
        self.close(loss({})[0], (-(R[0] * 1 * -1) - R[1] * -1 * -2) / DEN)
        self.assertEqual(loss({})[1], 0)

    def test_ppo(self):
        got, frac = loss({"ppo": True})
        self.close(got, (-min(R[0], 1.2) - min(-R[1], -0.8)) / DEN)
        self.close(frac, 2 / DEN)
        # loss_fn "ppo" is the newer spelling; ppo wins when both are sent
        self.close(loss({"loss_fn": "ppo"})[0], got)
        self.close(loss({"loss_fn": "ppo", "ppo": False})[0], loss({})[0])

    def test_levels(self):
        rs = math.exp(-0.25)
        self.close(loss({"importance_sampling_level": "sequence"})[0], (-(rs * -1) - rs * 2) / DEN)
        avg = [(x + rs) / 2 for x in R]
        self.close(loss({"importance_sampling_level": "average"})[0], (avg[0] - avg[1] * 2) / DEN)
        geo = [math.exp((0.5 - 0.25) / 2), math.exp((-1 - 0.25) / 2)]
        self.close(loss({"importance_sampling_level": "geometric_average"})[0], (geo[0] - geo[1] * 2) / DEN)

    def test_max_is_weight(self):
        self.close(loss({"max_negative_advantage_importance_sampling_weight": 1})[0], (1 - R[1] * 2) / DEN)

    def test_mask_prob_ratio(self):
        self.close(loss({"ppo": True, "mask_prob_ratio": True})[0], 0.8 / DEN)
        self.close(loss({"mask_prob_ratio": True})[0], loss({})[0])

    def test_kl_penalty_coef(self):
        # ℓ_ref = [−1.2, −1.1]; "sample" (ART's choice when the coefficient is set): ℓ° − ℓ_ref = [−0.3, 0.1]
        # → A = [1 + 0.15, −1 − 0.05]; "current_learner": ℓ − ℓ_ref = [0.2, −0.9] → A = [0.9, −0.55]
        ref = torch.tensor([-1.2, -1.1], dtype=torch.float64)
        inp = inputs()
        inp.ref = ref
        self.close(loss({"kl_penalty_coef": 0.5}, inp)[0], (R[0] * 1.15 - R[1] * 1.05 * 2) / DEN)
        self.close(loss({"kl_penalty_coef": 0.5, "kl_penalty_source": "current_learner"}, inp)[0],
                   (R[0] * 0.9 - R[1] * 0.55 * 2) / DEN)
        self.close(loss({"kl_penalty_coef": 0}, inp)[0], loss({})[0])

    def test_kimi_tau(self):
        expected = (-(R[0] * 0.75 * -1) - R[1] * -0.5 * -2) / DEN
        self.close(loss({"kimi_k2_tau": 0.5})[0], expected)
        self.close(loss({"partner_k2_tau": 0.5})[0], expected)

    def test_weights_mask_missing_old_tis(self):
        self.close(loss({}, inputs(mask=[1, 0], weights=[2, 1]))[0], (2 * R[0]) / (1 + 1e-6))
        self.close(loss({}, inputs(has_old=[0, 1]))[0], (1 - R[1] * 2) / DEN)
        self.close(loss({}, inputs(tis_weight=[0.5, 0.5]))[0], 0.5 * loss({})[0])


def loss_of_logits(cfg, targets, fixed):
    def f(z):
        lp = torch.log_softmax(z, -1).gather(-1, torch.tensor(targets).unsqueeze(-1)).squeeze(-1)
        return rl_loss(LossInputs(logprobs=lp, **fixed), resolve_config(cfg))[0]

    return f


def finite_difference(f, z, eps=1e-3):
    g = torch.zeros_like(z)
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            d = torch.zeros_like(z)
            d[i, j] = eps
            g[i, j] = (f(z + d) - f(z - d)) / (2 * eps)
    return g


def t64(x):
    return torch.tensor(x, dtype=torch.float64)


class Gradients(unittest.TestCase):
    def test_ppo_token_and_sequence(self):
        z = t64([[0.3, -0.2, 0.1, 0.05], [0.0, 0.4, -0.3, 0.2], [0.1, 0.1, -0.1, 0.3]])
        fixed = dict(
            old=t64([-1.35, -1.75, -1.2]),
            has_old=t64([1, 1, 1]),
            mask=t64([1, 1, 1]),
            weights=t64([1, 0.5, 1.5]),
            advantages=t64([1, -0.5, 0.8]),
            tis_weight=t64([1, 1, 1]),
            segments=t64([[1, 1, 0], [0, 0, 1]]),
        )
        for cfg in ({"ppo": True, "epsilon": 0.5}, {"ppo": True, "epsilon": 0.5, "importance_sampling_level": "sequence"}):
            f = loss_of_logits(cfg, [1, 2, 3], fixed)
            zz = z.clone().requires_grad_(True)
            f(zz).backward()
            numeric = finite_difference(f, z)
            self.assertTrue(torch.allclose(zz.grad, numeric, atol=1e-5), f"{zz.grad} vs {numeric}")
            self.assertGreater(zz.grad.abs().max().item(), 1e-2)

    def test_cispo_treats_clipped_ratio_as_constant(self):
        z = t64([[0.3, -0.2, 0.1], [0.0, 0.4, -0.3]])
        targets = [1, 2]
        old = [-1.0, -1.6]
        fixed = dict(
            old=t64(old),
            has_old=t64([1, 1]),
            mask=t64([1, 1]),
            weights=t64([1, 1]),
            advantages=t64([1, -1]),
            tis_weight=t64([1, 1]),
            segments=t64([[1, 1]]),
        )
        zz = z.clone().requires_grad_(True)
        loss_of_logits({}, targets, fixed)(zz).backward()
        lp = torch.log_softmax(z, -1).gather(-1, torch.tensor(targets).unsqueeze(-1)).squeeze(-1)
        c = [math.exp(lp[t].item() - old[t]) for t in range(2)]

        def frozen(x):
            ll = torch.log_softmax(x, -1).gather(-1, torch.tensor(targets).unsqueeze(-1)).squeeze(-1)
            return -(ll * t64([c[0] * 1, c[1] * -1])).sum() / (2 + 1e-6)

        self.assertTrue(torch.allclose(zz.grad, finite_difference(frozen, z), atol=1e-5))


class Advantages(unittest.TestCase):
    def close(self, a, b, tol=1e-9):
        self.assertLessEqual(abs(a - b), tol, f"{a} != {b}")

    def test_worked_example(self):
        a = group_advantages([1, 0, 0, 1], True)
        for i, sign in enumerate([1, -1, -1, 1]):
            self.close(a[i], sign * 0.5 / 0.500001)
        self.close(a[0], 0.999998, 1e-6)
        self.close(balance_advantage(a[1], 0.5), -0.499999, 1e-6)
        self.close(balance_advantage(a[0], 0.5), a[0])

    def test_unscaled_and_equal(self):
        self.assertEqual(group_advantages([3, 1, 2], False), [1, -1, 0])
        self.assertEqual(group_advantages([0.7, 0.7, 0.7], True), [0, 0, 0])
        self.assertEqual(group_advantages([], True), [])

    def test_balance(self):
        self.assertEqual(balance_advantage(-2, 1), 0)
        self.assertEqual(balance_advantage(2, 1), 2)
        self.assertEqual(balance_advantage(2, -1), 0)
        self.assertEqual(balance_advantage(-2, -1), -2)
        self.assertEqual(balance_advantage(2, -0.5), 1)

    def test_token_scaling(self):
        w, a = scale_tokens([(1, 1), (-1, 3)], 0)
        self.close(w[0], 2, 1e-5)
        self.close(w[1], 2 / 3, 1e-5)
        self.close(a[0], 1, 1e-5)
        self.close(a[1], -1, 1e-5)
        _, b = scale_tokens([(1, 1), (-1, 3)], 0.5)
        self.close(b[0], 1 / 0.75, 1e-5)
        self.close(b[1], -0.5 / 0.75, 1e-5)
        _, z = scale_tokens([(-1, 2), (-0.5, 2)], 1)
        self.assertEqual([abs(x) for x in z], [0, 0])

    def test_config_defaults(self):
        c = resolve_config(None)
        self.assertEqual((c.epsilon, c.epsilon_high, c.ppo, c.scale_rewards), (1.0, 4.0, False, True))
        p = resolve_config({"ppo": True, "normalize_advantages": False, "scale_rewards": True})
        self.assertEqual((p.epsilon, p.epsilon_high, p.scale_rewards), (0.2, 0.2, False))


if __name__ == "__main__":
    unittest.main()
