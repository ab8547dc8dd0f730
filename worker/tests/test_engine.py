"""Engine, jobs and sampling on the tiny local model: no Heddle needed."""

import io
import json
import tempfile
import unittest
import zipfile

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM

from heddle_worker.engine import CheckpointFormatError, Engine
from heddle_worker.jobs import run_rl, run_sft
from heddle_worker.serve import sample
from heddle_worker.tiny import build

MESSAGES = [{"role": "user", "content": "Say a letter."}]


class EngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        build(cls.dir, seed=0)
        cls.engine = Engine("tiny", cls.dir, "cpu", "float32")

    def groups(self, key):
        out = []
        for g in range(2):
            res = sample(self.engine, key, {"messages": MESSAGES, "n": 4, "max_tokens": 3, "logprobs": True, "seed": g})
            trajs = [{"messages_and_choices": MESSAGES + [c], "reward": float(k % 2)} for k, c in enumerate(res["choices"])]
            out.append({"trajectories": trajs})
        return out

    def test_sample_reports_token_ids_and_logprobs(self):
        res = sample(self.engine, None, {"messages": MESSAGES, "n": 2, "max_tokens": 4, "logprobs": True,
                                         "top_logprobs": 2, "seed": 1, "return_token_ids": True})
        self.assertEqual(len(res["choices"]), 2)
        c = res["choices"][0]
        self.assertEqual(len(c["logprobs"]["content"]), len(c["token_ids"]))
        for e, i in zip(c["logprobs"]["content"], c["token_ids"]):
            self.assertEqual(e["token"], f"token_id:{i}")
            self.assertLess(e["logprob"], 0)
            self.assertEqual(len(e["top_logprobs"]), 2)

    def test_rl_job_changes_the_adapter_and_the_checkpoint_loads_back(self):
        events = []
        job = {"id": "j", "kind": "rl", "seed": 7, "parent_step": 0, "trajectory_groups": self.groups(None),
               "experimental_config": {"learning_rate": 1e-2}}
        out = run_rl(self.engine, job, b"", lambda t, d: events.append((t, d)), max_tokens=512, batch_tokens=64)
        self.assertEqual(events[0][0], "training_started")
        steps = [d for t, d in events if t == "gradient_step"]
        self.assertEqual(len(steps), events[0][1]["num_sequences"])
        self.assertGreater(len(steps), 1)
        self.assertTrue(all(s["grad_norm"] > 0 for s in steps))
        z = zipfile.ZipFile(io.BytesIO(out.checkpoint))
        self.assertEqual(json.loads(z.read("heddle_checkpoint.json"))["base_model"], "tiny")
        # the adapter loads with plain peft and changes the model's output
        with tempfile.TemporaryDirectory() as d:
            z.extractall(d)
            base = AutoModelForCausalLM.from_pretrained(self.dir)
            ids = torch.tensor([[5, 6, 7, 8]])
            before = base(ids).logits
            tuned = PeftModel.from_pretrained(base, d)
            self.assertFalse(torch.allclose(before, tuned(ids).logits))
        # a child job resumes from it
        self.engine.load_checkpoint("c1", out.checkpoint)
        child = {**job, "parent_step": 1, "trajectory_groups": self.groups("c1")}
        out2 = run_rl(self.engine, child, out.checkpoint, lambda t, d: None, max_tokens=512, batch_tokens=4096)
        self.assertNotEqual(out2.checkpoint, out.checkpoint)

    def test_sft_and_foreign_checkpoint(self):
        job = {"id": "s", "kind": "sft", "seed": 1, "sft_examples": [
            {"messages": MESSAGES + [{"role": "assistant", "content": "a"}]}] * 3, "sft_config": {"batch_size": 2,
                                                                                                  "learning_rate": 1e-2}}
        events = []
        out = run_sft(self.engine, job, b"", lambda t, d: events.append((t, d)), max_tokens=512)
        self.assertEqual(events[0][1]["num_sequences"], 2)
        self.assertGreater(len(out.checkpoint), 0)
        with self.assertRaises(CheckpointFormatError):
            self.engine.load_checkpoint("x", b"\x00built-in bytes", trainable=True)


if __name__ == "__main__":
    unittest.main()
