#!/usr/bin/env python3
"""Writes tests/fixtures/hf_models/: tiny random models of the llama, mistral, qwen2 and gpt_neox
families built with Hugging Face's own classes (eager attention), each with a tokenizer.json from
tests/fixtures/hf_tokenizers/, and what those classes compute for a few texts: the token ids, the
logits, every layer's attention, and the logits with one head switched off by zeroing its slice of
the output projection (the reference for the workbench's head gates).

Development time only (tests and CI read the committed files):
    python3 -m venv /tmp/hfvenv && /tmp/hfvenv/bin/pip install torch transformers tokenizers safetensors
    /tmp/hfvenv/bin/python scripts/make_hf_decoder_fixtures.py
The committed files were made with transformers 5.24.0, torch 2.15.0 and tokenizers 0.23.3; a rerun
with those versions writes the same tensors (fixed seeds, one thread).

Each folder holds config.json and model.safetensors as save_pretrained writes them, tokenizer.json,
and expected.safetensors: ids_<t> [n] (I64), logits_<t> [n, V] and attention_<t> [L, H, n, n] for
each text t, and gated_logits_plain [n, V] for the first, with the texts and the gated head (0-based layer, head) in its
metadata. Weights are redrawn at a larger scale than Hugging Face's 0.02 initialisation, so that
attention is far from uniform and a wrong rotation or mask shows.
"""
import json
import os
import shutil

import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer
from transformers import (GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig, LlamaForCausalLM, MistralConfig,
                          MistralForCausalLM, Qwen2Config, Qwen2ForCausalLM)

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZERS = os.path.join(HERE, "..", "tests", "fixtures", "hf_tokenizers")
OUT = os.path.join(HERE, "..", "tests", "fixtures", "hf_models")

# Texts with accents (composed and decomposed), CJK, emoji, runs of spaces and a special token of
# each tokenizer (written out, so the tokenizer matches it as the library does).
TEXTS = {
    "plain": "The naïve café's cat sat   on the mat, 日本語 🍕!",
    "special": "{special}line one\n\tcafe\u0301 and more text to pass the window",
}

# name: (model class, config class, tokenizer kind, special token, config arguments)
VARIANTS = {
    # grouped-query (4 query heads over 2 key/value heads), Llama 3.1's rope scaling with a short
    # original context so every branch of it is taken, an untied output
    "llama": (LlamaForCausalLM, LlamaConfig, "llama3", "<|begin_of_text|>", dict(
        hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48,
        rope_parameters={"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
        tie_word_embeddings=False)),
    # Llama 2 style: SentencePiece BPE, one key/value head per query head, biases everywhere, a head
    # wider than hidden_size / heads (head_dim), linear rope scaling, tied embeddings
    "llama_bias": (LlamaForCausalLM, LlamaConfig, "llama2", "<s>", dict(
        hidden_size=32, num_attention_heads=4, num_key_value_heads=4, head_dim=12, num_hidden_layers=2,
        intermediate_size=40, attention_bias=True, mlp_bias=True,
        rope_parameters={"rope_type": "linear", "rope_theta": 500.0, "factor": 2.0}, tie_word_embeddings=True)),
    # a sliding window shorter than the texts, one key/value head for all query heads
    "mistral": (MistralForCausalLM, MistralConfig, "llama2", "<s>", dict(
        hidden_size=32, num_attention_heads=4, num_key_value_heads=1, head_dim=8, num_hidden_layers=2,
        intermediate_size=48, sliding_window=5, tie_word_embeddings=False)),
    # q/k/v biases, a large rope base, tied embeddings
    "qwen2": (Qwen2ForCausalLM, Qwen2Config, "qwen2", "<|im_start|>", dict(
        hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0}, tie_word_embeddings=True)),
    # Pythia: a quarter of each head rotated, parallel residual, fused per-head q|k|v
    "gpt_neox": (GPTNeoXForCausalLM, GPTNeoXConfig, "neox", "<|endoftext|>", dict(
        hidden_size=64, num_attention_heads=4, num_hidden_layers=2, intermediate_size=96,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        use_parallel_residual=True)),
    # GPT-NeoX with the sequential residual and half of each head rotated
    "gpt_neox_sequential": (GPTNeoXForCausalLM, GPTNeoXConfig, "neox", "<|endoftext|>", dict(
        hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=48,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
        use_parallel_residual=False)),
}

GATED = (1, 2)  # layer, head


def redraw(model, generator):
    """Weights at a scale where attention is peaked: N(0, 1.5/√fan_in) matrices, norms 1 + N(0, 0.2)."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                parameter.copy_(1 + 0.2 * torch.randn(parameter.shape, generator=generator))
            elif name.endswith("bias"):
                parameter.copy_(0.2 * torch.randn(parameter.shape, generator=generator))
            elif "embed" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator))
            else:
                parameter.copy_(1.5 / parameter.shape[-1] ** 0.5 * torch.randn(parameter.shape, generator=generator))


def output_projection(model, layer):
    block = (model.gpt_neox.layers if hasattr(model, "gpt_neox") else model.model.layers)[layer]
    return block.attention.dense if hasattr(block, "attention") else block.self_attn.o_proj


def main():
    torch.set_num_threads(1)  # the same sums in the same order: a rerun writes the same tensors
    os.makedirs(OUT, exist_ok=True)
    for index, (name, (model_class, config_class, kind, special, arguments)) in enumerate(VARIANTS.items()):
        tokenizer_file = os.path.join(TOKENIZERS, kind + ".tokenizer.json")
        tokenizer = Tokenizer.from_file(tokenizer_file)
        config = config_class(vocab_size=tokenizer.get_vocab_size(with_added_tokens=True), max_position_embeddings=128,
                              **arguments)
        generator = torch.Generator().manual_seed(1234 + index)
        model = model_class._from_config(config, attn_implementation="eager").eval()
        redraw(model, generator)

        folder = os.path.join(OUT, name)
        shutil.rmtree(folder, ignore_errors=True)
        model.save_pretrained(folder, safe_serialization=True)
        shutil.copy(tokenizer_file, os.path.join(folder, "tokenizer.json"))
        for extra in ("generation_config.json",):
            if os.path.exists(os.path.join(folder, extra)):
                os.remove(os.path.join(folder, extra))

        expected, texts = {}, {}
        head_dim = config.head_dim if hasattr(config, "head_dim") and config.head_dim else \
            config.hidden_size // config.num_attention_heads
        for key, template in TEXTS.items():
            text = template.format(special=special)
            texts[key] = text
            ids = torch.tensor([tokenizer.encode(text).ids])
            with torch.no_grad():
                out = model(input_ids=ids, output_attentions=True)
                projection = output_projection(model, GATED[0])
                saved = projection.weight.clone()
                projection.weight[:, GATED[1] * head_dim:(GATED[1] + 1) * head_dim] = 0
                gated = model(input_ids=ids).logits
                projection.weight.copy_(saved)
            expected["ids_" + key] = ids[0].contiguous()
            expected["logits_" + key] = out.logits[0].float().contiguous()
            expected["attention_" + key] = torch.stack([a[0] for a in out.attentions]).float().contiguous()
            if key == "plain":  # one text is enough for the gate, and keeps the fixtures small
                expected["gated_logits_" + key] = gated[0].float().contiguous()
        save_file(expected, os.path.join(folder, "expected.safetensors"),
                  metadata={"texts": json.dumps(texts, ensure_ascii=False), "gated_layer": str(GATED[0]),
                            "gated_head": str(GATED[1])})
        print(name, {k: len(v) for k, v in expected.items() if k.startswith("ids_")})


if __name__ == "__main__":
    main()
