"""Continuous batching: one thread per engine runs every pending completion on the Decoder.

Each iteration admits waiting requests while cache slots are free (their prompts prefilled in one
padded pass, one row per request: the n choices of a request then copy that row's cache, so the
prompt is computed once), then decodes one token for every running sequence in one pass. A
sequence that finishes (EOS, a stop string, max_tokens) leaves at once and the last running
sequence moves into its slot, so new requests join while others are still generating.

Sampling per row: temperature 0 is greedy (argmax), otherwise softmax(logits / T) within top_p.
Log-probs (and top log-probs) are the raw model's, log_softmax(logits), as plain `generate` with
output_logits gave them. A request's `seed` seeds its own generator.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Optional

import torch

from .decoder import Decoder


class DeviceTurns:
    """Serving and training take turns on the device. A training step (forward, backward,
    optimizer) runs alone; after it, when requests are waiting, serving keeps the device for as
    long as that step took (`share` times it), then the next step goes. Without training, serving
    never waits; without requests, training never waits."""

    def __init__(self, share: float = 1.0):
        self.share = share
        self._c = threading.Condition()
        self._training = False
        self._serving = False
        self._train_waiting = 0
        self._slice_end = 0.0
        self._serving_busy = False

    def set_serving_busy(self, busy: bool) -> None:
        with self._c:
            self._serving_busy = busy
            self._c.notify_all()

    @contextmanager
    def training(self):
        with self._c:
            self._train_waiting += 1
            while self._serving or self._training or (self._serving_busy and time.monotonic() < self._slice_end):
                self._c.wait(max(0.001, min(0.05, self._slice_end - time.monotonic())))
            self._train_waiting -= 1
            self._training = True
        t0 = time.monotonic()
        try:
            yield
        finally:
            with self._c:
                self._training = False
                now = time.monotonic()
                self._slice_end = now + (now - t0) * self.share
                self._c.notify_all()

    @contextmanager
    def serving(self):
        with self._c:
            while self._training or (self._train_waiting and time.monotonic() >= self._slice_end):
                self._c.wait(0.05)
            self._serving = True
        try:
            yield
        finally:
            with self._c:
                self._serving = False
                self._c.notify_all()


@dataclass(eq=False)
class GenRequest:
    prompt: list[int]
    n: int
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    top_logprobs: int = 0
    stops: list[str] = field(default_factory=list)
    adapter_slot: int = 0
    seed: Optional[int] = None
    seqs: list = field(default_factory=list)
    error: Optional[BaseException] = None
    done: threading.Event = field(default_factory=threading.Event)
    generator: Optional[torch.Generator] = None


@dataclass(eq=False)
class Seq:
    req: GenRequest
    index: int
    length: int  # tokens in the cache
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    top: list[list[tuple[int, float]]] = field(default_factory=list)
    finish: Optional[str] = None


class Scheduler:
    def __init__(self, decoder: Decoder, eos: Optional[int], decode_text, turns: DeviceTurns,
                 prefill_tokens: int = 8192):
        self.decoder = decoder
        self.eos = eos
        self.decode_text = decode_text
        self.turns = turns
        self.prefill_tokens = prefill_tokens
        self.waiting: deque[GenRequest] = deque()
        self.running: list[Seq] = []  # running[i] lives in cache slot i
        self._c = threading.Condition()
        self.stats = {"prefill_passes": 0, "prefill_tokens": 0, "decode_steps": 0, "max_batch": 0, "generated": 0}
        threading.Thread(target=self._loop, daemon=True, name="heddle-scheduler").start()

    def check(self, req: GenRequest) -> Optional[str]:
        """Why the request can never run here (None: it can)."""
        if not req.prompt:
            return "The prompt renders to no tokens"
        if req.n > self.decoder.slots:
            return f"n={req.n} exceeds the worker's {self.decoder.slots} sequence slots (--serve-slots)"
        if len(req.prompt) + req.max_tokens > self.decoder.max_len:
            return (f"The prompt ({len(req.prompt)} tokens) plus max_tokens ({req.max_tokens}) exceeds the worker's "
                    f"context of {self.decoder.max_len} tokens (--serve-max-len)")
        return None

    def generate(self, req: GenRequest) -> list[Seq]:
        """Runs the request with the others in flight; returns its n sequences in choice order."""
        if req.seed is not None:
            req.generator = torch.Generator(device=self.decoder.device).manual_seed(req.seed % (1 << 63))
        with self._c:
            self.waiting.append(req)
            self._c.notify_all()
        req.done.wait()
        if req.error is not None:
            raise req.error
        return sorted(req.seqs, key=lambda s: s.index)

    # -- the loop -------------------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            with self._c:
                while not self.waiting and not self.running:
                    self.turns.set_serving_busy(False)
                    self._c.wait()
            self.turns.set_serving_busy(True)
            with self.turns.serving():
                try:
                    self._admit()
                    if self.running:
                        self._decode()
                except BaseException as e:  # the requests in flight fail; the loop keeps serving
                    self._fail_all(e)

    def _fail_all(self, e: BaseException) -> None:
        reqs = {s.req for s in self.running}
        self.running = []
        for r in reqs:
            r.error = e
            r.done.set()

    def _admit(self) -> None:
        batch: list[GenRequest] = []
        free = self.decoder.slots - len(self.running)
        width = 0
        with self._c:
            while self.waiting:
                r = self.waiting[0]
                w = max(width, len(r.prompt))
                if r.n > free or (batch and w * (len(batch) + 1) > self.prefill_tokens):
                    break
                self.waiting.popleft()
                batch.append(r)
                free -= r.n
                width = w
        if not batch:
            return
        start = len(self.running)
        try:
            logits = self.decoder.prefill(start, [r.prompt for r in batch], [r.adapter_slot for r in batch])
        except BaseException as e:
            for r in batch:
                r.error = e
                r.done.set()
            return
        self.stats["prefill_passes"] += 1
        self.stats["prefill_tokens"] += sum(len(r.prompt) for r in batch)
        firsts = [Seq(r, 0, len(r.prompt)) for r in batch]
        self.running.extend(firsts)
        rows = list(range(len(batch)))
        for j, r in enumerate(batch):
            for c in range(1, r.n):
                self.decoder.copy_slot(start + j, len(self.running), len(r.prompt))
                self.running.append(Seq(r, c, len(r.prompt)))
                rows.append(j)
        new = self.running[start:]
        for r, s in zip(batch, firsts):
            r.seqs = [s] + [x for x in new if x.req is r and x is not s]
        self._take(new, logits[torch.tensor(rows, device=logits.device)])

    def _decode(self) -> None:
        logits = self.decoder.step([s.tokens[-1] for s in self.running], [s.length for s in self.running],
                                   [s.req.adapter_slot for s in self.running])
        for s in self.running:
            s.length += 1
        self.stats["decode_steps"] += 1
        self.stats["max_batch"] = max(self.stats["max_batch"], len(self.running))
        self._take(self.running, logits)

    # -- sampling and finishing -----------------------------------------------------------------

    def _take(self, seqs: list[Seq], logits: torch.Tensor) -> None:
        """Samples one token per sequence from its logits row, records it, and retires finished ones."""
        chosen, lps, tops = _sample(logits, seqs)
        for s, t, lp, top in zip(seqs, chosen, lps, tops):
            s.tokens.append(t)
            s.logprobs.append(lp)
            s.top.append(top)
            self.stats["generated"] += 1
            r = s.req
            if t == self.eos:
                s.finish = "stop"
            elif r.stops and _hit_stop(self.decode_text, s.tokens, r.stops):
                s.finish = "stop"
            elif len(s.tokens) >= r.max_tokens:
                s.finish = "length"
        self._retire()

    def _retire(self) -> None:
        for i in range(len(self.running) - 1, -1, -1):
            s = self.running[i]
            if s.finish is None:
                continue
            last = len(self.running) - 1
            if i != last:
                moved = self.running[last]
                self.decoder.copy_slot(last, i, moved.length)
                self.running[i] = moved
            self.running.pop()
            if all(x.finish is not None for x in s.req.seqs):
                s.req.done.set()


def _hit_stop(decode_text, tokens: list[int], stops: list[str]) -> bool:
    # Only the tail can newly contain a stop string; a window of tokens covering it is enough.
    width = max(8, 4 * max(len(x) for x in stops))
    text = decode_text(tokens[-width:])
    return any(x in text for x in stops)


def _sample(logits: torch.Tensor, seqs: list[Seq]) -> tuple[list[int], list[float], list[list[tuple[int, float]]]]:
    logp = torch.log_softmax(logits, -1)
    temps = [s.req.temperature for s in seqs]
    tokens = torch.argmax(logits, -1)
    hot = [i for i, t in enumerate(temps) if t > 0]
    if hot:
        dev = logits.device
        idx = torch.tensor(hot, device=dev)
        t = torch.tensor([temps[i] for i in hot], device=dev, dtype=logits.dtype)[:, None]
        probs = torch.softmax(logits[idx] / t, -1)
        top_p = torch.tensor([seqs[i].req.top_p for i in hot], device=dev, dtype=probs.dtype)
        if bool((top_p < 1).any()):
            probs = _top_p(probs, top_p)
        picked = torch.empty(len(hot), dtype=torch.long, device=dev)
        groups: dict[Optional[GenRequest], list[int]] = {}
        for k, i in enumerate(hot):
            r = seqs[i].req
            groups.setdefault(r if r.generator is not None else None, []).append(k)
        for r, ks in groups.items():
            kk = torch.tensor(ks, device=dev)
            picked[kk] = torch.multinomial(probs[kk], 1, generator=r.generator if r else None).squeeze(-1)
        tokens[idx] = picked
    chosen = logp.gather(-1, tokens[:, None]).squeeze(-1)
    k = max(s.req.top_logprobs for s in seqs)
    top_v = top_i = None
    if k:
        top_v, top_i = torch.topk(logp, k, -1)
        top_v, top_i = top_v.cpu().tolist(), top_i.cpu().tolist()
    out_t, out_lp = tokens.cpu().tolist(), chosen.cpu().tolist()
    tops = []
    for b, s in enumerate(seqs):
        kk = s.req.top_logprobs
        tops.append(list(zip(top_i[b][:kk], top_v[b][:kk])) if kk else [])
    return out_t, out_lp, tops


def _top_p(probs: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
    """Keeps each row's smallest set of most likely tokens whose mass reaches top_p."""
    sorted_p, order = torch.sort(probs, -1, descending=True)
    before = torch.cumsum(sorted_p, -1) - sorted_p
    keep = before < top_p[:, None]
    keep[:, 0] = True  # the most likely token always stays (top_p = 0 is greedy, never an empty set)
    sorted_p = torch.where(keep, sorted_p, torch.zeros_like(sorted_p))
    out = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return out / out.sum(-1, keepdim=True)
