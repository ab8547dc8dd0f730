"""Chat completions with logprobs for any checkpoint of the served base models, over HTTP.

Heddle routes `/v1/chat/completions` for `model:stepN` here (docs/training-worker-protocol.md,
"Inference"): the body is the client's request plus `heddle_checkpoint` {model_id, step,
checkpoint_id}. A checkpoint this worker does not hold is downloaded from Heddle once and kept in
the engine's adapter cache. Requests carry the worker's inference token as a bearer credential.
"""

from __future__ import annotations

import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

import torch

from .engine import BASE, CheckpointFormatError, Engine
from .scheduler import GenRequest
from .trajectory import Renderer, _plain

MAX_N = 64


def _num(v, default):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else default


class BadRequest(Exception):
    """A request this worker cannot serve as asked (answered 400 with the reason)."""


def _params(engine: Engine, req: dict) -> dict:
    renderer = Renderer(engine.tokenizer)
    messages = [_plain(m) for m in req.get("messages") or []]
    stop = req.get("stop")
    stops = [stop] if isinstance(stop, str) and stop else [x for x in stop if isinstance(x, str) and x] if isinstance(stop, list) else []
    return {
        "prompt": renderer.render(messages, req.get("tools"), True),
        "n": max(1, min(MAX_N, int(_num(req.get("n"), 1)))),
        "temperature": max(0.0, float(_num(req.get("temperature"), 1.0))),
        "top_p": min(1.0, max(0.0, float(_num(req.get("top_p"), 1.0)))),
        "max_tokens": int(_num(req.get("max_completion_tokens"), _num(req.get("max_tokens"), 64))),
        "seed": req.get("seed") if isinstance(req.get("seed"), int) and not isinstance(req.get("seed"), bool) else None,
        "want_lp": req.get("logprobs") is True,
        "top_k": max(0, min(20, int(_num(req.get("top_logprobs"), 0)))),
        "stops": stops,
    }


def sample(engine: Engine, key: Optional[str], req: dict, slot: Optional[int] = None) -> dict:
    """One OpenAI chat completion (n choices) from checkpoint `key` (None: the base model), run by
    the engine's continuous-batching scheduler together with every other request in flight.
    `slot`: the adapter's LoRA-bank slot when the caller already pinned it."""
    p = _params(engine, req)
    if p["max_tokens"] <= 0:
        return _response(engine, req, p, [[] for _ in range(p["n"])], None)
    own = slot is None and key is not None
    if own:
        slot = engine.decoder.bank.acquire(key, lambda: _not_loaded(key))
    try:
        g = GenRequest(prompt=p["prompt"], n=p["n"], max_tokens=p["max_tokens"], temperature=p["temperature"],
                       top_p=p["top_p"], top_logprobs=p["top_k"] if p["want_lp"] else 0, stops=p["stops"],
                       adapter_slot=slot or 0, seed=p["seed"])
        why = engine.scheduler.check(g)
        if why:
            raise BadRequest(why)
        seqs = engine.scheduler.generate(g)
    finally:
        if own:
            engine.decoder.bank.release(slot)
    return _response(engine, req, p, [s.tokens for s in seqs], seqs if p["want_lp"] else None)


def _not_loaded(key: str):
    raise KeyError(f"checkpoint {key} is not loaded (Engine.load_checkpoint)")


