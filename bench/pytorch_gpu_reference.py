#!/usr/bin/env python3
"""bench/pytorch_gpu_reference.py — bench_gpu's measurements in PyTorch eager, on the same device,
dtype and shapes: the GPT-2-small layout of bench/pytorch_reference.py (12 layers × 12 heads, d 768,
d_ff 3,072, vocabulary 50,257, pre-LayerNorm, tanh GELU, tied output head, explicit
softmax(QKᵀ/√d + causal mask)·V so that probabilities exist), random weights, and Michel's head gates
(each head's context scaled before the output projection, a gate per row):

  forward / forward_capture   logits of B × T tokens, without and with every layer's probabilities kept
  eval                        perplexity of those windows (forward + next-token cross-entropy, to the CPU)
  gate_settings               the 144 single-head settings over W windows, S settings per forward
  importance                  |∂L/∂gate| per head from one forward + backward of the B × T windows

Development time only: python3 bench/pytorch_gpu_reference.py --device cuda --dtype bf16
[--shape 8,256] [--sweep 2,64] [--seconds 1] [--json FILE]. Prints one line per measurement: name,
best and median milliseconds; --json writes them as {"name": {"best_ms", "median_ms", "runs"}}.
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn.functional as F

VOCAB, POSITIONS, LAYERS, HEADS, D, FF = 50257, 1024, 12, 12, 768, 3072


def random_weights(device, dtype, generator):
    def normal(*shape):
        return (torch.randn(*shape, generator=generator) * 0.02).to(device, dtype)

    def const(value, *shape):
        return torch.full(shape, value, device=device, dtype=dtype)

    layers = [{"ln1_w": const(1.0, D), "ln1_b": const(0.0, D), "qkv_w": normal(3 * D, D), "qkv_b": const(0.0, 3 * D),
               "out_w": normal(D, D), "out_b": const(0.0, D), "ln2_w": const(1.0, D), "ln2_b": const(0.0, D),
               "fc_w": normal(FF, D), "fc_b": const(0.0, FF), "proj_w": normal(D, FF), "proj_b": const(0.0, D)}
              for _ in range(LAYERS)]
    return {"wte": normal(VOCAB, D), "wpe": normal(POSITIONS, D), "lnf_w": const(1.0, D), "lnf_b": const(0.0, D),
            "layers": layers}


def block(x, w, mask, gates, kept):
    batch, length, _ = x.shape
    h = F.layer_norm(x, (D,), w["ln1_w"], w["ln1_b"])
    q, k, v = F.linear(h, w["qkv_w"], w["qkv_b"]).split(D, dim=-1)
    q, k, v = (t.view(batch, length, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
    scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
    probabilities = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    if kept is not None:
        kept.append(probabilities)
    context = probabilities @ v  # (B, nh, T, hs)
    if gates is not None:  # (B, nh): Michel's ξ_h
        context = context * gates.to(context.dtype)[:, :, None, None]
    context = context.transpose(1, 2).reshape(batch, length, D)
    x = x + F.linear(context, w["out_w"], w["out_b"])
    h = F.layer_norm(x, (D,), w["ln2_w"], w["ln2_b"])
    return x + F.linear(F.gelu(F.linear(h, w["fc_w"], w["fc_b"]), approximate="tanh"), w["proj_w"], w["proj_b"])


def forward(weights, ids, gates=None, capture=False):
    """ids (B, T); gates None or (B, L, nh). Returns logits (B, T, V) and the kept probabilities."""
    length = ids.shape[1]
    mask = torch.ones(length, length, dtype=torch.bool, device=ids.device).triu(1)
    x = weights["wte"][ids] + weights["wpe"][:length]
    kept = [] if capture else None
    for layer, w in enumerate(weights["layers"]):
        x = block(x, w, mask, None if gates is None else gates[:, layer], kept)
    x = F.layer_norm(x, (D,), weights["lnf_w"], weights["lnf_b"])
    return x @ weights["wte"].t(), kept


def row_losses(logits, ids):
    """Each row's summed next-token cross-entropy (float32) and its predicted-token count."""
    predicted = logits[:, :-1].float()
    losses = F.cross_entropy(predicted.reshape(-1, VOCAB), ids[:, 1:].reshape(-1), reduction="none")
    return losses.view(ids.shape[0], -1).sum(1), ids.shape[1] - 1


