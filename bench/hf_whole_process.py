#!/usr/bin/env python3
"""bench/hf_whole_process.py — the Hugging Face side of bench/engine-vs-hf.sh: one whole process doing what
`attention-cli eval` / `stats` do, counting everything a user waits for (imports, from_pretrained, tokenising).

    .venv/bin/python bench/hf_whole_process.py MODE MODEL_DIR TEXT_FILE

MODE:
  eval-f32, eval-bf16  AutoModelForCausalLM (eager attention) in float32 / bfloat16, a forward with labels per
                       batch; result = perplexity over every predicted token (exp of the mean next-token loss).
  stats-f32            AutoModel (the base model, no output layer; eager, output_attentions=True) in float32; per
                       layer and window the sums behind Table 1 (docs/analyses.md: CA, HA(mu), HA(sigma), Ratio,
                       and the row-length-normalised ones), float64 sums over every attention matrix;
                       result = the mean over layers of Ratio = CA / HA(mu).
  forward-sdpa         AutoModelForCausalLM with attn_implementation="sdpa" in float32, a plain logits forward; the
                       loss is then taken from the logits (the work `attention-cli eval` does, which is the CLI's
                       cheapest forward over windows); result = perplexity.
The text file is tokenised whole with MODEL_DIR/tokenizer.json (PreTrainedTokenizerFast, as Hugging Face
encodes it; the workbench does the same), cut into 16 consecutive non-overlapping windows of 512 tokens, run
in batches of 4 under torch.inference_mode() with torch.set_num_threads(2) on the CPU.
Prints one line of JSON: mode, seconds since the process started, result, and what was run.
Development time only (not a test, not CI).
"""
import time

_T_SCRIPT = time.time()


def _process_start():
    """The wall-clock time this process started (Linux /proc), so interpreter start-up counts too."""
    try:
        import os
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime, clock ticks since boot
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _T_SCRIPT


_T0 = min(_process_start(), _T_SCRIPT)

import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

MODES = ("eval-f32", "eval-bf16", "stats-f32", "forward-sdpa")
WINDOWS, WINDOW, BATCH, THREADS = 16, 512, 4, 2


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        fail(f"usage: hf_whole_process.py {{{'|'.join(MODES)}}} MODEL_DIR TEXT_FILE")
    mode, model_dir, text_file = sys.argv[1:]
    if not os.path.isfile(os.path.join(model_dir, "config.json")):
        fail(f"{model_dir}: no config.json (not a Hugging Face model folder)")
    if not os.path.isfile(os.path.join(model_dir, "tokenizer.json")):
        fail(f"{model_dir}: no tokenizer.json in this folder")
    if not os.path.isfile(text_file):
        fail(f"{text_file}: cannot be read (missing or not a file)")

    import torch
    from transformers import AutoModel, AutoModelForCausalLM, PreTrainedTokenizerFast

    torch.set_num_threads(THREADS)
    dtype = torch.bfloat16 if mode == "eval-bf16" else torch.float32
    if mode == "stats-f32":
        model = AutoModel.from_pretrained(model_dir, dtype=dtype, attn_implementation="eager")
    else:
        attention = "sdpa" if mode == "forward-sdpa" else "eager"
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype, attn_implementation=attention)
    model.eval()

    tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(model_dir, "tokenizer.json"))
    with open(text_file, encoding="utf-8") as f:
        ids = tokenizer(f.read(), verbose=False)["input_ids"]
    needed = WINDOWS * WINDOW
    if len(ids) < needed:
        fail(f"{text_file}: holds {len(ids)} tokens, fewer than the {WINDOWS} windows of {WINDOW} ({needed}) needed")
    windows = torch.tensor(ids[:needed], dtype=torch.long).view(WINDOWS, WINDOW)

    with torch.inference_mode():
        if mode == "stats-f32":
            result, extra = run_stats(model, windows)
        else:
            result, extra = run_perplexity(model, windows, mode)
    print(json.dumps({"mode": mode, "seconds": round(time.time() - _T0, 3), "result": result,
                      "windows": WINDOWS, "window": WINDOW, "batch": BATCH, "threads": THREADS,
                      "torch": torch.__version__, **extra}))


