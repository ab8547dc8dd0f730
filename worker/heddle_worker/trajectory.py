"""From trajectories and SFT examples to training tokens (docs/spec/training.md §9) with the model's
own tokenizer and chat template.

Token ids the client sent win over re-rendering: a logprob entry `token_id:<n>` (vLLM's
`return_tokens_as_token_ids`, which ART requests and this worker answers with) is that id, and a
Choice's `prompt_token_ids` is the exact context its tokens were sampled after, when the history
rendered so far is a prefix of it. Otherwise the chat template renders the context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

TOKEN_ID = re.compile(r"^token_id:(\d+)$")
NAN = float("nan")


class TrainingContentError(Exception):
    """The job's data cannot be trained on; the message is shown to the user."""


@dataclass
class History:
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    old: list[float] = field(default_factory=list)

    @property
    def num_trainable(self) -> int:
        return sum(self.mask)


@dataclass
class Sampled:
    ids: list[int]
    logprobs: list[float]
    prompt_ids: Optional[list[int]]


def _plain(message: Any) -> dict:
    m = message if isinstance(message, dict) else {}
    out = {"role": m.get("role") if isinstance(m.get("role"), str) else "user"}
    content = m.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    out["content"] = content if isinstance(content, str) else ""
    if isinstance(m.get("tool_calls"), list) and m["tool_calls"]:
        out["tool_calls"] = m["tool_calls"]
    if isinstance(m.get("tool_call_id"), str):
        out["tool_call_id"] = m["tool_call_id"]
    if isinstance(m.get("name"), str):
        out["name"] = m["name"]
    return out


class Renderer:
    """The tokenizer's chat template, as token ids."""

    def __init__(self, tokenizer):
        self.tok = tokenizer

    def render(self, messages: list[dict], tools: Any, generation_prompt: bool) -> list[int]:
        if not messages:
            return []
        text = self.tok.apply_chat_template(
            messages,
            tools=tools if isinstance(tools, list) and tools else None,
            add_generation_prompt=generation_prompt,
            tokenize=False,
        )
        return self.encode(text)

    def encode(self, text: str) -> list[int]:
        return list(self.tok(text, add_special_tokens=False)["input_ids"])


def _entries(item: dict) -> Optional[list]:
    lp = item.get("logprobs")
    if not isinstance(lp, dict):
        return None
    for key in ("content", "refusal"):
        if isinstance(lp.get(key), list) and lp[key]:
            return lp[key]
    return None


def _sampled(item: Any, r: Renderer, allow_without_logprobs: bool) -> Optional[Sampled]:
    """The sampled turn of a trainable item (a Choice with logprobs), or None (§5.6)."""
    if not isinstance(item, dict):
        return None
    is_choice = "message" in item
    entries = _entries(item) if is_choice else None
    prompt_ids = item.get("prompt_token_ids") if is_choice else None
    if not (isinstance(prompt_ids, list) and all(isinstance(x, int) for x in prompt_ids)):
        prompt_ids = None
    if entries:
        ids: list[int] = []
        lps: list[float] = []
        sent = item.get("token_ids")
        for k, e in enumerate(entries):
            if not isinstance(e, dict) or not isinstance(e.get("token"), str):
                continue
            lp = e.get("logprob")
            lp = float(lp) if isinstance(lp, (int, float)) and not isinstance(lp, bool) else NAN
            m = TOKEN_ID.match(e["token"])
            if m:
                ids.append(int(m.group(1)))
                lps.append(lp)
            elif isinstance(sent, list) and len(sent) == len(entries) and isinstance(sent[k], int):
                ids.append(sent[k])
                lps.append(lp)
            else:
                # a token given as text: one logprob cannot be split over several ids
                enc = r.encode(e["token"])
                ids.extend(enc)
                lps.extend([lp] if len(enc) == 1 else [NAN] * len(enc))
        return Sampled(ids, lps, prompt_ids)
    message = _plain(item["message"] if is_choice else item)
    if not allow_without_logprobs or message["role"] != "assistant":
        return None
    ids = r.encode(message["content"])
    eos = r.tok.eos_token_id
    if eos is not None:
        ids.append(eos)
    return Sampled(ids, [NAN] * len(ids), None)


