#!/usr/bin/env python3
"""bench/pytorch_family_reference.py — a 1B-class model of a newer family beside Hugging Face eager:
writes (once) a gemma3_text folder at Gemma-3-1B's sizes (26 layers, 4 query heads over 1 key/value head
of 256, d 1,152, MLP 6,912, vocabulary 262,144, sliding window 512 on five layers of six, q/k norms,
√d embeddings; 1.0 B parameters) with Hugging Face's own initialisation, stored as BF16, and times Hugging
Face's Gemma3ForCausalLM (attn_implementation="eager", float32) over 512 tokens, plain and with
output_attentions=True. build/bench/bench_family times the workbench on the same folder.

Development time only (not a test, not CI):
    /tmp/hfvenv/bin/python bench/pytorch_family_reference.py --folder /tmp/aw-bench-gemma3-1b [--threads 2]
    AW_BENCH_MODEL=/tmp/aw-bench-gemma3-1b build/bench/bench_family
Prints one line per measurement: attentions kept or not, threads, best and median seconds.
"""
import argparse
import os
import shutil
import statistics
import time

import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

TOKENS = 512
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def write_folder(folder):
    config = Gemma3TextConfig(vocab_size=262144, hidden_size=1152, intermediate_size=6912, num_hidden_layers=26,
                              num_attention_heads=4, num_key_value_heads=1, head_dim=256, query_pre_attn_scalar=256,
                              sliding_window=512, max_position_embeddings=32768, rms_norm_eps=1e-6,
                              rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
                                               "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}})
    torch.manual_seed(1)
    model = Gemma3ForCausalLM._from_config(config, attn_implementation="eager", dtype=torch.bfloat16).eval()
    model.save_pretrained(folder, safe_serialization=True)
    # Any tokenizer.json of the right kind: the benches feed ids.
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", "hf_tokenizers", "llama2.tokenizer.json"),
                os.path.join(folder, "tokenizer.json"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", default="/tmp/aw-bench-gemma3-1b")
    parser.add_argument("--threads", default="2")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.folder, "config.json")):
        write_folder(args.folder)
    model = Gemma3ForCausalLM.from_pretrained(args.folder, attn_implementation="eager", dtype=torch.float32).eval()
    print("parameters", sum(p.numel() for p in model.parameters()))
    torch.manual_seed(1)
    ids = torch.randint(0, 400, (1, TOKENS))
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        for keep in (False, True):
            with torch.inference_mode():
                model(input_ids=ids, output_attentions=keep)  # warm-up
                times = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    model(input_ids=ids, output_attentions=keep)
                    times.append(time.perf_counter() - start)
            print("f32", "attentions" if keep else "plain", threads, "threads", "best %.2f s" % min(times),
                  "median %.2f s" % statistics.median(times))


if __name__ == "__main__":
    main()
