"""`python -m heddle_worker.tiny DIR`: a tiny Llama-architecture model with seeded random weights and a
byte-level BPE tokenizer trained on a built-in corpus, saved in Hugging Face format. Nothing is
downloaded; the worker's CPU test and the benchmark use it (and bench/worker-speed.py builds
larger ones from a config the same way)."""

from __future__ import annotations

import argparse
import json

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CORPUS = [
    "Say a letter. The quick brown fox jumps over the lazy dog.",
    "A training worker leases jobs, trains adapters and serves completions with logprobs.",
    "Heddle keeps traces, evaluations and training jobs in one store.",
    "0123456789 + - * / = ( ) [ ] { } , . ; : ! ? ' \" # $ % & @",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz",
]


def build_tokenizer(vocab_size: int = 512) -> PreTrainedTokenizerFast:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build(out_dir: str, *, seed: int = 0, hidden: int = 64, layers: int = 2, heads: int = 4, kv_heads: int = 2,
          intermediate: int = 128, vocab_size: int = 512, init_range: float = 0.2, tokenizer: PreTrainedTokenizerFast | None = None,
          dtype: torch.dtype = torch.float32) -> dict:
    tok = tokenizer or build_tokenizer(vocab_size)
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=4096,
        eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=None, tie_word_embeddings=False,
        initializer_range=init_range,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).to(dtype)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return {"dir": out_dir, "parameters": sum(p.numel() for p in model.parameters()), "vocab_size": len(tok)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=0)
    # Our choice: 10x the usual 0.02, so that random logits are spread like a trained model's rather
    # than near uniform, and a LoRA on the attention and MLP layers can move them within a few steps.
    p.add_argument("--init-range", type=float, default=0.2)
    a = p.parse_args()
    print(json.dumps(build(a.out_dir, seed=a.seed, init_range=a.init_range)))


if __name__ == "__main__":
    main()
