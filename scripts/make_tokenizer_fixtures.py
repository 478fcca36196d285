#!/usr/bin/env python3
"""Writes tests/fixtures/hf_tokenizers/: small tokenizer.json files of the kinds the workbench reads,
trained with Hugging Face's own `tokenizers` library, and the ids and tokens that library gives for
texts with special tokens, accents (composed and decomposed), CJK, emoji and runs of spaces.

Development time only (tests and CI read the committed files):
    python3 -m venv /tmp/tokvenv && /tmp/tokvenv/bin/pip install tokenizers
    /tmp/tokvenv/bin/python scripts/make_tokenizer_fixtures.py

Kinds, each after the real tokenizer.json of a model family:
  neox    GPT-NeoX / Pythia: NFC, ByteLevel pre-tokenizer with its own regex, <|endoftext|> and a
          non-special added token of spaces (normalized, as Pythia's)
  qwen2   Qwen2: NFC, Split(its regex, Isolated) then ByteLevel without regex, chat special tokens
  llama3  Llama 3 / SmolLM: Split(its regex) then ByteLevel, ignore_merges, a BOS template
  llama2  Llama 2 / TinyLlama (SentencePiece-style BPE): Prepend("▁") and Replace(" ", "▁")
          normalizers, no pre-tokenizer, byte_fallback to <0xNN> tokens, fuse_unk, a <s> template and
          the Replace/ByteFallback/Fuse/Strip decoder
  metaspace  the same model behind a Metaspace pre-tokenizer (prepend_scheme "first", no split)
          instead of the normalizers, as Llama 2 tokenizers converted without the legacy flag are;
          metaspace_split: prepend_scheme "always" and split at each "▁"
Refused kinds (the tests expect a one-line message):
  unigram a Unigram model
"""
import json
import os
import sys

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "hf_tokenizers")

# Training text: the project's own demo sentences plus lines written here.
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "sample_data", "demo_sentences.txt"), encoding="utf-8") as f:
    TRAINING = [line.strip() for line in f if line.strip()]
TRAINING += [
    "naïve café résumé über straße déjà vu",
    "日本語のテキストを少し書きます。中文也可以。",
    "emoji 🍕 🎉 ❤️ 👍🏽 and more 🍕🍕",
    "numbers 1234567 and 3.14159 and 2024-11-24",
    "don't I'm we'll they've she's it'd you're",
    "    indented code\n\tand tabs\n\nnew lines",
] * 3

TEXTS = [
    "Hello world",
    "  runs   of    spaces  ",
    "naïve café résumé",
    "cafe\u0301 and nai\u0308ve, decomposed",
    "日本語のテキスト",
    "I ❤️ 🍕! 👍🏽",
    "numbers 1234567 tokens",
    "don't I'm we'll",
    "line one\nline two\n\n\tend",
    "<|endoftext|>Hello<|endoftext|> world",
    "<|im_start|>user\nhi<|im_end|>",
    "<s>text after a BOS written out</s>",
    "x" + " " * 8 + "y",
    "",
]
# One long line (the SentencePiece-style kinds merge across all of it: no pre-tokenisation).
TEXTS.append(" ".join(TRAINING[:40]))

QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def byte_level_bpe(vocab_size, specials):
    tokenizer = Tokenizer(models.BPE())
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    return tokenizer, trainer


def neox():
    tokenizer, trainer = byte_level_bpe(400, ["<|endoftext|>", "<|padding|>"])
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(TRAINING, trainer)
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    from tokenizers import AddedToken
    tokenizer.add_tokens([AddedToken(" " * 4, normalized=True, special=False)])
    return tokenizer


def split_then_byte_level(pattern, specials, vocab_size):
    tokenizer, trainer = byte_level_bpe(vocab_size, specials)
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(TRAINING, trainer)
    return tokenizer


def qwen2():
    tokenizer = split_then_byte_level(QWEN2_PATTERN, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], 420)
    tokenizer.normalizer = normalizers.NFC()
    return tokenizer


def llama3():
    tokenizer = split_then_byte_level(LLAMA3_PATTERN, ["<|begin_of_text|>", "<|end_of_text|>"], 440)
    bos = tokenizer.token_to_id("<|begin_of_text|>")
    tokenizer.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)]),
    ])
    data = json.loads(tokenizer.to_str())
    data["model"]["ignore_merges"] = True  # as Llama 3's file says
    return Tokenizer.from_str(json.dumps(data))


def unigram():
    tokenizer = Tokenizer(models.Unigram())
    trainer = trainers.UnigramTrainer(vocab_size=120, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.train_from_iterator(TRAINING, trainer)
    return tokenizer


def sentencepiece_style(metaspace, scheme="first", split=False):
    """A BPE over characters with "▁" for spaces, trained without the CJK line and the emoji so that
    they fall back to bytes; the 256 <0xNN> tokens are appended to the vocabulary afterwards, as
    SentencePiece's byte_fallback models hold them."""
    tokenizer = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    trainer = trainers.BpeTrainer(vocab_size=260, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False)
    if metaspace:
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=scheme, split=split)
    else:
        tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tokenizer.train_from_iterator([line for line in TRAINING if line.isascii() or "é" in line], trainer)
    data = json.loads(tokenizer.to_str())
    vocab = data["model"]["vocab"]
    for byte in range(256):
        vocab["<0x%02X>" % byte] = len(vocab)
    data["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    tokenizer = Tokenizer.from_str(json.dumps(data))
    bos = tokenizer.token_to_id("<s>")
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B",
                                                             special_tokens=[("<s>", bos)])
    return tokenizer


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in [("neox", neox), ("qwen2", qwen2), ("llama3", llama3),
                       ("llama2", lambda: sentencepiece_style(False)), ("metaspace", lambda: sentencepiece_style(True)),
                       ("metaspace_split", lambda: sentencepiece_style(True, "always", True))]:
        tokenizer = make()
        tokenizer.save(os.path.join(OUT, name + ".tokenizer.json"))
        cases = []
        for text in TEXTS:
            encoding = tokenizer.encode(text)
            cases.append({"text": text, "ids": encoding.ids, "tokens": encoding.tokens,
                          "decoded": tokenizer.decode(encoding.ids, skip_special_tokens=True)})
        with open(os.path.join(OUT, name + ".expected.json"), "w", encoding="utf-8") as f:
            json.dump({"tokenizers_version": __import__("tokenizers").__version__, "cases": cases}, f,
                      ensure_ascii=False, indent=1)
    for name, make in [("unigram", unigram)]:
        make().save(os.path.join(OUT, name + ".tokenizer.json"))
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
