#!/usr/bin/env python3
"""bench/write_gguf_layout.py — a 1.1B llama layout (16 layers, d 2,048, feed-forward 8,192, 32 heads over 8
key/value heads, vocabulary 32,000) as a Q4_K_M GGUF of random blocks (Q4_K matrices, Q6_K for v, down and
the output), written with the gguf package as llama.cpp lays a llama out (q/k rows permuted), and the same
weights dequantised (by the package) to BF16 as a Hugging Face llama folder. build/bench/bench_gguf opens and
runs both.

Development time only (not a test, not CI):
    /tmp/hfvenv/bin/pip install gguf numpy torch safetensors
    /tmp/hfvenv/bin/python bench/write_gguf_layout.py [OUT]      (default /tmp/gguf_bench)
    AW_BENCH_GGUF=/tmp/gguf_bench build/bench/bench_gguf
"""
import json, os, sys
import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q
import torch
from safetensors.torch import save_file

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/gguf_bench"
os.makedirs(OUT, exist_ok=True)
L, D, F, H, KV, V = 16, 2048, 8192, 32, 8, 32000
HD = D // H
rng = np.random.default_rng(1)

def k_blocks(qtype, rows, cols):
    be, bb = gguf.GGML_QUANT_SIZES[qtype]
    blocks = rng.integers(0, 256, size=(rows * cols // be, bb), dtype=np.uint8)
    fields = {Q.Q4_K: [0, 2], Q.Q6_K: [bb - 2]}[qtype]
    for at in fields:
        blocks[:, at:at + 2] = rng.uniform(0.0001, 0.0004, size=len(blocks)).astype(np.float16).view(np.uint8).reshape(-1, 2)
    return blocks.reshape(rows, cols // be * bb)

tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
tokens += [f"\u2581w{i}" for i in range(V - len(tokens))]
types = [2, 3, 3] + [6] * 256 + [1] * (V - 259)
scores = [0.0] * 259 + [-float(i) for i in range(V - 259)]

w = gguf.GGUFWriter(f"{OUT}/llama1b_q4k.gguf", "llama")
w.add_name("llama1b_q4k"); w.add_block_count(L); w.add_context_length(4096); w.add_embedding_length(D)
w.add_feed_forward_length(F); w.add_head_count(H); w.add_head_count_kv(KV); w.add_rope_freq_base(500000.0)
w.add_layer_norm_rms_eps(1e-5); w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M); w.add_vocab_size(V)
w.add_rope_dimension_count(HD)
w.add_tokenizer_model("llama"); w.add_tokenizer_pre("default"); w.add_token_list(tokens); w.add_token_scores(scores)
w.add_token_types(types); w.add_bos_token_id(1); w.add_eos_token_id(2); w.add_unk_token_id(0)
shapes = {"token_embd.weight": (V, D, Q.Q4_K), "output.weight": (V, D, Q.Q6_K)}
for l in range(L):
    shapes.update({f"blk.{l}.attn_q.weight": (D, D, Q.Q4_K), f"blk.{l}.attn_k.weight": (KV * HD, D, Q.Q4_K),
                   f"blk.{l}.attn_v.weight": (KV * HD, D, Q.Q6_K), f"blk.{l}.attn_output.weight": (D, D, Q.Q4_K),
                   f"blk.{l}.ffn_gate.weight": (F, D, Q.Q4_K), f"blk.{l}.ffn_up.weight": (F, D, Q.Q4_K),
                   f"blk.{l}.ffn_down.weight": (D, F, Q.Q6_K)})
tensors = {}
for name, (rows, cols, qtype) in shapes.items():
    tensors[name] = (k_blocks(qtype, rows, cols), qtype, (rows, cols))
    w.add_tensor(name, tensors[name][0], raw_dtype=qtype)
norms = {"output_norm.weight": np.ones(D, np.float32)}
for l in range(L):
    norms[f"blk.{l}.attn_norm.weight"] = (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)
    norms[f"blk.{l}.ffn_norm.weight"] = (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)
for name, value in norms.items():
    w.add_tensor(name, value)
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()

# The same weights in BF16 as a llama folder (q/k un-permuted, HF names).
def unpermute(x, n):
    return x.reshape(n, x.shape[0] // n // 2, 2, *x.shape[1:]).swapaxes(1, 2).reshape(x.shape)
hf = {}
names = {"token_embd.weight": "model.embed_tokens.weight", "output.weight": "lm_head.weight", "output_norm.weight": "model.norm.weight"}
layer = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
         "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm",
         "ffn_norm": "post_attention_layernorm"}
def hf_name(name):
    if name in names: return names[name]
    _, l, kind, part = name.split(".")
    return f"model.layers.{l}.{layer[kind]}.{part}"
for name, (blocks, qtype, shape) in tensors.items():
    x = gguf.quants.dequantize(blocks, qtype).reshape(shape)
    if ".attn_q." in name: x = unpermute(x, H)
    if ".attn_k." in name: x = unpermute(x, KV)
    hf[hf_name(name)] = torch.from_numpy(np.ascontiguousarray(x)).to(torch.bfloat16)
for name, value in norms.items():
    hf[hf_name(name)] = torch.from_numpy(value).to(torch.bfloat16)
folder = f"{OUT}/llama1b_bf16"
os.makedirs(folder, exist_ok=True)
save_file(hf, f"{folder}/model.safetensors", metadata={"format": "pt"})
json.dump({"model_type": "llama", "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L,
           "num_attention_heads": H, "num_key_value_heads": KV, "vocab_size": V, "max_position_embeddings": 4096,
           "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": False}, open(f"{folder}/config.json", "w"))
tok = {"version": "1.0", "added_tokens": [{"id": i, "content": tokens[i], "special": True, "normalized": False, "lstrip": False,
        "rstrip": False, "single_word": False} for i in (0, 1, 2)],
       "normalizer": None, "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False},
       "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                          "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
       "decoder": None, "model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)}, "merges": [], "byte_fallback": True, "fuse_unk": True}}
json.dump(tok, open(f"{folder}/tokenizer.json", "w"))
print("done")
