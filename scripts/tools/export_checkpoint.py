#!/usr/bin/env python3
"""Export a PyTorch state dict to an Attention Workbench native checkpoint folder.

Writes <out>/config.json, <out>/model.safetensors and <out>/vocab.txt (see
docs/checkpoint-format.md for the tensor names each architecture needs). Only PyTorch is
required: the safetensors file is written directly (8-byte header length, JSON header, raw bytes).

Example:
  python3 scripts/tools/export_checkpoint.py --state-dict lm.pt --config my_config.json \\
      --vocab vocab.txt --out exported/ --rename decoder.=layers. --rename embed.=tok_emb. --f16
  build/app/attention-cli info --model exported/      # validates names, shapes and vocabulary
"""
import argparse
import json
import os
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.float64: "F64",
          torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8", torch.bool: "BOOL"}


def write_safetensors(path, tensors):
    """tensors: list of (name, CPU contiguous tensor). Bytes are little-endian, as on x86 and ARM."""
    header, offset, blobs = {}, 0, []
    for name, tensor in tensors:
        if tensor.dtype not in DTYPES:
            raise SystemExit(f"{name}: dtype {tensor.dtype} is not supported (use --f16 or float32)")
        data = tensor.contiguous().numpy().tobytes()
        header[name] = {"dtype": DTYPES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # keep the data section 8-byte aligned
    with open(path + ".tmp", "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dict", required=True, help="torch.save()d state dict (or a dict holding one under 'model')")
    parser.add_argument("--config", required=True, help="native config.json to copy (model_type, sizes, ...)")
    parser.add_argument("--vocab", required=True, help="vocab.txt, one token per line, line number = id; must contain <unk>")
    parser.add_argument("--out", required=True, help="checkpoint folder to write")
    parser.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                        help="replace the name prefix OLD by NEW (repeatable, applied in order)")
    parser.add_argument("--drop", action="append", default=[], metavar="PREFIX",
                        help="leave out tensors whose name starts with PREFIX (buffers, optimiser state)")
    parser.add_argument("--f16", action="store_true", help="store float tensors as F16 (half the size)")
    args = parser.parse_args()

    state = torch.load(args.state_dict, map_location="cpu")
    if isinstance(state, dict) and "model" in state and isinstance(state["model"], dict):
        state = state["model"]
    with open(args.config) as f:
        config = json.load(f)
    with open(args.vocab, encoding="utf-8") as f:
        vocabulary = [line.rstrip("\n") for line in f]
    if "<unk>" not in vocabulary:
        raise SystemExit(f"{args.vocab}: the vocabulary has no <unk> token")
    if config.get("vocab_size") != len(vocabulary):
        raise SystemExit(f"{args.vocab}: {len(vocabulary)} tokens but config vocab_size is {config.get('vocab_size')}")

    tensors = []
    for name, tensor in state.items():
        if any(name.startswith(prefix) for prefix in args.drop):
            continue
        for rule in args.rename:
            old, new = rule.split("=", 1)
            if name.startswith(old):
                name = new + name[len(old):]
        tensor = tensor.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        if args.f16 and tensor.is_floating_point():
            tensor = tensor.half()
        tensors.append((name, tensor))

    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(args.out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocabulary) + "\n")
    print(f"wrote {len(tensors)} tensors to {args.out}; check with: attention-cli info --model {args.out}")


if __name__ == "__main__":
    sys.exit(main())
