"""One base model with LoRA adapters: the checkpoint format, training forward passes and sampling.

A checkpoint is a zip of what peft saves for one adapter (`adapter_config.json`,
`adapter_model.safetensors`) plus `heddle_checkpoint.json` naming the format and base model, so
another worker serving the same base model can resume from it (and `peft` loads it as is).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import threading
import zipfile
from collections import OrderedDict
from typing import Optional

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

FORMAT = "heddle-lora-v1"
BASE = "heddle_base"
DEFAULT_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class CheckpointFormatError(Exception):
    pass


class Engine:
    def __init__(self, base_model: str, path: str, device: str, dtype: str = "auto", lora_rank: int = 8,
                 lora_alpha: int = 16, target_modules: Optional[list[str]] = None, max_adapters: int = 8):
        self.base_model = base_model
        self.device = torch.device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        torch_dtype = {"auto": "auto", "float32": torch.float32, "bfloat16": torch.bfloat16,
                       "float16": torch.float16}[dtype]
        base = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype).to(self.device)
        self.lora = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, lora_dropout=0.0,
                               target_modules=target_modules or DEFAULT_TARGETS, task_type="CAUSAL_LM")
        # The "base" adapter is a fresh LoRA (B = 0): exactly the base model, step 0.
        self.model = get_peft_model(base, self.lora, adapter_name=BASE)
        self.model.eval()
        self.lock = threading.RLock()
        self.max_adapters = max_adapters
        self._adapters: "OrderedDict[str, str]" = OrderedDict()
        self._n = 0

    # -- adapters -------------------------------------------------------------------------------

    def _new_name(self) -> str:
        self._n += 1
        return f"a{self._n}"

    def _evict(self) -> None:
        while len(self._adapters) > self.max_adapters:
            _, name = self._adapters.popitem(last=False)
            self.model.delete_adapter(name)

    def has(self, key: str) -> bool:
        return key in self._adapters

    def activate(self, key: Optional[str]) -> None:
        """Makes a cached adapter (None: the base model) the active one, for sampling or scoring."""
        name = BASE if key is None else self._adapters[key]
        if key is not None:
            self._adapters.move_to_end(key)
        self.model.set_adapter(name)

    def load_checkpoint(self, key: str, data: bytes, trainable: bool = False) -> str:
        """Loads checkpoint bytes as adapter `key` (kept in an LRU cache); returns the adapter name."""
        with self.lock:
            if not trainable and key in self._adapters:
                return self._adapters[key]
            name = self._new_name()
            with tempfile.TemporaryDirectory() as d:
                try:
                    with zipfile.ZipFile(io.BytesIO(data)) as z:
                        meta = json.loads(z.read("heddle_checkpoint.json"))
                        z.extractall(d)
                except (zipfile.BadZipFile, KeyError, ValueError) as e:
                    raise CheckpointFormatError(
                        "The parent checkpoint is not a LoRA checkpoint of this worker (it was produced by "
                        "another trainer, e.g. the built-in one)") from e
                if meta.get("format") != FORMAT:
                    raise CheckpointFormatError(f"Unknown checkpoint format {meta.get('format')!r}")
                self.model.load_adapter(d, adapter_name=name, is_trainable=trainable)
            if not trainable:
                self._adapters[key] = name
                self._evict()
            return name

    def new_trainable(self, seed: int) -> str:
        """A fresh LoRA adapter (A seeded random, B = 0), for a job whose parent is step 0."""
        with self.lock:
            name = self._new_name()
            torch.manual_seed(seed)
            self.model.add_adapter(name, self.lora)
            return name

    def train_mode(self, name: str) -> list[torch.nn.Parameter]:
        self.model.set_adapter(name)
        params = []
        for n, p in self.model.named_parameters():
            mine = f".{name}." in n
            p.requires_grad_(mine)
            if mine:
                params.append(p)
        self.model.train()
        return params

    def finish_training(self, name: str, key: Optional[str]) -> bytes:
        """Serialises the trained adapter; keeps it cached as `key` (the new checkpoint) or drops it."""
        self.model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        data = self.save(name)
        if key is None:
            self.model.set_adapter(BASE)
            self.model.delete_adapter(name)
        else:
            self._adapters[key] = name
            self._evict()
        return data

    def discard(self, name: str) -> None:
        with self.lock:
            self.model.eval()
            self.model.set_adapter(BASE)
            if name in self.model.peft_config:
                self.model.delete_adapter(name)

    def save(self, name: str) -> bytes:
        with tempfile.TemporaryDirectory() as d:
            self.model.save_pretrained(d, selected_adapters=[name])
            src = os.path.join(d, name) if os.path.isdir(os.path.join(d, name)) else d
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
                for f in ("adapter_config.json", "adapter_model.safetensors"):
                    z.write(os.path.join(src, f), f)
                z.writestr("heddle_checkpoint.json", json.dumps({"format": FORMAT, "base_model": self.base_model}))
            return buf.getvalue()

    # -- forward passes ------------------------------------------------------------------------

    def batch_logprobs(self, seqs: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Right-padded forward pass: (log-probs of each next token [B, T−1], entropy [B, T−1],
        validity mask [B, T−1]). Gradients flow when the active adapter is trainable."""
        width = max(len(s) for s in seqs)
        pad = self.tokenizer.pad_token_id
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        att = torch.zeros((len(seqs), width), dtype=torch.long)
        for b, s in enumerate(seqs):
            ids[b, : len(s)] = torch.tensor(s)
            att[b, : len(s)] = 1
        ids, att = ids.to(self.device), att.to(self.device)
        logits = self.model(input_ids=ids, attention_mask=att).logits[:, :-1].float()
        logp = torch.log_softmax(logits, -1)
        target = ids[:, 1:]
        lp = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        entropy = -(logp.exp() * logp).sum(-1).detach()
        return lp, entropy, att[:, 1:].float()
