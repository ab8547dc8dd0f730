"""Tokens per second the Python training worker (worker/) trains and generates, through its own code
paths (Engine, jobs.run_rl, serve.sample: one request of n choices, through the continuous-batching
scheduler since issue 37; bench/worker-serving.py measures concurrent requests and adapters) on a model
built from a config with random weights.

    python bench/worker-speed.py --model tiny                 # the CPU test's tiny Llama (CPU default)
    python bench/worker-speed.py --model qwen2-0.5b --device cuda --dtype bfloat16

Needs only torch, transformers and peft (no network, no Node.js, no Heddle server); prints one JSON
object. Random weights are enough for speed: the cost of a step does not depend on the values.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "worker"))

import torch  # noqa: E402
import transformers  # noqa: E402
import peft  # noqa: E402
from transformers import Qwen2Config, Qwen2ForCausalLM  # noqa: E402

from heddle_worker.engine import Engine  # noqa: E402
from heddle_worker.jobs import run_rl  # noqa: E402
from heddle_worker.serve import sample  # noqa: E402
from heddle_worker.tiny import build, build_tokenizer  # noqa: E402

MESSAGES = [{"role": "user", "content": "Say a letter."}]


def qwen2_05b(out_dir: str, dtype: torch.dtype) -> dict:
    """Qwen2-0.5B's published dimensions, random weights, the local tokenizer (ids < its vocab)."""
    tok = build_tokenizer()
    config = Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                         tie_word_embeddings=True, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config).to(dtype)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return {"parameters": sum(p.numel() for p in model.parameters())}


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def synthetic_groups(groups: int, size: int, prompt: int, completion: int, vocab: int, seed: int) -> list:
    """Trajectories as a client sends them: token ids with sampler logprobs, rewards 0/1."""
    rng = random.Random(seed)
    out = []
    for _ in range(groups):
        trajs = []
        for k in range(size):
            content = [{"token": f"token_id:{rng.randrange(3, vocab)}", "logprob": -rng.random() * 5}
                       for _ in range(completion)]
            prompt_ids = [rng.randrange(3, vocab) for _ in range(prompt)]
            choice = {"message": {"role": "assistant", "content": ""}, "finish_reason": "length",
                      "logprobs": {"content": content}, "prompt_token_ids": prompt_ids}
            trajs.append({"messages_and_choices": MESSAGES + [choice], "reward": float(k % 2)})
        out.append({"trajectories": trajs})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", choices=["tiny", "qwen2-0.5b"], default="tiny")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"])
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--prompt-tokens", type=int, default=None)
    p.add_argument("--completion-tokens", type=int, default=None)
    p.add_argument("--batch-tokens", type=int, default=8192)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    dtype_name = a.dtype or ("bfloat16" if a.device.startswith("cuda") else "float32")
    dtype = getattr(torch, dtype_name)
    big = a.model == "qwen2-0.5b"
    prompt = a.prompt_tokens or (256 if big else 16)
    completion = a.completion_tokens or (256 if big else 16)
    with tempfile.TemporaryDirectory() as d:
        info = qwen2_05b(d, dtype) if big else build(d, seed=0, dtype=dtype)
        engine = Engine(a.model, d, a.device, dtype_name, serve_slots=a.groups * a.group_size,
                        serve_max_len=prompt + completion + 64)
        vocab = len(engine.tokenizer)
        # warm-up: kernels, allocator, adapters
        sample(engine, None, {"messages": MESSAGES, "n": 2, "max_tokens": 4, "seed": 0})
        warm = run_rl(engine, {"seed": 0, "trajectory_groups": synthetic_groups(1, 2, 8, 8, vocab, 0),
                               "experimental_config": {"learning_rate": 1e-4}}, b"", lambda t, x: None,
                      max_tokens=1 << 20, batch_tokens=a.batch_tokens)
        engine.discard(warm.trained.name)
        gen, train = [], []
        for r in range(a.repeats):
            sync(a.device)
            t0 = time.perf_counter()
            res = sample(engine, None, {"messages": MESSAGES, "n": a.groups * a.group_size, "max_tokens": completion,
                                        "logprobs": True, "seed": r, "temperature": 1.0})
            sync(a.device)
            gen.append(res["usage"]["completion_tokens"] / (time.perf_counter() - t0))
            groups = synthetic_groups(a.groups, a.group_size, prompt, completion, vocab, r + 1)
            steps = []
            sync(a.device)
            t0 = time.perf_counter()
            out = run_rl(engine, {"seed": r, "trajectory_groups": groups, "experimental_config": {"learning_rate": 1e-4}},
                         b"", lambda t, x: steps.append(t), max_tokens=1 << 20, batch_tokens=a.batch_tokens)
            sync(a.device)
            train.append(out.trained_tokens / (time.perf_counter() - t0))
            engine.discard(out.trained.name)
        result = {
            "model": a.model, "parameters": info["parameters"], "device": a.device,
            "device_name": torch.cuda.get_device_name(0) if a.device.startswith("cuda") else platform.processor() or platform.machine(),
            "cpu_threads": torch.get_num_threads(), "dtype": dtype_name,
            "lora_rank": engine.lora.r, "sequences": a.groups * a.group_size, "prompt_tokens": prompt,
            "completion_tokens": completion, "batch_tokens": a.batch_tokens,
            "gradient_steps_per_job": out.num_gradient_steps, "adapter_bytes": len(out.checkpoint),
            "generate_tokens_per_s": sorted(gen)[len(gen) // 2], "train_tokens_per_s": sorted(train)[len(train) // 2],
            "generate_runs": [round(x, 1) for x in gen], "train_runs": [round(x, 1) for x in train],
            "peak_gpu_mem_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if a.device.startswith("cuda") else None,
            "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
                         "python": platform.python_version()},
        }
        print(json.dumps(result))


if __name__ == "__main__":
    main()
