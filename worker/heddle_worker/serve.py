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

from .engine import Engine
from .trajectory import Renderer, _plain

MAX_N = 64


def _num(v, default):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def sample(engine: Engine, key: Optional[str], req: dict) -> dict:
    """One OpenAI chat completion (n choices) from adapter `key` (None: the base model)."""
    renderer = Renderer(engine.tokenizer)
    messages = [_plain(m) for m in req.get("messages") or []]
    prompt = renderer.render(messages, req.get("tools"), True)
    n = max(1, min(MAX_N, int(_num(req.get("n"), 1))))
    temperature = max(0.0, float(_num(req.get("temperature"), 1.0)))
    top_p = min(1.0, max(0.0, float(_num(req.get("top_p"), 1.0))))
    max_tokens = int(_num(req.get("max_completion_tokens"), _num(req.get("max_tokens"), 64)))
    seed = req.get("seed")
    want_lp = req.get("logprobs") is True
    top_k = max(0, min(20, int(_num(req.get("top_logprobs"), 0))))
    stop = req.get("stop")
    stops = [stop] if isinstance(stop, str) else [s for s in stop if isinstance(s, str) and s] if isinstance(stop, list) else []
    tok = engine.tokenizer
    eos = tok.eos_token_id
    with engine.lock, torch.no_grad():
        engine.activate(key)
        if isinstance(seed, int):
            torch.manual_seed(seed)
        ids = torch.tensor([prompt] * n, dtype=torch.long, device=engine.device)
        if max_tokens <= 0:
            seqs, chosen, top = torch.zeros((n, 0), dtype=torch.long), None, None
        else:
            out = engine.model.generate(
                input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None, top_p=top_p if temperature > 0 else None,
                top_k=0 if temperature > 0 else None, max_new_tokens=max_tokens, output_logits=want_lp,
                return_dict_in_generate=True, pad_token_id=tok.pad_token_id, eos_token_id=eos)
            seqs = out.sequences[:, len(prompt):]
            chosen, top = _logprobs(out.logits, seqs, top_k) if want_lp else (None, None)
            seqs = seqs.cpu()
    choices = []
    completion_tokens = 0
    for b in range(n):
        got: list[int] = []
        entries = []
        finish = "length"
        text = ""
        for t in range(seqs.shape[1]):
            i = int(seqs[b, t])
            got.append(i)
            if chosen is not None:
                entries.append(_entry(tok, i, float(chosen[b, t]), top[b][t] if top is not None else []))
            if i == eos:
                finish = "stop"
                break
            text = tok.decode(got, skip_special_tokens=True)
            if any(s in text for s in stops):
                cut = min(text.index(s) for s in stops if s in text)
                text = text[:cut]
                finish = "stop"
                break
        else:
            text = tok.decode(got, skip_special_tokens=True)
        if finish == "stop" and got and got[-1] == eos:
            text = tok.decode(got[:-1], skip_special_tokens=True)
        completion_tokens += len(got)
        choice = {"index": b, "message": {"role": "assistant", "content": text}, "finish_reason": finish,
                  "logprobs": {"content": entries, "refusal": None} if want_lp else None}
        if req.get("return_token_ids") is True:
            choice["token_ids"] = got
            choice["prompt_token_ids"] = prompt
        choices.append(choice)
    return {"choices": choices, "usage": {"prompt_tokens": len(prompt), "completion_tokens": completion_tokens,
                                          "total_tokens": len(prompt) + completion_tokens}}


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
        try:
            if key is not None and not engine.has(key):
                engine.load_checkpoint(key, self.fetch(str(ck.get("model_id")), int(ck.get("step"))))
            return 200, sample(engine, key, req)
        except Exception as e:  # the client sees the reason; the worker keeps serving
            return 500, {"detail": f"Worker inference failed: {e}"}

    def start(self) -> None:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