def tokenize_history(items: list, tools: Any, r: Renderer, allow: bool, max_tokens: int, where: str) -> Optional[History]:
    turns = [_sampled(item, r, allow) for item in items]
    last = max((i for i, t in enumerate(turns) if t is not None), default=-1)
    if last < 0:
        return None
    messages = [_plain(it["message"] if isinstance(it, dict) and "message" in it else it) for it in items[: last + 1]]
    for i, t in enumerate(turns[: last + 1]):
        if t is not None:
            messages[i]["role"] = "assistant"
    out = History()
    prev = -1
    for i, t in enumerate(turns[: last + 1]):
        if t is None:
            continue
        if t.prompt_ids is not None and t.prompt_ids[: len(out.ids)] == out.ids:
            context = t.prompt_ids[len(out.ids) :]
        else:
            # the template's rendering after the previous sampled turn (the tokens of that turn are the
            # sampled ones, already in `out`; templates that re-render earlier turns differently, e.g.
            # by dropping reasoning, make this an approximation of what the sampler saw)
            full = r.render(messages[:i], tools, True)
            done = r.render(messages[: prev + 1], tools, False) if prev >= 0 else []
            context = full[len(done) :]
        out.ids += context
        out.mask += [0] * len(context)
        out.old += [NAN] * len(context)
        out.ids += t.ids
        out.mask += [1] * len(t.ids)
        out.old += t.logprobs
        prev = i
    if len(out.ids) > max_tokens:
        raise TrainingContentError(f"{where} has {len(out.ids)} tokens, more than the worker's limit of {max_tokens}")
    return out


def _exchange_histories(t: dict) -> list[tuple[list, Any]]:
    ex = t.get("exchanges")
    calls = ex.get("chat_completions") if isinstance(ex, dict) else None
    out = []
    for e in calls if isinstance(calls, list) else []:
        if not isinstance(e, dict):
            continue
        req = e.get("request") if isinstance(e.get("request"), dict) else {}
        resp = e.get("response") if isinstance(e.get("response"), dict) else {}
        choices = resp.get("choices") if isinstance(resp.get("choices"), list) else []
        msgs = req.get("messages") if isinstance(req.get("messages"), list) else []
        out.append((msgs + choices[:1], req.get("tools")))
    return out


def tokenize_trajectory(t: Any, r: Renderer, allow: bool, max_tokens: int, where: str) -> list[History]:
    """The main history and every additional history of a trajectory (§5.2, §9)."""
    t = t if isinstance(t, dict) else {}
    out = []
    main = t.get("messages_and_choices") if isinstance(t.get("messages_and_choices"), list) else []
    h = tokenize_history(main, t.get("tools"), r, allow, max_tokens, where)
    if h:
        out.append(h)
    if not main:
        for k, (items, tools) in enumerate(_exchange_histories(t)):
            h = tokenize_history(items, tools, r, allow, max_tokens, f"{where}, exchange {k}")
            if h:
                out.append(h)
    extra = t.get("additional_histories") if isinstance(t.get("additional_histories"), list) else []
    for k, hist in enumerate(extra):
        hist = hist if isinstance(hist, dict) else {}
        items = hist.get("messages_and_choices") if isinstance(hist.get("messages_and_choices"), list) else []
        h = tokenize_history(items, hist.get("tools"), r, allow, max_tokens, f"{where}, additional history {k}")
        if h:
            out.append(h)
    return out


def tokenize_sft_example(raw: Any, r: Renderer, max_tokens: int, index: int) -> History:
    """Cross-entropy targets of an SFT example: the assistant turns, as the template renders them."""
    ex = raw if isinstance(raw, dict) else {}
    messages = [_plain(m) for m in (ex.get("messages") if isinstance(ex.get("messages"), list) else [])]
    tools = ex.get("tools")
    ids = r.render(messages, tools, False)
    mask = [0] * len(ids)
    for k, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        start = len(r.render(messages[:k], tools, True))
        end = len(r.render(messages[: k + 1], tools, False))
        for p in range(start, min(end, len(ids))):
            mask[p] = 1
    if len(ids) > max_tokens:
        raise TrainingContentError(f"SFT example {index} has {len(ids)} tokens, more than the worker's limit of {max_tokens}")
    return History(ids, mask, [NAN] * len(ids))