def window_ids(windows, length, device):
    """bench_gpu's tokens: 1 + (i · 7919) mod 50,256, in consecutive windows."""
    i = torch.arange(windows * length, dtype=torch.long)
    return (1 + (i * 7919) % (VOCAB - 1)).view(windows, length).to(device)


def timed(function, seconds, synchronize):
    function()  # warm-up: the allocator's and the kernels' first use
    synchronize()
    times = []
    begin = time.perf_counter()
    while not times or time.perf_counter() - begin < seconds:
        start = time.perf_counter()
        function()
        synchronize()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), len(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="bf16", choices=["f32", "bf16", "f16"])
    parser.add_argument("--shape", default="8,256", help="windows,tokens of forward, eval and importance")
    parser.add_argument("--sweep", default="2,64", help="windows,settings per forward of gate_settings")
    parser.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement (at least one run)")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    device = torch.device(args.device)
    dtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    if args.threads:
        torch.set_num_threads(args.threads)
    windows, length = (int(v) for v in args.shape.split(","))
    sweep_windows, per_forward = (int(v) for v in args.sweep.split(","))
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    weights = random_weights(device, dtype, torch.Generator().manual_seed(1))
    ids = window_ids(windows, length, device)

    def eval_pass():
        with torch.inference_mode():
            total, count = row_losses(forward(weights, ids)[0], ids)
            return math.exp(total.sum().item() / (count * ids.shape[0]))

    settings = LAYERS * HEADS
    single_head = torch.ones(settings, LAYERS, HEADS, device=device)
    single_head.view(settings, -1)[torch.arange(settings), torch.arange(settings)] = 0.0  # setting s: head s off
    sweep_ids = window_ids(sweep_windows, length, device)

    def gate_settings():
        perplexities = []
        with torch.inference_mode():
            for first in range(0, settings, per_forward):
                chunk = single_head[first:first + per_forward]  # (S, L, nh)
                rows = sweep_ids.repeat(chunk.shape[0], 1)  # setting-major: S × W rows
                totals, count = row_losses(forward(weights, rows, chunk.repeat_interleave(sweep_windows, 0))[0], rows)
                perplexities.append((totals.view(chunk.shape[0], sweep_windows).sum(1) / (count * sweep_windows)).exp())
        return torch.cat(perplexities).cpu()

    def importance():
        gates = torch.ones(LAYERS, HEADS, device=device, requires_grad=True)
        total, _ = row_losses(forward(weights, ids, gates.expand(ids.shape[0], -1, -1))[0], ids)
        total.sum().backward()
        scores = gates.grad.abs()
        return (scores / scores.norm(dim=1, keepdim=True)).cpu()

    def forward_only(capture):
        def run():
            with torch.inference_mode():
                return forward(weights, ids, capture=capture)
        return run

    measurements = [("forward", forward_only(False)), ("forward_capture", forward_only(True)), ("eval", eval_pass),
                    ("gate_settings", gate_settings), ("importance", importance)]
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({torch.get_num_threads()} threads)"
    print(f"# PyTorch {torch.__version__} eager on {name}, {args.dtype}, shape {windows}x{length}, "
          f"sweep {sweep_windows} windows x {per_forward} settings per forward")
    results = {}
    for label, function in measurements:
        best, median, runs = timed(function, args.seconds, synchronize)
        results[label] = {"best_ms": best * 1e3, "median_ms": median * 1e3, "runs": runs}
        print(f"{label:16s} best {best * 1e3:10.2f} ms  median {median * 1e3:10.2f} ms  ({runs} runs)", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"torch": torch.__version__, "device": name, "dtype": args.dtype, "shape": args.shape,
                       "sweep": args.sweep, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