def run_perplexity(model, windows, mode):
    import torch
    import torch.nn.functional as F

    total, count = 0.0, 0
    for batch in windows.split(BATCH):
        predicted = batch.shape[0] * (batch.shape[1] - 1)
        if mode == "forward-sdpa":
            logits = model(input_ids=batch).logits
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(), batch[:, 1:].reshape(-1),
                                   reduction="sum").item()
            del logits
        else:
            # Every window is full, so the mean over the batch's predicted tokens times their count is the sum.
            loss = model(input_ids=batch, labels=batch).loss.float().item() * predicted
        total += loss
        count += predicted
    return math.exp(total / count), {"predicted_tokens": count, "mean_loss": total / count}


def run_stats(model, windows):
    """Per (layer, window, head) float64 sums over every attention matrix: the diagonal, the strictly lower
    triangle and its squares, and the same weighted by the keys a row sees (i + 1); Table 1 per layer from them."""
    import torch

    n = windows.shape[1]
    keys = torch.arange(1, n + 1, dtype=torch.float64)  # row i of a causal window sees i + 1 keys
    layers = None
    for batch in windows.split(BATCH):
        attentions = model(input_ids=batch, output_attentions=True).attentions  # per layer [b, h, n, n]
        if layers is None:
            layers = [dict(diag=0.0, low=0.0, low_sq=0.0, diag_x=0.0, low_x=0.0, low_x_sq=0.0, windows=[])
                      for _ in attentions]
        for sums, a in zip(layers, attentions):
            diag = a.diagonal(dim1=-2, dim2=-1).to(torch.float64)  # [b, h, n]
            low = torch.tril(a, diagonal=-1)
            low_rows = low.sum(-1, dtype=torch.float64)  # [b, h, n]
            low_sq_rows = (low * low).sum(-1, dtype=torch.float64)
            per_window = torch.stack([diag.sum(-1), low_rows.sum(-1), low_sq_rows.sum(-1)], -1)  # [b, h, 3]
            sums["windows"].append(per_window)
            sums["diag"] += diag.sum().item()
            sums["low"] += low_rows.sum().item()
            sums["low_sq"] += low_sq_rows.sum().item()
            sums["diag_x"] += (diag * keys).sum().item()
            sums["low_x"] += (low_rows * keys).sum().item()
            sums["low_x_sq"] += (low_sq_rows * keys * keys).sum().item()
        del attentions
    heads = layers[0]["windows"][0].shape[1]
    diag_count = windows.shape[0] * heads * n
    low_count = windows.shape[0] * heads * n * (n - 1) // 2
    ratios = []
    table = []
    for sums in layers:
        ca = sums["diag"] / diag_count
        ha_mean = sums["low"] / low_count
        ha_std = math.sqrt(max(sums["low_sq"] / low_count - ha_mean * ha_mean, 0.0))
        ratio = ca / ha_mean if ha_mean > 0 else float("nan")
        x_mean = sums["low_x"] / low_count
        x_std = math.sqrt(max(sums["low_x_sq"] / low_count - x_mean * x_mean, 0.0))
        ratios.append(ratio)
        table.append([round(ca, 6), round(ha_mean, 8), round(ha_std, 8), round(ratio, 6),
                      round(sums["diag_x"] / diag_count, 6), round(x_mean, 6), round(x_std, 6)])
    return sum(ratios) / len(ratios), {
        "layers": len(layers),
        "per_layer": "CA,HA_mean,HA_std,Ratio,CA_x_keys,HA_x_keys_mean,HA_x_keys_std",
        "table": table}


if __name__ == "__main__":
    main()
