#!/usr/bin/env python3
"""bench/pytorch_reference.py — the shapes of bench_foundation in PyTorch eager, for docs/performance.md's
ratio table: a 1024² float32 matmul, a GPT-2-small-layout forward (12 layers × 12 heads, d 768,
d_ff 3,072, vocabulary 50,257, learned positions, pre-LayerNorm, tanh GELU, tied output head) over
8 × 256 tokens with and without keeping every layer's attention probabilities, and the 12 layers
alone over 1 × 1,024 tokens. Attention is the explicit softmax(QKᵀ/√d + causal mask)·V that eager
implementations (Hugging Face's attn_implementation="eager") use, so that probabilities exist.

Development time only (not a test, not CI): run with any PyTorch — Debian's python3-torch (1.13) or
`pip install torch` (2.x):  python3 bench/pytorch_reference.py [--threads 1,2] [--repeats 3]
Prints one line per measurement: name, threads, best and median seconds.
"""
import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F

VOCAB, POSITIONS, LAYERS, HEADS, D, FF = 50257, 1024, 12, 12, 768, 3072


def random_weights(generator):
    def normal(*shape):
        return torch.randn(*shape, generator=generator) * 0.02

    layers = []
    for _ in range(LAYERS):
        layers.append({
            "ln1_w": torch.ones(D), "ln1_b": torch.zeros(D),
            "qkv_w": normal(3 * D, D), "qkv_b": torch.zeros(3 * D),
            "out_w": normal(D, D), "out_b": torch.zeros(D),
            "ln2_w": torch.ones(D), "ln2_b": torch.zeros(D),
            "fc_w": normal(FF, D), "fc_b": torch.zeros(FF),
            "proj_w": normal(D, FF), "proj_b": torch.zeros(D),
        })
    return {"wte": normal(VOCAB, D), "wpe": normal(POSITIONS, D), "lnf_w": torch.ones(D),
            "lnf_b": torch.zeros(D), "layers": layers}


def block(x, w, mask, kept):
    batch, length, _ = x.shape
    h = F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"])
    q, k, v = F.linear(h, w["qkv_w"], w["qkv_b"]).split(D, dim=-1)
    q, k, v = (t.view(batch, length, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
    probabilities = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    if kept is not None:
        kept.append(probabilities)
    context = (probabilities @ v).transpose(1, 2).reshape(batch, length, D)
    x = x + F.linear(context, w["out_w"], w["out_b"])
    h = F.layer_norm(x, (D,), w["ln2_w"], w["ln2_b"])
    return x + F.linear(F.gelu(F.linear(h, w["fc_w"], w["fc_b"]), approximate="tanh"), w["proj_w"], w["proj_b"])


def forward(weights, ids, head=True, capture=False):
    length = ids.shape[1]
    mask = torch.ones(length, length, dtype=torch.bool).triu(1)
    x = weights["wte"][ids] + weights["wpe"][:length]
    kept = [] if capture else None
    for w in weights["layers"]:
        x = block(x, w, mask, kept)
    if not head:
        return x, kept
    x = F.layer_norm(x, (D,), weights["lnf_w"], weights["lnf_b"])
    return x @ weights["wte"].t(), kept


def timed(function, repeats):
    function()  # warm-up: first touch of every buffer
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(1)
    weights = random_weights(generator)
    ids_8x256 = torch.randint(0, VOCAB, (8, 256), generator=generator)
    ids_1024 = (1 + (torch.arange(1024) * 7919) % 50256).unsqueeze(0)
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    print(f"# torch {torch.__version__}, {torch.get_num_threads()} threads by default")
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        with torch.inference_mode():
            best, median = timed(lambda: a @ b, 20)
            print(f"matmul1024 threads={threads} best={best:.4f} median={median:.4f} "
                  f"GFLOP/s={2 * 1024 ** 3 / best / 1e9:.0f}")
            cases = {
                "forward_8x256": lambda: forward(weights, ids_8x256),
                "forward_8x256_capture": lambda: forward(weights, ids_8x256, capture=True),
                "layers_1x1024": lambda: forward(weights, ids_1024, head=False),
            }
            for name, function in cases.items():
                best, median = timed(function, args.repeats)
                print(f"{name} threads={threads} best={best:.3f} median={median:.3f}", flush=True)


if __name__ == "__main__":
    main()
