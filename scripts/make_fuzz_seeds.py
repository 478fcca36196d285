#!/usr/bin/env python3
"""Writes the committed seed inputs of the multi-part fuzz targets to fuzz/seeds/<target>/.

Development time only (plain Python, no packages): scripts/fuzz.sh adds the single-file seeds itself
(config.json files, CoNLL-U, TSV and session files from sample_data/, tests/fixtures/ and small slices
of ../shared/data). A multi-part seed is its files joined by fuzz_support.h's kPartSeparator.
"""
import json
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
SEPARATOR = b"\n=====\n"


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, element_size); the data bytes are a counting pattern."""
    header, offset, data = {}, 0, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, element_size in tensors:
        count = 1
        for d in shape:
            count *= d
        size = count * element_size
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        data += bytes((offset + i) % 61 for i in range(size))  # small values: finite in every float type
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def write(target, name, *parts):
    folder = SEEDS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(SEPARATOR.join(parts))


def tiny_lm(d=4, heads=2, layers=1, vocab=6, positions=8, ff=8):
    config = {"model_type": "transformer_lm", "vocab_size": vocab, "n_layers": layers, "n_heads": heads,
              "d_model": d, "d_head": d // heads, "d_ff": ff, "max_positions": positions, "norm": "pre",
              "positions": "learned", "tie_embeddings": True, "activation": "gelu", "tokenizer": "word"}
    tensors = [("tok_emb.weight", "F16", [vocab, d], 2), ("pos_emb.weight", "F16", [positions, d], 2)]
    for l in range(layers):
        p = f"layers.{l}."
        tensors += [(p + "ln_1.weight", "F16", [d], 2), (p + "ln_1.bias", "F16", [d], 2)]
        for proj in "qkvo":
            tensors += [(p + f"attn.{proj}.weight", "F16", [d, d], 2), (p + f"attn.{proj}.bias", "F16", [d], 2)]
        tensors += [(p + "ln_2.weight", "F16", [d], 2), (p + "ln_2.bias", "F16", [d], 2),
                    (p + "mlp.fc1.weight", "F16", [ff, d], 2), (p + "mlp.fc1.bias", "F16", [ff], 2),
                    (p + "mlp.fc2.weight", "F16", [d, ff], 2), (p + "mlp.fc2.bias", "F16", [d], 2)]
    tensors += [("ln_f.weight", "F16", [d], 2), ("ln_f.bias", "F16", [d], 2)]
    return config, tensors


def main():
    # safetensors: every dtype the reader knows, an empty tensor, metadata, and a scalar.
    write("fuzz_safetensors", "dtypes.seed", safetensors(
        [("a", "F32", [2, 3], 4), ("b", "F16", [3], 2), ("c", "BF16", [1, 2], 2), ("d", "I64", [2], 8),
         ("e", "U8", [4], 1), ("f", "BOOL", [2], 1), ("g", "F64", [], 8), ("h", "I32", [0, 5], 4)],
        metadata={"format": "pt"}))
    config, tensors = tiny_lm()
    write("fuzz_safetensors", "tiny_lm.seed", safetensors(tensors))

    # checkpoint folders: config.json, vocabulary (vocab.txt or vocab.json), merges.txt, model.safetensors.
    vocab = b"<unk>\n<eos>\nthe\ncat\nsat\nmat\n"
    write("fuzz_checkpoint", "tiny_lm.seed", json.dumps(config, indent=2).encode(), vocab, b"", safetensors(tensors))
    config2, tensors2 = tiny_lm(d=6, heads=3, layers=2, positions=4, ff=12)
    config2["model_type"] = "bet_sf"
    tensors2 += [(f"layers.{l}.attn.bird_eye", "F16", [3, 2 * 2], 2) for l in range(2)]
    write("fuzz_checkpoint", "tiny_bet_sf.seed", json.dumps(config2).encode(), vocab, b"", safetensors(tensors2))
    # A GPT-2 folder in Hugging Face's layout: Conv1D weights [in, out], fused c_attn, tied head.
    gpt2_vocab = {"a": 0, "b": 1, "ab": 2, "\u0120": 3, "\u0120a": 4, "<|endoftext|>": 5}
    gpt2_config = {"model_type": "gpt2", "vocab_size": 6, "n_embd": 4, "n_head": 2, "n_layer": 1, "n_positions": 8,
                   "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5}
    gpt2 = [("wte.weight", "F32", [6, 4], 4), ("wpe.weight", "F32", [8, 4], 4),
            ("h.0.ln_1.weight", "F32", [4], 4), ("h.0.ln_1.bias", "F32", [4], 4),
            ("h.0.attn.c_attn.weight", "F32", [4, 12], 4), ("h.0.attn.c_attn.bias", "F32", [12], 4),
            ("h.0.attn.c_proj.weight", "F32", [4, 4], 4), ("h.0.attn.c_proj.bias", "F32", [4], 4),
            ("h.0.ln_2.weight", "F32", [4], 4), ("h.0.ln_2.bias", "F32", [4], 4),
            ("h.0.mlp.c_fc.weight", "F32", [4, 16], 4), ("h.0.mlp.c_fc.bias", "F32", [16], 4),
            ("h.0.mlp.c_proj.weight", "F32", [16, 4], 4), ("h.0.mlp.c_proj.bias", "F32", [4], 4),
            ("ln_f.weight", "F32", [4], 4), ("ln_f.bias", "F32", [4], 4)]
    write("fuzz_checkpoint", "tiny_gpt2.seed", json.dumps(gpt2_config).encode(), json.dumps(gpt2_vocab).encode(),
          "#version: 0.2\na b\n\u0120 a\n".encode(), safetensors(gpt2))

    # GPT-2 byte-level BPE: the BART fixture's vocab.json and merges.txt.
    bart = ROOT / "tests" / "fixtures" / "hf" / "bart_tiny"
    write("fuzz_gpt2_tokenizer", "bart_tiny.seed", (bart / "vocab.json").read_bytes(), (bart / "merges.txt").read_bytes(),
          "The cat sat on the mat. Ünïcödé 😀 and\ttabs\r\n".encode())

    # WordPiece: a BERT-style vocab.txt with continuation pieces and accents.
    wordpiece = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "##s",
                           "##ting", "play", "##ing", "cafe", ".", ",", "!"]).encode() + b"\n"
    write("fuzz_wordpiece_tokenizer", "small.seed", wordpiece, "The cats sat on the MAT, playing! Café naïve 東京".encode())

    # Word level: the sample LM's first 300 words and a WikiText-like line.
    words = (ROOT / "sample_data" / "vanilla_lm" / "vocab.txt").read_bytes().split(b"\n")[:300]
    write("fuzz_word_tokenizer", "sample_lm.seed", b"\n".join(words) + b"\n",
          b" = Valkyria Chronicles III = \n\n The game 's battle system , the BliTZ system , is carried over .\n")

    # SentencePiece: the Marian fixture with its vocab.json (the bundled spm.model, 300 KB, is too large a seed).
    marian = ROOT / "tests" / "fixtures" / "hf" / "marian_tiny"
    write("fuzz_sentencepiece", "marian_tiny.seed", (marian / "source.spm").read_bytes(),
          (marian / "vocab.json").read_bytes(), "Tom is tired. Où est la gare ?".encode())
    write("fuzz_sentencepiece", "marian_tiny_no_vocab.seed", (marian / "target.spm").read_bytes(), b"",
          "I don't know what happened. Ça va ?".encode())


if __name__ == "__main__":
    main()
