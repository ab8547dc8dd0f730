"""Continuous batching, mixed adapters in one batch, shared prefill, training beside serving and
kept optimizer state, on the tiny local model (CPU). The reference for every generated token and
log-prob is plain `transformers` `generate` with the adapter loaded by peft, one request at a time."""

import random
import tempfile
import threading
import unittest

import torch

from heddle_worker.engine import Engine
from heddle_worker.jobs import run_rl
from heddle_worker.serve import sample, sample_generate
from heddle_worker.tiny import build

PROMPTS = ["Say a letter.", "Heddle keeps traces", "0123", "The quick brown fox jumps over the lazy dog. Again?"]
TOL = 1e-4


def ask(text: str, **kw) -> dict:
    return {"messages": [{"role": "user", "content": text}], "temperature": 0, "logprobs": True,
            "top_logprobs": 2, "return_token_ids": True, **kw}


def concurrently(engine: Engine, calls: list) -> list:
    """Runs every call (a function of no argument) in its own thread while the scheduler is held,
    then lets it go, so all of them are waiting when it next admits: one batch, deterministically."""
    out = [None] * len(calls)
    started = []
    with engine.turns.training():
        def run(i, f):
            out[i] = f()

        for i, f in enumerate(calls):
            th = threading.Thread(target=run, args=(i, f))
            th.start()
            started.append(th)
        while len(engine.scheduler.waiting) < len(calls):
            threading.Event().wait(0.005)
    for th in started:
        th.join()
    return out


def adapter_bytes(engine: Engine, seed: int) -> bytes:
    """A LoRA checkpoint with random A and B (a trained adapter's shape, far from the base model)."""
    name = engine.new_trainable(seed)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in engine.model.named_parameters():
            if f".{name}." in n and "lora_B" in n:
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    data = engine.save(name)
    engine.discard(name)
    return data


class BatchingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        build(cls.dir, seed=0)
        # 4 slots: 6 requests of 9 sequences cannot all run at once, so later ones join as others finish
        cls.engine = Engine("tiny", cls.dir, "cpu", "float32", serve_slots=4, serve_max_len=256, max_adapters=3)

    def assert_same(self, got: dict, want: dict, what: str):
        self.assertEqual(len(got["choices"]), len(want["choices"]), what)
        for c, w in zip(got["choices"], want["choices"]):
            self.assertEqual(c["token_ids"], w["token_ids"], what)
            self.assertEqual(c["finish_reason"], w["finish_reason"], what)
            self.assertEqual(c["message"]["content"], w["message"]["content"], what)
            for e, f in zip(c["logprobs"]["content"], w["logprobs"]["content"]):
                self.assertEqual(e["token"], f["token"], what)
                self.assertAlmostEqual(e["logprob"], f["logprob"], delta=TOL, msg=what)
                self.assertEqual([t["token"] for t in e["top_logprobs"]], [t["token"] for t in f["top_logprobs"]], what)
            self.assertEqual(got["usage"], want["usage"], what)

    def test_batched_greedy_equals_one_at_a_time_generate(self):
        e = self.engine
        reqs = [ask(p, max_tokens=m, n=n) for p, m, n in zip(PROMPTS + PROMPTS[:2], [3, 12, 7, 5, 9, 1], [1, 2, 1, 3, 1, 1])]
        before = dict(e.scheduler.stats)
        got = concurrently(e, [lambda r=r: sample(e, None, r) for r in reqs])
        st = e.scheduler.stats
        self.assertGreater(st["prefill_passes"] - before["prefill_passes"], 1, "later requests joined in later passes")
        self.assertEqual(st["max_batch"], 4)
        for r, g in zip(reqs, got):
            self.assert_same(g, sample_generate(e, None, r), r["messages"][0]["content"])

    def test_mixed_adapters_in_one_batch_each_get_their_own_answer(self):
        e = self.engine
        ckpts = {"c1": adapter_bytes(e, 11), "c2": adapter_bytes(e, 12)}
        for k, data in ckpts.items():
            e.load_checkpoint(k, data)
        jobs = [(k, p) for p in PROMPTS[:2] for k in (None, "c1", "c2")]  # the first batch holds all three
        reqs = [ask(p, max_tokens=6, n=1) for _, p in jobs]
        before = e.scheduler.stats["max_batch"]
        e.scheduler.stats["max_batch"] = 0
        got = concurrently(e, [lambda k=k, r=r: sample(e, k, r) for (k, _), r in zip(jobs, reqs)])
        self.assertEqual(e.scheduler.stats["max_batch"], 4, "rows of different adapters ran in one batch")
        e.scheduler.stats["max_batch"] = max(before, 4)
        answers = {}
        for (k, p), r, g in zip(jobs, reqs, got):
            self.assert_same(g, sample_generate(e, ckpts.get(k), r), f"adapter {k}, prompt {p!r}")
            answers[(k, p)] = g["choices"][0]["token_ids"]
        # the adapters really differ from the base model and from each other on these prompts
        for p in PROMPTS[:2]:
            self.assertEqual(len({tuple(answers[(k, p)]) for k in (None, "c1", "c2")}), 3, p)

    def test_adapter_cache_is_lru_and_pins_adapters_in_use(self):
        bank = self.engine.decoder.bank
        self.assertEqual(bank.capacity, 3)
        data = [adapter_bytes(self.engine, 20 + i) for i in range(4)]
        w = [self.engine.bank_weights(d) for d in data]
        pinned = bank.acquire("p0", lambda: w[0])
        for i in (1, 2, 3):
            bank.put(f"p{i}", *w[i])
        self.assertTrue(bank.has("p0"), "a pinned adapter is never evicted")
        self.assertFalse(bank.has("p1"), "the least recently used unpinned adapter went")
        self.assertTrue(bank.has("p2") and bank.has("p3"))
        bank.release(pinned)
        bank.put("p1", *w[1])
        self.assertFalse(bank.has("p0"))

    def test_n_choices_share_one_prefill(self):
        e = self.engine
        r = ask(PROMPTS[1], max_tokens=5, n=4)
        before = dict(e.scheduler.stats)
        res = sample(e, None, r)
        st = e.scheduler.stats
        prompt = len(res["choices"][0]["prompt_token_ids"])
        self.assertEqual(st["prefill_tokens"] - before["prefill_tokens"], prompt, "the prompt was computed once")
        self.assertEqual(st["prefill_passes"] - before["prefill_passes"], 1)
        self.assertEqual(len({tuple(c["token_ids"]) for c in res["choices"]}), 1, "greedy choices are equal")
        self.assert_same({**res, "choices": res["choices"][:1], "usage": None},
                         {**sample_generate(e, None, {**r, "n": 1}), "usage": None}, "n=4 vs n=1")
        # sampled choices of one prefill are independent draws, reproducible by seed
        hot = {**r, "temperature": 1.0, "seed": 5, "max_tokens": 8}
        a, b = sample(e, None, hot), sample(e, None, hot)
        self.assertEqual([c["token_ids"] for c in a["choices"]], [c["token_ids"] for c in b["choices"]])
        self.assertGreater(len({tuple(c["token_ids"]) for c in a["choices"]}), 1)

    def test_stop_strings_end_a_sequence_where_they_appear_and_top_p_keeps_the_top_token(self):
        e = self.engine
        full = sample_generate(e, None, ask(PROMPTS[0], max_tokens=10))["choices"][0]
        tok = e.tokenizer
        # a stop string that first appears once the 4th token is out
        k = next(i for i in range(3, 10) if tok.decode(full["token_ids"][i:i + 1], skip_special_tokens=True).strip())
        stop = tok.decode(full["token_ids"][k:k + 1], skip_special_tokens=True).strip()[:1]
        text_before = tok.decode(full["token_ids"][:k], skip_special_tokens=True)
        self.assertNotIn(stop, text_before, "pick another stop: this one appears earlier (seeded model changed?)")
        got = sample(e, None, ask(PROMPTS[0], max_tokens=10, stop=[stop]))["choices"][0]
        self.assertEqual(got["finish_reason"], "stop")
        self.assertEqual(got["token_ids"], full["token_ids"][: k + 1], "generation stopped at the stop string")
        self.assertNotIn(stop, got["message"]["content"])
        self.assertTrue(full["message"]["content"].startswith(got["message"]["content"]))
        # top_p that keeps only the most likely token samples exactly the greedy tokens
        nucleus = sample(e, None, {**ask(PROMPTS[0], max_tokens=10), "temperature": 1.0, "top_p": 1e-6, "seed": 3})
        self.assertEqual(nucleus["choices"][0]["token_ids"], full["token_ids"])
        for odd in ({"top_p": 0, "seed": -5}, {"top_p": 0.5, "seed": 1 << 70}):
            res = sample(e, None, {**ask(PROMPTS[0], max_tokens=3), "temperature": 1.0, **odd})
            self.assertEqual(len(res["choices"][0]["token_ids"]), 3, odd)

    def test_too_long_or_too_many_is_refused_with_a_reason(self):
        from heddle_worker.serve import BadRequest

        with self.assertRaisesRegex(BadRequest, "exceeds the worker's 4 sequence slots"):
            sample(self.engine, None, ask("x", n=5))
        with self.assertRaisesRegex(BadRequest, "context of 256 tokens"):
            sample(self.engine, None, ask("x", max_tokens=400))