def sample_generate(engine: Engine, checkpoint: Optional[bytes], req: dict) -> dict:
    """The same completion through plain `transformers` `generate` with the checkpoint as a peft
    adapter, one request at a time: the baseline of bench/worker-serving.py and the reference of
    tests/test_batching.py."""
    p = _params(engine, req)
    tok = engine.tokenizer
    with engine.lock, torch.no_grad():
        name = BASE
        if checkpoint:
            name = engine.load_checkpoint("generate", checkpoint, trainable=True)
        engine.model.set_adapter(name)
        engine.model.eval()
        try:
            if p["seed"] is not None:
                torch.manual_seed(p["seed"])
            ids = torch.tensor([p["prompt"]] * p["n"], dtype=torch.long, device=engine.device)
            t = p["temperature"]
            out = engine.model.generate(
                input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=t > 0,
                temperature=t if t > 0 else None, top_p=p["top_p"] if t > 0 else None, top_k=0 if t > 0 else None,
                max_new_tokens=p["max_tokens"], output_logits=p["want_lp"], return_dict_in_generate=True,
                pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
            seqs = out.sequences[:, len(p["prompt"]):]
            chosen, top = _logprobs(out.logits, seqs, p["top_k"]) if p["want_lp"] else (None, None)
        finally:
            if name != BASE:
                engine.discard(name)
    rows = []
    for b in range(seqs.shape[0]):
        got = []
        for i in seqs[b].tolist():
            got.append(i)
            if i == tok.eos_token_id:
                break
        rows.append(got)
    lps = None
    if chosen is not None:
        lps = [_Lp([float(x) for x in chosen[b, : len(rows[b])]], top[b][: len(rows[b])] if top else [[]] * len(rows[b]))
               for b in range(len(rows))]
    return _response(engine, req, p, rows, lps)


class _Lp:
    def __init__(self, logprobs, top):
        self.logprobs, self.top = logprobs, top


def _response(engine: Engine, req: dict, p: dict, rows: list[list[int]], lps) -> dict:
    tok = engine.tokenizer
    eos = tok.eos_token_id
    stops = p["stops"]
    choices = []
    completion_tokens = 0
    for b, got in enumerate(rows):
        finish = "stop" if got and got[-1] == eos else "length"
        text = tok.decode(got[:-1] if finish == "stop" else got, skip_special_tokens=True)
        hits = [text.index(x) for x in stops if x in text]
        if hits:
            text, finish = text[: min(hits)], "stop"
        entries = []
        if lps is not None:
            entries = [_entry(tok, i, lp, top) for i, lp, top in zip(got, lps[b].logprobs, lps[b].top)]
        completion_tokens += len(got)
        choice = {"index": b, "message": {"role": "assistant", "content": text}, "finish_reason": finish,
                  "logprobs": {"content": entries, "refusal": None} if p["want_lp"] else None}
        if req.get("return_token_ids") is True:
            choice["token_ids"] = got
            choice["prompt_token_ids"] = p["prompt"]
        choices.append(choice)
    n_prompt = len(p["prompt"])
    return {"choices": choices, "usage": {"prompt_tokens": n_prompt, "completion_tokens": completion_tokens,
                                          "total_tokens": n_prompt + completion_tokens}}


def _logprobs(logits: tuple, seqs: torch.Tensor, top_k: int):
    """Log-probs of the sampled tokens (and the top k) from the raw logits of each step, computed on
    the model's device: only [n, steps] numbers travel to the host, not [n, steps, vocab]."""
    chosen, top = [], []
    for t, step in enumerate(logits):
        logp = torch.log_softmax(step.float(), -1)
        chosen.append(logp.gather(-1, seqs[:, t : t + 1]).squeeze(-1))
        if top_k:
            v, i = torch.topk(logp, top_k, -1)
            top.append((v.cpu(), i.cpu()))
    chosen_t = torch.stack(chosen, 1).cpu() if chosen else None
    top_list = None
    if top_k:
        top_list = [[list(zip(top[t][1][b].tolist(), top[t][0][b].tolist())) for t in range(len(top))]
                    for b in range(seqs.shape[0])]
    return chosen_t, top_list


def _entry(tok, i: int, logprob: float, top: list) -> dict:
    def one(t: int, lp: float) -> dict:
        return {"token": f"token_id:{t}", "logprob": lp, "bytes": list(tok.decode([t]).encode("utf-8"))}

    e = one(i, logprob)
    e["top_logprobs"] = [one(t, lp) for t, lp in top]
    return e


class InferenceServer:
    def __init__(self, host: str, port: int, token: str, engines: dict[str, Engine],
                 fetch: Callable[[str, int], bytes]):
        self.engines = engines
        self.fetch = fetch
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet: one line per request is noise for a trainer
                pass

            def _send(self, status: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/health":
                    return self._send(200, {"ok": True, "base_models": sorted(server.engines)})
                self._send(404, {"detail": "Not found"})

            def do_POST(self):
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"detail": "Not found"})
                if not hmac.compare_digest(self.headers.get("authorization", ""), f"Bearer {token}"):
                    return self._send(401, {"detail": "Bad inference token"})
                try:
                    req = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                except ValueError:
                    return self._send(400, {"detail": "Body is not JSON"})
                status, body = server.handle(req)
                self._send(status, body)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.port = self.httpd.server_address[1]

    def handle(self, req: dict) -> tuple[int, dict]:
        ck = req.get("heddle_checkpoint") if isinstance(req.get("heddle_checkpoint"), dict) else {}
        engine = self.engines.get(ck.get("base_model"))
        if engine is None:
            return 404, {"detail": f"This worker does not serve base model {ck.get('base_model')!r}"}
        key = ck.get("checkpoint_id") if isinstance(ck.get("checkpoint_id"), str) else None
        slot = 0
        try:
            if key is not None:
                # pinned in the LoRA bank for the request's lifetime; fetched from Heddle when absent
                slot = engine.decoder.bank.acquire(
                    key, lambda: engine.bank_weights(self.fetch(str(ck.get("model_id")), int(ck.get("step")))))
            return 200, sample(engine, key, req, slot)
        except (BadRequest, CheckpointFormatError) as e:
            return 400, {"detail": str(e)}
        except Exception as e:  # the client sees the reason; the worker keeps serving
            return 500, {"detail": f"Worker inference failed: {e}"}
        finally:
            engine.decoder.bank.release(slot)

    def start(self) -> None:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
