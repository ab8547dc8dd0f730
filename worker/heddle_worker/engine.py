"""One base model with LoRA adapters: the checkpoint format, training forward passes and serving.

A checkpoint is a zip of what peft saves for one adapter (`adapter_config.json`,
`adapter_model.safetensors`) plus `heddle_checkpoint.json` naming the format and base model, so
another worker serving the same base model can resume from it (and `peft` loads it as is).

Training runs through peft (the adapter being trained is a peft adapter). Serving runs through
decoder.Decoder and scheduler.Scheduler on the same base weights: served checkpoints live in the
decoder's LoraBank (many at once, one batch), never as peft adapters, so a job's training and the
completions of other checkpoints do not disturb each other; DeviceTurns shares the device.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import threading
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Optional

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

from .decoder import Decoder
from .lora_bank import FORMAT, CheckpointFormatError, lora_scale, parse_checkpoint, weights_from_peft
from .scheduler import DeviceTurns, Scheduler

BASE = "heddle_base"
DEFAULT_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

__all__ = ["Engine", "CheckpointFormatError", "FORMAT", "Trained"]


@dataclass
class Trained:
    """A trained peft adapter and its optimizer, kept for the next job of the same model."""

    name: str
    optimizer: Any
    params: list


class Engine:
    def __init__(self, base_model: str, path: str, device: str, dtype: str = "auto", lora_rank: int = 8,
                 lora_alpha: int = 16, target_modules: Optional[list[str]] = None, max_adapters: int = 8,
                 serve_slots: int = 16, serve_max_len: int = 2048, adapter_cache_bytes: int = 1 << 30,
                 prefill_tokens: int = 8192, kept_models: int = 2, model: Optional[torch.nn.Module] = None,
                 cuda_graphs: bool = False, kv_cache_bytes: Optional[int] = None):
        self.base_model = base_model
        self.device = torch.device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        torch_dtype = {"auto": "auto", "float32": torch.float32, "bfloat16": torch.bfloat16,
                       "float16": torch.float16}[dtype]
        # `model`: an already built causal LM (the benchmark's random-weight models), else the directory's
        base = model if model is not None else AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
        base = base.to(self.device)
        self.lora = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, lora_dropout=0.0,
                               target_modules=target_modules or DEFAULT_TARGETS, task_type="CAUSAL_LM")
        # The "base" adapter is a fresh LoRA (B = 0): exactly the base model, step 0.
        self.model = get_peft_model(base, self.lora, adapter_name=BASE)
        self.model.eval()
        # one job at a time trains; the device itself is shared per step through `turns`
        self.lock = threading.RLock()
        self.turns = DeviceTurns()
        self.decoder = Decoder(self.model.get_base_model(), serve_slots, serve_max_len, lora_rank, max_adapters,
                               adapter_cache_bytes, kv_cache_bytes)
        if cuda_graphs:
            self.decoder.use_static(True)
        self.scheduler = Scheduler(self.decoder, self.tokenizer.eos_token_id,
                                   lambda ids: self.tokenizer.decode(ids, skip_special_tokens=True), self.turns,
                                   prefill_tokens)
        self._n = 0
        # model id → (checkpoint id the adapter equals, Trained): optimizer state across ART's one-step jobs
        self.kept: "OrderedDict[str, tuple[str, Trained]]" = OrderedDict()
        self.kept_models = kept_models

    # -- adapters -------------------------------------------------------------------------------

    def _new_name(self) -> str:
        self._n += 1
        return f"a{self._n}"

    def has(self, key: str) -> bool:
        """Whether checkpoint `key` is in the serving cache."""
        return self.decoder.bank.has(key)

    @staticmethod
    def bank_weights(data: bytes) -> tuple[dict, float]:
        """Checkpoint bytes → the serving bank's ({module: (A, B)}, scale)."""
        config, tensors = parse_checkpoint(data)
        return weights_from_peft(tensors), lora_scale(config)

    def load_checkpoint(self, key: str, data: bytes, trainable: bool = False) -> str:
        """Serving (trainable=False): caches checkpoint `key` in the LoRA bank (LRU) and returns the
        key. Training: loads it as a trainable peft adapter and returns the adapter's name."""
        if not trainable:
            weights, scale = self.bank_weights(data)
            self.decoder.bank.put(key, weights, scale)
            return key
        with self.lock:
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
                self.model.load_adapter(d, adapter_name=name, is_trainable=True)
            return name

    def take_kept(self, model_id: Optional[str], parent_checkpoint_id: Optional[str]) -> Optional[Trained]:
        """The adapter and optimizer kept from this model's previous job, when the job continues
        from exactly that checkpoint; any other kept state of the model is dropped."""
        if model_id is None or model_id not in self.kept:
            return None
        checkpoint_id, trained = self.kept.pop(model_id)
        if parent_checkpoint_id is not None and checkpoint_id == parent_checkpoint_id:
            return trained
        self.discard(trained.name)
        return None

    def keep(self, model_id: str, checkpoint_id: str, trained: Trained) -> None:
        self.kept[model_id] = (checkpoint_id, trained)
        while len(self.kept) > self.kept_models:
            _, (_, old) = self.kept.popitem(last=False)
            self.discard(old.name)

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

    def finish_training(self, name: str) -> bytes:
        """Serialises the trained adapter (it stays loaded: Engine.keep or Engine.discard it)."""
        self.model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        return self.save(name)

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
