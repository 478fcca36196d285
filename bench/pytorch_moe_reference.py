#!/usr/bin/env python3
"""bench/pytorch_moe_reference.py — a mixture of experts at Qwen3-30B-A3B's sizes cut to 4 layers beside
Hugging Face eager: writes (once) a qwen3_moe folder (d 2,048, 32 query heads over 4 key/value heads of
128, 128 experts of width 768, top-8 renormalised, vocabulary 151,936; 3.1 B parameters) with Hugging
Face's own initialisation, stored as BF16, and times Hugging Face's Qwen3MoeForCausalLM
(attn_implementation="eager", BF16) over 2,048 tokens, plain (the issue's baseline) and with
output_attentions=True. build/bench/bench_moe times the workbench on the same folder.

Development time only (not a test, not CI):
    /tmp/hfvenv/bin/python bench/pytorch_moe_reference.py --folder /tmp/aw-bench-qwen3moe-4l
    AW_BENCH_MODEL=/tmp/aw-bench-qwen3moe-4l build/bench/bench_moe
Prints one line per measurement: attentions kept or not, best and median seconds, peak RSS.
"""
import argparse
import os
import resource
import shutil
import statistics
import time

import torch
from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

TOKENS = 2048
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def write_folder(folder):
    config = Qwen3MoeConfig(vocab_size=151936, hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768,
                            num_hidden_layers=4, num_attention_heads=32, num_key_value_heads=4, head_dim=128,
                            num_experts=128, num_experts_per_tok=8, norm_topk_prob=True, max_position_embeddings=40960,
                            rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
                            tie_word_embeddings=False)
    torch.manual_seed(1)
    model = Qwen3MoeForCausalLM._from_config(config, attn_implementation="eager", dtype=torch.bfloat16).eval()
    model.save_pretrained(folder, safe_serialization=True)
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", "hf_tokenizers", "qwen2.tokenizer.json"),
                os.path.join(folder, "tokenizer.json"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", default="/tmp/aw-bench-qwen3moe-4l")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.folder, "config.json")):
        write_folder(args.folder)
    torch.set_num_threads(args.threads)
    model = Qwen3MoeForCausalLM.from_pretrained(args.folder, attn_implementation="eager", dtype=torch.bfloat16).eval()
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    print("parameters %d, weights %.2f GB" % (sum(p.numel() for p in model.parameters()), weights / 1e9))
    torch.manual_seed(1)
    ids = torch.randint(0, 400, (1, TOKENS))
    for keep in (False, True):
        with torch.inference_mode():
            model(input_ids=ids, output_attentions=keep)  # warm-up
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                model(input_ids=ids, output_attentions=keep)
                times.append(time.perf_counter() - start)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print("bf16", "attentions" if keep else "plain", "best %.2f s" % min(times),
              "median %.2f s" % statistics.median(times), "peak RSS %.2f GB" % peak)


if __name__ == "__main__":
    main()
