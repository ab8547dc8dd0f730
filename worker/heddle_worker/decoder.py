"""The serving forward pass: a Llama-family decoder (Llama, Qwen2, Qwen3, Mistral) run from the
Hugging Face model's own modules and weights, with a static KV cache of `slots` sequences and the
batched LoRA term of lora_bank.LoraBank on every projection.

Rows are sequences in cache slots 0..n−1 (the scheduler keeps the running ones in a prefix, so the
cache is read as a view, never gathered). A prefill writes new prompts' keys and values at
positions 0..T−1 of their slots; a decode step writes one token per row at that row's length.
Attention is torch's scaled_dot_product_attention with the query heads of one key/value head
stacked along the query axis (grouped-query attention without repeating the cache).
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F

from .lora_bank import LoraBank

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def _base(module: torch.nn.Module) -> torch.nn.Module:
    """peft wraps a target Linear; serving calls the frozen base Linear and adds the bank's term."""
    return getattr(module, "base_layer", module)


class Decoder:
    def __init__(self, hf_model: torch.nn.Module, slots: int, max_len: int, lora_rank: int, max_adapters: int,
                 adapter_budget_bytes: int, kv_budget_bytes: Optional[int] = None):
        core = hf_model.model
        self.embed = core.embed_tokens
        self.norm = core.norm
        self.rotary = core.rotary_emb
        self.lm_head = _base(hf_model.lm_head)
        cfg = hf_model.config
        self.layers = list(core.layers)
        self.heads = cfg.num_attention_heads
        self.kv_heads = getattr(cfg, "num_key_value_heads", None) or self.heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.heads
        p = next(hf_model.parameters())
        self.device, self.dtype = p.device, p.dtype
        per_token = 2 * len(self.layers) * self.kv_heads * self.head_dim * p.element_size()
        if kv_budget_bytes is not None and slots * max_len * per_token > kv_budget_bytes:
            # fewer sequences at once rather than an out-of-memory at start
            slots = max(1, kv_budget_bytes // (max_len * per_token))
        self.slots = slots
        self.max_len = max_len
        self.modules: dict[str, torch.nn.Linear] = {}
        self.proj: list[dict[str, tuple[str, torch.nn.Module]]] = []
        for i, layer in enumerate(self.layers):
            mine = {}
            for part in PROJECTIONS:
                parent = layer.self_attn if part.endswith(("q_proj", "k_proj", "v_proj", "o_proj")) else layer.mlp
                name = f"model.layers.{i}.{'self_attn' if parent is layer.self_attn else 'mlp'}.{part}"
                base = _base(getattr(parent, part))
                self.modules[name] = base
                mine[part] = (name, base)
            self.proj.append(mine)
        self.bank = LoraBank(self.modules, lora_rank, max_adapters, adapter_budget_bytes, self.device, self.dtype)
        shape = (slots, self.kv_heads, max_len, self.head_dim)
        self.k = [torch.zeros(shape, device=self.device, dtype=self.dtype) for _ in self.layers]
        self.v = [torch.zeros(shape, device=self.device, dtype=self.dtype) for _ in self.layers]
        self.static: Optional["StaticDecode"] = None

    def use_static(self, cuda_graphs: bool) -> None:
        """Decode with fixed shapes (batch and key length rounded up to buckets, every bank slot in
        the LoRA term), captured as CUDA graphs when `cuda_graphs` (CUDA only)."""
        self.static = StaticDecode(self, cuda_graphs and self.device.type == "cuda")

    @property
    def cache_bytes(self) -> int:
        return 2 * len(self.layers) * self.k[0].numel() * self.k[0].element_size()

    def _linear(self, layer: int, part: str, x: torch.Tensor, plan) -> torch.Tensor:
        name, base = self.proj[layer][part]
        y = base(x)
        return y if plan is None else y + self.bank.delta(name, x, plan)

    def _attention(self, i: int, h: torch.Tensor, rows: slice | torch.Tensor, mask: torch.Tensor, write, plan,
                   cos_sin, key_len: int) -> torch.Tensor:
        attn = self.layers[i].self_attn
        b, t, _ = h.shape
        q = self._linear(i, "q_proj", h, plan).view(b, t, self.heads, self.head_dim)
        k = self._linear(i, "k_proj", h, plan).view(b, t, self.kv_heads, self.head_dim)
        v = self._linear(i, "v_proj", h, plan).view(b, t, self.kv_heads, self.head_dim)
        if getattr(attn, "q_norm", None) is not None:  # Qwen3
            q, k = attn.q_norm(q), attn.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        cos, sin = cos_sin
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        write(self.k[i], k)
        write(self.v[i], v)
        keys = self.k[i][rows, :, :key_len]
        values = self.v[i][rows, :, :key_len]
        group = self.heads // self.kv_heads
        # [b, H, t, D] → [b, KV, group·t, D]: query head h uses key/value head h // group
        qg = q.reshape(b, self.kv_heads, group * t, self.head_dim)
        out = F.scaled_dot_product_attention(qg, keys, values, attn_mask=mask)
        out = out.reshape(b, self.heads, t, self.head_dim).transpose(1, 2).reshape(b, t, -1)
        return self._linear(i, "o_proj", out, plan)

    def _mlp(self, i: int, h: torch.Tensor, plan) -> torch.Tensor:
        act = self.layers[i].mlp.act_fn
        return self._linear(i, "down_proj", act(self._linear(i, "gate_proj", h, plan)) * self._linear(i, "up_proj", h, plan), plan)

    def _run(self, ids: torch.Tensor, pos: torch.Tensor, rows, write, adapter_slots, key_len: int,
             last: Optional[torch.Tensor]) -> torch.Tensor:
        """`adapter_slots`: a list of slots (planned here) or a ready plan (the static decode's)."""
        plan = self.bank.plan(adapter_slots) if isinstance(adapter_slots, list) else adapter_slots
        h = self.embed(ids)
        cos, sin = self.rotary(h, pos)
        cos_sin = (cos[:, None].to(h.dtype), sin[:, None].to(h.dtype))
        # query row g·t + j (head group g, position j) sees keys at positions ≤ pos[j]
        qpos = pos.repeat(1, self.heads // self.kv_heads)
        mask = torch.arange(key_len, device=h.device)[None, None, None, :] <= qpos[:, None, :, None]
        for i, layer in enumerate(self.layers):
            h = h + self._attention(i, layer.input_layernorm(h), rows, mask, write, plan, cos_sin, key_len)
            h = h + self._mlp(i, layer.post_attention_layernorm(h), plan)
        if last is not None:
            h = h[torch.arange(h.shape[0], device=h.device), last][:, None]
        return self.lm_head(self.norm(h[:, -1])).float()

    @torch.no_grad()
    def prefill(self, start: int, prompts: list[list[int]], adapter_slots: list[int]) -> torch.Tensor:
        """Writes the prompts into slots start.. (right-padded to the longest) and returns the logits
        of each prompt's last token [P, vocab] (float32)."""
        p = len(prompts)
        t = max(len(x) for x in prompts)
        ids = torch.zeros((p, t), dtype=torch.long)
        for r, x in enumerate(prompts):
            ids[r, : len(x)] = torch.tensor(x)
        ids = ids.to(self.device)
        pos = torch.arange(t, device=self.device)[None].expand(p, t)
        rows = slice(start, start + p)

        def write(cache, new):
            cache[rows, :, :t] = new

        last = torch.tensor([len(x) - 1 for x in prompts], device=self.device)
        return self._run(ids, pos, rows, write, adapter_slots, t, last)

    @torch.no_grad()
    def decode(self, tokens: torch.Tensor, lengths: torch.Tensor, adapter_slots: list[int], key_len: int) -> torch.Tensor:
        """One token for each of the n running rows (slots 0..n−1): `tokens` [n] at positions
        `lengths` [n] (their current cache lengths; key_len = max + 1). Returns logits [n, vocab]."""
        n = tokens.shape[0]
        idx = torch.arange(n, device=self.device)

        def write(cache, new):
            cache[idx, :, lengths] = new[:, :, 0]

        return self._run(tokens[:, None], lengths[:, None], slice(0, n), write, adapter_slots, key_len, None)

    def step(self, tokens: list[int], lengths: list[int], adapter_slots: list[int]) -> torch.Tensor:
        """One decode step for rows 0..n−1 (host lists); the static path when enabled."""
        key_len = max(lengths) + 1
        if self.static is not None:
            return self.static.run(tokens, lengths, adapter_slots, key_len)
        dev = self.device
        return self.decode(torch.tensor(tokens, device=dev), torch.tensor(lengths, device=dev), adapter_slots, key_len)

    def copy_slot(self, src: int, dst: int, length: int) -> None:
        for k, v in zip(self.k, self.v):
            k[dst, :, :length] = k[src, :, :length]
            v[dst, :, :length] = v[src, :, :length]


def _bucket(x: int, floor: int, cap: int) -> int:
    b = floor
    while b < x:
        b *= 2
    return min(b, cap)


class StaticDecode:
    """A decode step whose shapes depend only on (batch bucket, key-length bucket): inputs are
    copied into fixed buffers, the LoRA term spans every bank slot (the mask zeroes the others;
    slot 0 is all zeros), and attention reads keys up to the bucket, masked by each row's length.
    Rows past the batch are padding: they write position 0 of free slots (slots ≥ n are free, and
    a prefill overwrites them). On CUDA each bucket pair is captured once as a CUDA graph and
    replayed: one launch per step instead of a few dozen per layer."""

    def __init__(self, d: Decoder, graphs: bool):
        self.d = d
        self.graphs = graphs
        bank = d.bank
        slots = bank.scale.shape[0]
        # every slot's blocks as views of the bank's own storage: bank writes are seen by replays
        self.stacks = {n: (bank.a[n].view(slots * bank.rank, -1), bank.b[n].view(slots * bank.rank, -1)) for n in bank.a}
        self._bufs: dict[tuple[int, int], dict] = {}
        self.pool = None
        self.failed: Optional[str] = None

    def _buffers(self, b: int, k: int) -> dict:
        buf = self._bufs.get((b, k))
        if buf is None:
            d, dev = self.d, self.d.device
            slots = d.bank.scale.shape[0]
            buf = {"tokens": torch.zeros(b, dtype=torch.long, device=dev),
                   "lengths": torch.zeros(b, dtype=torch.long, device=dev),
                   "own": torch.zeros((b, slots * d.bank.rank), dtype=torch.float32, device=dev),
                   "idx": torch.arange(b, device=dev), "graph": None, "out": None}
            self._bufs[(b, k)] = buf
        return buf

    def _forward(self, buf: dict, b: int, k: int) -> torch.Tensor:
        lengths, idx = buf["lengths"], buf["idx"]

        def write(cache, new):
            cache[idx, :, lengths] = new[:, :, 0]

        plan = (self.stacks, None, buf["own"])
        return self.d._run(buf["tokens"][:, None], lengths[:, None], slice(0, b), write, plan, k, None)

    @torch.no_grad()
    def run(self, tokens: list[int], lengths: list[int], adapter_slots: list[int], key_len: int) -> torch.Tensor:
        d = self.d
        n = len(tokens)
        b = _bucket(n, 1, d.slots)
        k = _bucket(key_len, 64, d.max_len)
        buf = self._buffers(b, k)
        pad = b - n
        host_t = torch.tensor(tokens + [0] * pad)
        host_l = torch.tensor(lengths + [0] * pad)
        own = torch.zeros((b, d.bank.scale.shape[0]), dtype=torch.float32)
        for i, s in enumerate(adapter_slots):
            if s > 0:
                own[i, s] = d.bank.host_scale[s]
        buf["tokens"].copy_(host_t, non_blocking=True)
        buf["lengths"].copy_(host_l, non_blocking=True)
        buf["own"].copy_(own.repeat_interleave(d.bank.rank, dim=1), non_blocking=True)
        if not self.graphs:
            return self._forward(buf, b, k)[:n]
        if buf["graph"] is None:
            try:
                self._capture(buf, b, k)
            except Exception as e:  # keep serving with the same fixed-shape step, without graphs
                self.graphs, self.failed = False, f"{type(e).__name__}: {e}"
                print(f"heddle-worker: CUDA graph capture failed, decoding without graphs: {self.failed}", flush=True)
                return self._forward(buf, b, k)[:n]
        buf["graph"].replay()
        return buf["out"][:n].clone()

    def _capture(self, buf: dict, b: int, k: int) -> None:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):  # warm-up outside the graph (allocator, lazy kernels)
                self._forward(buf, b, k)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        if self.pool is None:
            self.pool = torch.cuda.graph_pool_handle()
        # thread_local: an HTTP thread loading an adapter meanwhile does not break the capture
        with torch.cuda.graph(graph, pool=self.pool, capture_error_mode="thread_local"):
            buf["out"] = self._forward(buf, b, k)
        buf["graph"] = graph