class StaticDecodeTest(BatchingTest):
    """The same checks with the fixed-shape decode step (what CUDA graphs replay), run eagerly."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.engine.decoder.use_static(False)


def groups(vocab: int, n: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        trajs = []
        for k in range(2):
            content = [{"token": f"token_id:{rng.randrange(3, vocab)}", "logprob": -1.0} for _ in range(4)]
            choice = {"message": {"role": "assistant", "content": ""}, "finish_reason": "length",
                      "logprobs": {"content": content}}
            trajs.append({"messages_and_choices": [{"role": "user", "content": "Say a letter."}, choice],
                          "reward": float(k)})
        out.append({"trajectories": trajs})
    return out


class TrainingBesideServingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        build(cls.dir, seed=1)
        cls.engine = Engine("tiny", cls.dir, "cpu", "float32", serve_slots=8, serve_max_len=256)
        cls.vocab = len(cls.engine.tokenizer)

    def job(self, seed: int, parent_ck=None, n=4, **cfg):
        return {"id": f"j{seed}", "kind": "rl", "seed": seed, "model_id": "m1", "parent_checkpoint_id": parent_ck,
                "trajectory_groups": groups(self.vocab, n, seed), "experimental_config": {"learning_rate": 1e-2, **cfg}}

    def test_completions_are_served_between_the_steps_of_a_running_job(self):
        e = self.engine
        steps = []
        first = threading.Event()

        def emit(t, d):
            if t == "gradient_step":
                steps.append(d)
                first.set()

        job = self.job(1, n=40)
        th = threading.Thread(target=lambda: run_rl(e, job, b"", emit, max_tokens=512, batch_tokens=16))
        th.start()
        first.wait()
        res = sample(e, None, ask("Say a letter.", max_tokens=4))
        served_at = len(steps)
        th.join()
        self.assertEqual(len(res["choices"][0]["token_ids"]), 4)
        self.assertLess(served_at, len(steps), f"served after step {served_at} of {len(steps)}: it did not wait for the job")

    def test_optimizer_state_is_kept_between_jobs_of_one_model(self):
        e = self.engine
        out1 = run_rl(e, self.job(2), b"", lambda t, d: None, max_tokens=512, batch_tokens=32)
        e.keep("m1", "ck1", out1.trained)
        out2 = run_rl(e, self.job(3, "ck1"), out1.checkpoint, lambda t, d: None, max_tokens=512, batch_tokens=32)
        self.assertIs(out2.trained.optimizer, out1.trained.optimizer)
        state = out2.trained.optimizer.state[out2.trained.params[0]]
        self.assertEqual(int(state["step"]), out1.num_gradient_steps + out2.num_gradient_steps)
        # a job from another parent starts a fresh optimizer on that parent
        e.keep("m1", "ck2", out2.trained)
        out3 = run_rl(e, self.job(4, "ck-other"), out1.checkpoint, lambda t, d: None, max_tokens=512, batch_tokens=32)
        self.assertIsNot(out3.trained.optimizer, out2.trained.optimizer)
        self.assertEqual(int(out3.trained.optimizer.state[out3.trained.params[0]]["step"]), out3.num_gradient_steps)
        self.assertNotIn(out2.trained.name, e.model.peft_config, "the stale kept adapter was dropped")
        e.discard(out3.trained.name)

    def test_kl_penalty_is_applied_against_the_base_model(self):
        e = self.engine
        job = self.job(5, kl_penalty_coef=0.5)
        plain = self.job(5)
        ev_kl, ev_plain = [], []
        # from step 0 the adapter starts as the base model: the first step's KL is 0, later ones are not
        out = run_rl(e, job, b"", lambda t, d: ev_kl.append(d) if t == "gradient_step" else None,
                     max_tokens=512, batch_tokens=16)
        base = run_rl(e, plain, b"", lambda t, d: ev_plain.append(d) if t == "gradient_step" else None,
                      max_tokens=512, batch_tokens=16)
        self.assertAlmostEqual(ev_kl[0]["kl_div"], 0.0, places=6)
        self.assertTrue(any(abs(d["kl_div"]) > 1e-6 for d in ev_kl[1:]))
        self.assertNotIn("kl_div", ev_plain[0])
        self.assertNotEqual(out.checkpoint, base.checkpoint, "the penalty changed the update")
        for o in (out, base):
            e.discard(o.trained.name)


if __name__ == "__main__":
    unittest.main()
