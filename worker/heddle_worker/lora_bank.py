"""LoRA adapters for serving: every cached adapter stacked in one tensor per projection, so one
forward pass serves rows of different adapters (each row names its adapter slot).

Slot 0 is the base model (no delta). A batch's LoRA term is two dense matmuls over the adapters
present in it: x·[A_u1; A_u2; …]ᵀ gives every present adapter's rank-r projection of every row, a
0/1 mask (times the adapter's scale) keeps each row's own block, and that times [B_u1 | B_u2 | …]
is the row's own delta. Summing zero blocks changes no value, so a row's result is its adapter's
alone; the extra work is (adapters in the batch) × r columns, small next to the base matmul.

Slots are cached LRU within a memory bound; a slot in use by a running request is pinned.
"""

from __future__ import annotations

import io
import json
import math
import threading
import zipfile
from collections import OrderedDict
from typing import Callable, Optional

import torch
from safetensors.torch import load as load_safetensors

FORMAT = "heddle-lora-v1"


class CheckpointFormatError(Exception):
    pass


def parse_checkpoint(data: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
    """A heddle-lora-v1 zip → (adapter_config.json, safetensors tensors)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            meta = json.loads(z.read("heddle_checkpoint.json"))
            config = json.loads(z.read("adapter_config.json"))
            tensors = load_safetensors(z.read("adapter_model.safetensors"))
    except (zipfile.BadZipFile, KeyError, ValueError) as e:
        raise CheckpointFormatError(
            "The checkpoint is not a LoRA checkpoint of this worker (it was produced by another trainer, "
            "e.g. the built-in one)") from e
    if meta.get("format") != FORMAT:
        raise CheckpointFormatError(f"Unknown checkpoint format {meta.get('format')!r}")
    return config, tensors


def lora_scale(config: dict) -> float:
    r = int(config.get("r") or 8)
    alpha = float(config.get("lora_alpha") or r)
    return alpha / math.sqrt(r) if config.get("use_rslora") else alpha / r


class LoraBank:
    """Stacked adapters for the named Linear modules (`modules`: name → nn.Linear of the base model)."""

    def __init__(self, modules: dict[str, torch.nn.Linear], rank: int, max_adapters: int, budget_bytes: int,
                 device: torch.device, dtype: torch.dtype):
        self.rank = rank
        per = sum(rank * (m.in_features + m.out_features) for m in modules.values()) * torch.finfo(dtype).bits // 8
        self.bytes_per_adapter = per
        self.capacity = max(1, min(max_adapters, budget_bytes // max(per, 1)))
        slots = self.capacity + 1  # slot 0: the base model, all zeros
        self.a = {n: torch.zeros((slots, rank, m.in_features), device=device, dtype=dtype) for n, m in modules.items()}
        self.b = {n: torch.zeros((slots, rank, m.out_features), device=device, dtype=dtype) for n, m in modules.items()}
        self.scale = torch.zeros(slots, device=device, dtype=torch.float32)
        self.host_scale = [0.0] * slots  # the same on the host, read without a device sync
        self._slot: "OrderedDict[str, int]" = OrderedDict()  # key → slot, least recently used first
        self._pins: dict[int, int] = {}
        self._free = list(range(slots - 1, 0, -1))
        self._cond = threading.Condition()
        self.loads = 0
        # the stacked blocks of the adapters of recent batches, reused while no slot is rewritten
        self._version = 0
        self._stacks: dict[tuple, dict[str, tuple[torch.Tensor, torch.Tensor]]] = {}

    def has(self, key: str) -> bool:
        with self._cond:
            return key in self._slot

    def keys(self) -> list[str]:
        with self._cond:
            return list(self._slot)

    def _write(self, slot: int, weights: dict[str, tuple[torch.Tensor, torch.Tensor]], scale: float) -> None:
        unknown = sorted(set(weights) - set(self.a))
        if unknown:
            raise CheckpointFormatError(f"The adapter targets modules this worker does not serve with LoRA: {unknown[:3]}")
        for n in self.a:
            self.a[n][slot].zero_()
            self.b[n][slot].zero_()
            if n in weights:
                a, b = weights[n]  # a: [r, in], b: [out, r]
                r = a.shape[0]
                if r > self.rank:
                    raise CheckpointFormatError(f"The adapter's rank {r} exceeds the worker's --lora-rank {self.rank}")
                self.a[n][slot, :r].copy_(a)
                self.b[n][slot, :r].copy_(b.t())
        self.scale[slot] = scale
        self.host_scale[slot] = scale
        self._version += 1

    def _take_slot(self) -> Optional[int]:
        if self._free:
            return self._free.pop()
        for key, slot in self._slot.items():  # least recently used first
            if not self._pins.get(slot):
                del self._slot[key]
                return slot
        return None

    def acquire(self, key: str, load: Callable[[], tuple[dict, float]]) -> int:
        """Pins adapter `key` (loading it with `load()` → ({module: (A, B)}, scale) when absent,
        outside the lock) and returns its slot; waits while every slot is pinned."""
        with self._cond:
            if key in self._slot:
                return self._pin(key)
        weights, scale = load()
        with self._cond:
            while key not in self._slot:
                slot = self._take_slot()
                if slot is None:
                    self._cond.wait()
                    continue
                try:
                    self._write(slot, weights, scale)
                except BaseException:
                    self._free.append(slot)
                    raise
                self._slot[key] = slot
                self.loads += 1
            return self._pin(key)

    def _pin(self, key: str) -> int:
        slot = self._slot[key]
        self._slot.move_to_end(key)
        self._pins[slot] = self._pins.get(slot, 0) + 1
        return slot

    def release(self, slot: int) -> None:
        if slot == 0:
            return
        with self._cond:
            self._pins[slot] -= 1
            self._cond.notify_all()

    def put(self, key: str, weights: dict, scale: float) -> None:
        """Caches an adapter without pinning it (e.g. the checkpoint a job just produced)."""
        self.release(self.acquire(key, lambda: (weights, scale)))

    # -- the batched LoRA term -------------------------------------------------------------------

    def plan(self, slots: list[int]) -> Optional[tuple[dict, torch.Tensor, torch.Tensor]]:
        """For a batch whose row i uses slot slots[i]: (the stacked blocks of the present slots U,
        kept while no slot changes; U; mask [rows, |U|·r] holding each row's scale on its own
        adapter's block), or None when every row is the base model.
        Built on the host from the slot list, so planning never waits for the device."""
        present = sorted({s for s in slots if s > 0})
        if not present:
            return None
        dev = self.scale.device
        where = {s: k for k, s in enumerate(present)}
        own = torch.zeros((len(slots), len(present)), dtype=torch.float32)
        rows = [i for i, s in enumerate(slots) if s > 0]
        own[rows, [where[slots[i]] for i in rows]] = 1.0
        idx = torch.tensor(present, device=dev)
        mask = own.to(dev) * self.scale[idx][None, :]
        key = (self._version, tuple(present))
        stacks = self._stacks.get(key)
        if stacks is None:
            if len(self._stacks) > 16:
                self._stacks.clear()
            stacks = self._stacks[key] = {}
        return stacks, idx, mask.repeat_interleave(self.rank, dim=1)

    def delta(self, name: str, x: torch.Tensor, plan: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        """x [rows, T, in] → the rows' own LoRA delta [rows, T, out]."""
        stacks, present, mask = plan
        ab = stacks.get(name)
        if ab is None:
            a = self.a[name][present].reshape(-1, x.shape[-1])  # [|U|·r, in]
            ab = stacks[name] = (a, self.b[name][present].reshape(a.shape[0], -1))  # and [|U|·r, out]
        a, b = ab
        xa = torch.matmul(x, a.t()) * mask[:, None, :].to(x.dtype)  # mask [rows, |U|·r] (or every slot's)
        return torch.matmul(xa, b)


def weights_from_peft(tensors: dict[str, torch.Tensor], prefix_strip: str = "base_model.model.") -> dict:
    """peft's saved keys (`…q_proj.lora_A.weight`) → {module name in the base model: (A, B)}."""
    out: dict[str, list] = {}
    for k, v in tensors.items():
        for part, i in ((".lora_A.weight", 0), (".lora_B.weight", 1)):
            if k.endswith(part):
                name = k[: -len(part)]
                if name.startswith(prefix_strip):
                    name = name[len(prefix_strip):]
                out.setdefault(name, [None, None])[i] = v
    return {n: (a, b) for n, (a, b) in out.items() if a is not None and b is not None}
