#!/usr/bin/env python3
"""bench/pytorch_llama_reference.py — bench_llama's shapes in PyTorch eager, for docs/performance.md's ratio:
Hugging Face's own LlamaForCausalLM (attn_implementation="eager", so the attention probabilities
exist) at Llama-3.2-1B's sizes (16 layers, 32 query / 8 key-value heads of 64, d 2,048, MLP 8,192,
vocabulary 128,256, tied output, llama3 rope scaling), random weights, one forward over 512
tokens, plain and with output_attentions=True, in float32 and bfloat16.

Development time only (not a test, not CI):
    /tmp/hfvenv/bin/python bench/pytorch_llama_reference.py [--threads 1,2] [--repeats 2]
Prints one line per measurement: dtype, attentions kept or not, threads, best and median seconds.
"""
import argparse
import statistics
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

TOKENS = 512


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    config = LlamaConfig(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
                         rms_norm_eps=1e-5, tie_word_embeddings=True,
                         rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0,
                                          "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                          "original_max_position_embeddings": 8192})
    torch.manual_seed(1)
    ids = torch.randint(0, 400, (1, TOKENS))
    for dtype in (torch.float32, torch.bfloat16):
        model = LlamaForCausalLM._from_config(config, attn_implementation="eager", dtype=dtype).eval()
        for threads in (int(t) for t in args.threads.split(",")):
            torch.set_num_threads(threads)
            for keep in (False, True):
                with torch.inference_mode():
                    model(input_ids=ids, output_attentions=keep, use_cache=False)  # warm-up
                    times = []
                    for _ in range(args.repeats):
                        start = time.perf_counter()
                        model(input_ids=ids, output_attentions=keep, use_cache=False)
                        times.append(time.perf_counter() - start)
                print(f"{str(dtype).replace('torch.', '')} attentions={'kept' if keep else 'none'} threads={threads} "
                      f"best={min(times):.3f}s median={statistics.median(times):.3f}s", flush=True)
        del model


if __name__ == "__main__":
    main()
