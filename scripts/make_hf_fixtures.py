#!/usr/bin/env python3
"""Build tiny random Hugging Face translation models and the reference outputs the C++ tests compare to.

What it makes (under tests/fixtures/hf/ unless --out says otherwise):
  marian_tiny/  a MarianMTModel (d_model 16, 2+2 layers, 4 encoder / 2 decoder heads, FFN 32/24, SiLU,
                scaled embeddings, shared embeddings, static sinusoidal positions, non-zero final_logits_bias)
                saved with save_pretrained (model.safetensors, config.json, generation_config.json) and a
                MarianTokenizer (source.spm, target.spm, vocab.json, tokenizer_config.json,
                special_tokens_map.json).
  bart_tiny/    a BartForConditionalGeneration of the same size (GELU, learned positions, unscaled
                embeddings, non-zero final_logits_bias) with a byte-level BPE tokenizer loaded through
                BartTokenizer (vocab.json, merges.txt, tokenizer.json, tokenizer_config.json,
                special_tokens_map.json).
  Each folder also gets reference.json (token ids, greedy and beam-search outputs, losses, the generation
  settings) and reference.safetensors (float32 logits, attention maps and encoder states) that the C++
  tests compare against to 1e-4.
  The weights are random (fixed seeds), not a trained model. The two SentencePiece models and the byte-level
  BPE are trained on about 300 lines of the Tatoeba English-French pairs (manythings.org eng-fra.tsv,
  CC BY 2.0, attribution www.manythings.org/anki and tatoeba.org); only the trained tokenizer files are kept.

Requirements (development time only: the tests and CI use the committed output and never run this):
  pip install transformers torch sentencepiece tokenizers
  (safetensors and numpy come with them; sacremoses is not needed).
Versions that made the committed files: Python 3.11, transformers 5.23.0, torch 2.15.0,
sentencepiece 0.2.3, tokenizers 0.23.3, safetensors 0.8.0 (reference.json records them too).
Other versions may give other bytes or other modelling code: check the self-checks' output.

Run from the repository root:
  python3 scripts/make_hf_fixtures.py --tatoeba /path/to/eng-fra.tsv [--out tests/fixtures/hf]
Seeds are fixed (torch.manual_seed, random.Random, sentencepiece's generator) and everything runs on one
CPU thread, so a rerun with the same versions writes the same files. The script checks its own results:
the saved folders reload to the same tensors, MarianTokenizer / BartTokenizer load them, the batched case
matches the single cases, and a plain re-implementation of greedy and beam search (no KV cache) gives the
ids that model.generate gave.
"""
import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
import sentencepiece  # noqa: E402
import tokenizers  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from tokenizers import ByteLevelBPETokenizer  # noqa: E402
from transformers import (  # noqa: E402
    BartConfig,
    BartForConditionalGeneration,
    BartTokenizer,
    GenerationConfig,
    MarianConfig,
    MarianMTModel,
    MarianTokenizer,
)
from transformers.models.bart import modeling_bart  # noqa: E402
from transformers.models.marian import modeling_marian  # noqa: E402

DATA_SEED = 1234   # which Tatoeba lines the tokenizers are trained on; sentencepiece's generator
# torch.manual_seed of the random weights, and a boost added to final_logits_bias[eos] so that some
# generations end before max_new_tokens. Chosen (among seeds 1-40) for varied outputs, some ending with EOS,
# beam results that differ from greedy ones, and decisions far from ties (see the margins in reference.json).
WEIGHTS = {"marian": (33, 3.5), "bart": (17, 5.5)}
REPO = Path(__file__).resolve().parent.parent
DEFAULT_TATOEBA = "/work/shared/data/tatoeba-eng-fra/eng-fra.tsv"

# Four English/French pairs: a short one, accents on both sides, a question, a source of about 20 tokens.
CASES = [
    ("I am hungry.", "J'ai faim."),
    ("She is at the café.", "Elle est au café."),
    ("Where is the station?", "Où est la gare ?"),
    ("We went to the market this morning.", "Nous sommes allés au marché ce matin."),
]
BATCH_CASES = (0, 3)  # the batched case pads these two together (different lengths)

MAX_NEW_TOKENS = 12
NEUTRAL_GENERATION = dict(
    do_sample=False,
    max_new_tokens=MAX_NEW_TOKENS,
    min_length=0,
    no_repeat_ngram_size=0,
    repetition_penalty=1.0,
    bad_words_ids=None,
    forced_bos_token_id=None,
    forced_eos_token_id=None,
)
GREEDY_KWARGS = dict(NEUTRAL_GENERATION, num_beams=1)
BEAM_KWARGS = dict(NEUTRAL_GENERATION, num_beams=3, length_penalty=1.0, early_stopping=False,
                   num_return_sequences=1)
EFFECTIVE_KEYS = ["decoder_start_token_id", "bos_token_id", "eos_token_id", "pad_token_id", "max_length",
                  "max_new_tokens", "min_length", "min_new_tokens", "num_beams", "do_sample", "length_penalty",
                  "early_stopping", "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "repetition_penalty",
                  "encoder_repetition_penalty", "bad_words_ids", "forced_bos_token_id", "forced_eos_token_id",
                  "suppress_tokens", "begin_suppress_tokens", "remove_invalid_values",
                  "exponential_decay_length_penalty", "sequence_bias", "num_return_sequences", "use_cache"]

# Head mask of the head-mask reference (1 keeps a head, 0 masks it).
HEAD_MASK = {
    "encoder": [[1, 0, 1, 1], [1, 1, 1, 1]],  # encoder self-attention: layer 0 head 1
    "decoder": [[1, 1], [0, 1]],              # decoder self-attention: layer 1 head 0
    "cross": [[1, 0], [1, 1]],                # cross-attention: layer 0 head 1
}


def log(*args):
    print(*args, flush=True)


# --------------------------------------------------------------------------------------------- data

def pick_lines(tsv, count, cover_en, cover_fr):
    """count Tatoeba pairs chosen with a fixed seed, plus the shortest pair holding any character of the
    fixture sentences that the choice lacks (so the SentencePiece models do not map it to <unk>)."""
    rows = []
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and 8 <= len(parts[0]) <= 80 and 8 <= len(parts[1]) <= 90:
                rows.append((parts[0], parts[1]))
    rng = random.Random(DATA_SEED)
    chosen = [rows[i] for i in sorted(rng.sample(range(len(rows)), count))]
    for side, texts in ((0, cover_en), (1, cover_fr)):
        have = set("".join(r[side] for r in chosen))
        for ch in sorted(set("".join(texts)) - have - {" "}):
            holders = [r for r in rows if ch in r[side]]
            if holders:
                chosen.append(min(holders, key=lambda r: (len(r[side]), r)))
    return chosen


# ---------------------------------------------------------------------------------------- weights

def randomize(model, seed, eos_bias, skip=()):
    """Replace the default init (std 0.02, which gives near-uniform attention and flat logits) by a livelier
    one so that the references discriminate: linear weights N(0, 0.3^2), biases N(0, 0.1^2), token and
    learned position embeddings N(0, 1), LayerNorm weight 1 + N(0, 0.1^2) and bias N(0, 0.1^2), and a
    non-zero final_logits_bias N(0, 0.1^2) with eos_bias added at the EOS id. Tied weights are one
    Parameter, so they stay tied."""
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if any(s in name for s in skip):
                continue
            if "layer_norm" in name or "layernorm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(p.shape))
            elif name.endswith(".bias"):
                p.copy_(0.1 * torch.randn(p.shape))
            elif "embed" in name or "shared" in name:
                p.copy_(torch.randn(p.shape))
            else:
                p.copy_(0.3 * torch.randn(p.shape))
        model.final_logits_bias.copy_(0.1 * torch.randn(model.final_logits_bias.shape))
        model.final_logits_bias[0, model.config.eos_token_id] += eos_bias


def neutral_generation_config(cfg):
    return GenerationConfig(
        decoder_start_token_id=cfg.decoder_start_token_id,
        bos_token_id=cfg.bos_token_id,
        eos_token_id=cfg.eos_token_id,
        pad_token_id=cfg.pad_token_id,
        num_beams=1,
        length_penalty=1.0,
        early_stopping=False,
        **NEUTRAL_GENERATION,
    )


def write_generation_config(model, folder):
    """save_pretrained leaves out values equal to the library defaults; write the neutral ones explicitly."""
    path = folder / "generation_config.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in ("min_length", "no_repeat_ngram_size", "repetition_penalty", "bad_words_ids",
                "forced_bos_token_id", "forced_eos_token_id", "do_sample", "num_beams", "length_penalty",
                "early_stopping", "max_new_tokens", "bos_token_id"):
        data[key] = getattr(model.generation_config, key)
    path.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------------------ tokenizers

def train_spm(lines, vocab_size, path):
    sentencepiece.set_random_generator_seed(DATA_SEED)
    buf = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, model_type="unigram", vocab_size=vocab_size,
        character_coverage=1.0, normalization_rule_name="identity", num_threads=1, shuffle_input_sentence=False,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, minloglevel=2)
    path.write_bytes(buf.getvalue())


def write_special_tokens_map(folder, tok):
    """transformers 5 no longer writes special_tokens_map.json; Hub repositories made with 4.x have it."""
    names = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
    data = {n: str(getattr(tok, n)) for n in names if getattr(tok, n, None) is not None}
    (folder / "special_tokens_map.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def build_marian_tokenizer(pairs, folder, work):
    src_spm, tgt_spm = work / "source.spm", work / "target.spm"
    train_spm([e for e, _ in pairs], 120, src_spm)
    train_spm([f for _, f in pairs], 120, tgt_spm)
    # Joint vocabulary as the Opus-MT models have it: </s>=0, <unk>=1, the source pieces then the target
    # pieces not already present (SentencePiece order), <pad> last. <s> is not used by Marian.
    vocab = {"</s>": 0, "<unk>": 1}
    for spm_path in (src_spm, tgt_spm):
        sp = sentencepiece.SentencePieceProcessor(model_file=str(spm_path))
        for i in range(sp.get_piece_size()):
            if sp.is_control(i) or sp.is_unknown(i):
                continue
            vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    (work / "vocab.json").write_text(json.dumps(vocab, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
        tok = MarianTokenizer(source_spm=str(src_spm), target_spm=str(tgt_spm), vocab=str(work / "vocab.json"),
                              source_lang="en", target_lang="fr")
        tok.save_pretrained(str(folder))
        write_special_tokens_map(folder, tok)
        tok = MarianTokenizer.from_pretrained(str(folder))
    assert tok.get_vocab() == vocab and len(tok) == len(vocab)
    assert tok.eos_token_id == 0 and tok.unk_token_id == 1 and tok.pad_token_id == len(vocab) - 1
    return tok


def build_bart_tokenizer(pairs, folder, work):
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator([e for e, _ in pairs], vocab_size=299, min_frequency=2,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False)
    bpe.save_model(str(work))
    vocab = json.loads((work / "vocab.json").read_text(encoding="utf-8"))
    vocab["<mask>"] = len(vocab)  # <mask> last, as in the RoBERTa/BART vocabularies
    (work / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False) + "\n", encoding="utf-8")
    plain = BartTokenizer.from_pretrained(str(work))  # from vocab.json + merges.txt alone
    plain.save_pretrained(str(folder))
    write_special_tokens_map(folder, plain)
    for name in ("vocab.json", "merges.txt"):  # keep the plain files next to tokenizer.json
        if not (folder / name).exists():
            shutil.copyfile(work / name, folder / name)
    tok = BartTokenizer.from_pretrained(str(folder))
    ids = {t: tok.convert_tokens_to_ids(t) for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")}
    assert ids == {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": len(vocab) - 1}, ids
    assert tok.bos_token_id == 0 and tok.pad_token_id == 1 and tok.eos_token_id == 2
    assert tok.mask_token_id == len(vocab) - 1 and len(tok) == len(vocab)
    for text in [t for pair in CASES for t in pair]:  # tokenizer.json and vocab.json + merges.txt agree
        assert tok(text).input_ids == plain(text).input_ids
    return tok


# -------------------------------------------------------------------------------------- head mask

@contextlib.contextmanager
def head_mask_attention(*modeling_modules):
    """transformers 5 removed head_mask / decoder_head_mask / cross_attn_head_mask. This puts back their old
    meaning (transformers 4.x): the post-softmax attention probabilities of head h are multiplied by
    mask[h] before they weight the values. The eager attention function is swapped for a copy that does
    the same arithmetic and reads the mask from the attention module (attribute _fixture_head_mask)."""
    saved = [m.eager_attention_forward for m in modeling_modules]

    def eager_with_head_mask(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        if scaling is None:
            scaling = query.size(-1) ** -0.5
        weights = torch.matmul(query, key.transpose(2, 3)) * scaling
        if attention_mask is not None:
            weights = weights + attention_mask
        weights = torch.nn.functional.softmax(weights, dim=-1)
        mask = getattr(module, "_fixture_head_mask", None)
        if mask is not None:
            weights = weights * mask.view(1, -1, 1, 1)
        output = torch.matmul(weights, value).transpose(1, 2).contiguous()
        return output, weights

    for m in modeling_modules:
        m.eager_attention_forward = eager_with_head_mask
    try:
        yield
    finally:
        for m, f in zip(modeling_modules, saved):
            m.eager_attention_forward = f


def set_head_mask(model, head_mask):
    for kind, layers, attr in (("encoder", model.model.encoder.layers, "self_attn"),
                               ("decoder", model.model.decoder.layers, "self_attn"),
                               ("cross", model.model.decoder.layers, "encoder_attn")):
        for layer, row in zip(layers, head_mask[kind] if head_mask else [None] * len(layers)):
            module = getattr(layer, attr)
            if row is None:
                module.__dict__.pop("_fixture_head_mask", None)
            else:
                module._fixture_head_mask = torch.tensor(row, dtype=torch.float32)


# ---------------------------------------------------------------------------- plain greedy / beam

@torch.no_grad()
def step_log_probs(model, enc_out, attention_mask, prefixes):
    """log_softmax of the next-token logits of each prefix, recomputing the whole decoder (no cache)."""
    n = len(prefixes)
    dec = torch.tensor(prefixes, dtype=torch.long)
    out = model(encoder_outputs=(enc_out.expand(n, -1, -1),), attention_mask=attention_mask.expand(n, -1),
                decoder_input_ids=dec, use_cache=False)
    return torch.log_softmax(out.logits[:, -1, :].float(), dim=-1)


@torch.no_grad()
def plain_greedy(model, input_ids, attention_mask):
    cfg = model.generation_config
    enc_out = model.get_encoder()(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    seq, margins = [cfg.decoder_start_token_id], []
    max_length = 1 + MAX_NEW_TOKENS
    while len(seq) < max_length:
        lp = step_log_probs(model, enc_out, attention_mask, [seq])[0]
        top2 = torch.topk(lp, 2)
        margins.append(float(top2.values[0] - top2.values[1]))
        seq.append(int(top2.indices[0]))
        if seq[-1] == cfg.eos_token_id:
            break
    return seq, min(margins)


@torch.no_grad()
def plain_beam(model, input_ids, attention_mask, num_beams, length_penalty):
    """Beam search with the rules of transformers 5 (early_stopping=False, one EOS id, batch of one).
    Returns the best finished ids, its score and the smallest decision margin (how far the choices that
    shaped the result were from a tie)."""
    cfg = model.generation_config
    eos = cfg.eos_token_id
    enc_out = model.get_encoder()(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    max_length, prompt_len = 1 + MAX_NEW_TOKENS, 1
    running = [[cfg.decoder_start_token_id]] * num_beams
    running_scores = [0.0] + [-1e9] * (num_beams - 1)
    finished = []  # (normalized score, ids), best first, at most num_beams
    done = False
    cur_len = 1
    margins = []
    while True:
        lp = step_log_probs(model, enc_out, attention_mask, running)
        total = (lp + torch.tensor(running_scores)[:, None]).reshape(-1)
        vocab = lp.shape[-1]
        wide = []
        for rank, (s, idx) in enumerate(zip(*[t.tolist() for t in torch.topk(total, 3 * num_beams)])):
            ids = running[idx // vocab] + [idx % vocab]
            wide.append((rank, s, ids, ids[-1] == eos or len(ids) >= max_length))
        cands = wide[:2 * num_beams]  # the 2 * num_beams best continuations of all beams
        # margins: the last running beam vs the next open candidate, each stopping candidate vs the
        # rank-num_beams boundary
        open_scores = [s for _, s, _, stops in wide if not stops and s > -1e8]
        if len(open_scores) > num_beams:
            margins.append(open_scores[num_beams - 1] - open_scores[num_beams])
        for rank, s, _, stops in wide:
            if stops and s > -1e8:
                margins.append(s - wide[num_beams][1] if rank < num_beams else wide[num_beams - 1][1] - s)
        # finished hypotheses: only stopping candidates among the first num_beams, scored by the sum of
        # log-probabilities / (generated length, EOS included, decoder start excluded) ** length_penalty;
        # none are added once the search is settled
        if not done:
            merged = finished + [(s / ((cur_len + 1 - prompt_len) ** length_penalty), ids)
                                 for rank, s, ids, stops in cands if stops and rank < num_beams]
            merged.sort(key=lambda t: -t[0])
            if len(merged) > num_beams:
                margins.append(merged[num_beams - 1][0] - merged[num_beams][0])
            finished = merged[:num_beams]
        # running beams: the best num_beams candidates that did not stop
        alive = sorted(cands, key=lambda c: -(c[1] - (1e9 if c[3] else 0.0)))[:num_beams]
        running = [c[2] for c in alive]
        running_scores = [c[1] - (1e9 if c[3] else 0.0) for c in alive]
        cur_len += 1
        # settled: num_beams finished and the best running beam, scored at its current length, is no better
        if len(finished) == num_beams and not done:
            best_possible = running_scores[0] / ((cur_len - prompt_len) ** length_penalty)
            worst_finished = min(f[0] for f in finished)
            if best_possible > -1e8:
                margins.append(abs(best_possible - worst_finished))
            done = best_possible <= worst_finished
        if done or all(c[3] for c in cands):
            break
    if len(finished) > 1:
        margins.append(finished[0][0] - finished[1][0])
    return finished[0][1], finished[0][0], min(margins)


# --------------------------------------------------------------------------------------- references

def tensor_to_list(t):
    return t.tolist()


@torch.no_grad()
def forward(model, input_ids, attention_mask, decoder_input_ids, decoder_attention_mask=None, labels=None):
    return model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids,
                 decoder_attention_mask=decoder_attention_mask, labels=labels, output_attentions=True,
                 use_cache=False, return_dict=True)


def store_forward(tensors, prefix, out):
    tensors[f"{prefix}.logits"] = out.logits
    tensors[f"{prefix}.encoder_hidden"] = out.encoder_last_hidden_state
    for kind, maps in (("encoder_attention", out.encoder_attentions),
                       ("decoder_attention", out.decoder_attentions),
                       ("cross_attention", out.cross_attentions)):
        for layer, m in enumerate(maps):
            tensors[f"{prefix}.{kind}.{layer}"] = m


def make_references(model, tok, folder, shift_tokens_right, modeling_module, extra_model_info):
    cfg = model.config
    pad, start = cfg.pad_token_id, cfg.decoder_start_token_id
    tensors, cases = {}, []
    for i, (src, tgt) in enumerate(CASES):
        enc = tok(src, return_tensors="pt")
        labels = tok(text_target=tgt, return_tensors="pt").input_ids
        dec_in = shift_tokens_right(labels, pad, start)
        out = forward(model, enc.input_ids, enc.attention_mask, dec_in, labels=labels)
        # the model's own shift gives the same decoder inputs, and the loss is plain mean cross-entropy
        out2 = model(input_ids=enc.input_ids, attention_mask=enc.attention_mask, labels=labels, use_cache=False)
        assert torch.equal(out2.logits, out.logits)
        ce = torch.nn.functional.cross_entropy(out.logits.view(-1, out.logits.shape[-1]), labels.view(-1))
        assert torch.allclose(ce, out.loss, atol=1e-6, rtol=0)
        store_forward(tensors, f"case{i}", out)

        greedy = model.generate(**enc, **GREEDY_KWARGS)
        beam = model.generate(**enc, **BEAM_KWARGS, output_scores=True, return_dict_in_generate=True)
        plain_g, margin = plain_greedy(model, enc.input_ids, enc.attention_mask)
        plain_b, plain_b_score, beam_gap = plain_beam(model, enc.input_ids, enc.attention_mask,
                                            BEAM_KWARGS["num_beams"], BEAM_KWARGS["length_penalty"])
        assert greedy[0].tolist() == plain_g, (greedy[0].tolist(), plain_g)
        assert beam.sequences[0].tolist() == plain_b, (beam.sequences[0].tolist(), plain_b)
        assert abs(float(beam.sequences_scores[0]) - plain_b_score) < 1e-4
        cases.append({
            "source": src,
            "target": tgt,
            "input_ids": tensor_to_list(enc.input_ids[0]),
            "labels": tensor_to_list(labels[0]),
            "decoder_input_ids": tensor_to_list(dec_in[0]),
            "loss": float(out.loss),
            "greedy_ids": greedy[0].tolist(),
            "greedy_text": tok.decode(greedy[0], skip_special_tokens=True),
            "greedy_min_top2_logprob_margin": margin,
            "beam_ids": beam.sequences[0].tolist(),
            "beam_text": tok.decode(beam.sequences[0], skip_special_tokens=True),
            "beam_score": float(beam.sequences_scores[0]),
            "beam_min_decision_margin": beam_gap,
            "n_src": enc.input_ids.shape[1],
            "n_tgt": labels.shape[1],
        })
        log(f"  case{i}: n_src {cases[-1]['n_src']} n_tgt {cases[-1]['n_tgt']} loss {cases[-1]['loss']:.4f} "
            f"greedy {cases[-1]['greedy_ids']} beam {cases[-1]['beam_ids']} margins {margin:.3g} {beam_gap:.3g}")

    # batched case: two sources of different lengths padded together (right padding, pad id)
    a, b = BATCH_CASES
    srcs, tgts = [CASES[a][0], CASES[b][0]], [CASES[a][1], CASES[b][1]]
    enc = tok(srcs, padding=True, return_tensors="pt")
    labels = tok(text_target=tgts, padding=True, return_tensors="pt")
    dec_in = shift_tokens_right(labels.input_ids, pad, start)
    dec_mask = labels.attention_mask  # 1 on the start token and the real shifted labels, 0 on the padding
    loss_labels = labels.input_ids.masked_fill(labels.attention_mask == 0, -100)
    out = forward(model, enc.input_ids, enc.attention_mask, dec_in, dec_mask, labels=loss_labels)
    store_forward(tensors, "batch", out)
    for row, ci in enumerate(BATCH_CASES):  # the padded batch reproduces the single cases
        ns, nt = cases[ci]["n_src"], cases[ci]["n_tgt"]
        assert torch.allclose(out.logits[row, :nt], tensors[f"case{ci}.logits"][0], atol=1e-5, rtol=0)
        assert torch.allclose(out.encoder_last_hidden_state[row, :ns], tensors[f"case{ci}.encoder_hidden"][0],
                              atol=1e-5, rtol=0)
    batch = {
        "cases": list(BATCH_CASES),
        "sources": srcs,
        "targets": tgts,
        "input_ids": enc.input_ids.tolist(),
        "attention_mask": enc.attention_mask.tolist(),
        "labels": labels.input_ids.tolist(),
        "decoder_input_ids": dec_in.tolist(),
        "decoder_attention_mask": dec_mask.tolist(),
        "loss_labels": loss_labels.tolist(),
        "loss": float(out.loss),
        "notes": "Right padding with pad_token_id. labels = tokenizer(text_target=targets, padding=True); "
                 "decoder_input_ids = shift_tokens_right(labels); decoder_attention_mask (passed to the model) = "
                 "the labels' attention mask; loss_labels = labels with -100 on padding (ignored by the loss, "
                 "mean over the real tokens of both rows). Rows restricted to their real positions equal the "
                 "single cases' tensors (checked to 1e-5).",
    }

    # head-mask reference: emulated (see head_mask_attention), logits of case 0
    enc = tok(CASES[0][0], return_tensors="pt")
    labels = tok(text_target=CASES[0][1], return_tensors="pt").input_ids
    dec_in = shift_tokens_right(labels, pad, start)
    with head_mask_attention(modeling_module):
        set_head_mask(model, None)
        same = forward(model, enc.input_ids, enc.attention_mask, dec_in)
        assert torch.equal(same.logits, tensors["case0.logits"]), "the attention copy differs from eager"
        set_head_mask(model, HEAD_MASK)
        masked = forward(model, enc.input_ids, enc.attention_mask, dec_in)
        set_head_mask(model, None)
    assert masked.encoder_attentions[0][0, 1].abs().max() == 0
    assert masked.decoder_attentions[1][0, 0].abs().max() == 0
    assert masked.cross_attentions[0][0, 1].abs().max() == 0
    tensors["case0.logits_headmask"] = masked.logits
    head_mask = {
        "tensor": "case0.logits_headmask",
        "case": 0,
        "mask": HEAD_MASK,
        "supported_by_library": False,
        "how": "transformers 5 has no head_mask / decoder_head_mask / cross_attn_head_mask arguments any more. "
               "The reference emulates their transformers-4 meaning: in each attention the post-softmax "
               "probabilities of head h (shape [batch, heads, q, k]) are multiplied by mask[layer][h] before "
               "they weight the values (a masked head contributes zeros to the concatenated head outputs, the "
               "out_proj bias still applies). encoder = encoder self-attention [layers][heads], decoder = "
               "decoder self-attention, cross = decoder cross-attention. The model's eager attention function "
               "was replaced by a copy with this one extra multiplication (the copy reproduces case0.logits "
               "exactly when nothing is masked).",
    }

    tensors = {k: v.detach().to(torch.float32).contiguous() for k, v in tensors.items()}
    save_file(tensors, str(folder / "reference.safetensors"), metadata={"format": "pt"})
    os.chmod(folder / "reference.safetensors", 0o644)

    effective = {}
    for name, kwargs in (("greedy", GREEDY_KWARGS), ("beam", BEAM_KWARGS)):
        # the settings generate() runs with: call kwargs > generation_config.json > library defaults
        gen, _ = model._prepare_generation_config(None, **kwargs)
        effective[name] = {k: getattr(gen, k, None) for k in EFFECTIVE_KEYS}
        effective[name]["max_length"] = 1 + MAX_NEW_TOKENS  # generate: max_new_tokens + decoder prompt length 1
    reference = {
        "generator": "scripts/make_hf_fixtures.py",
        "versions": versions(),
        "tolerance": 1e-4,
        "model": dict(extra_model_info, vocab_size=cfg.vocab_size, d_model=cfg.d_model,
                      pad_token_id=pad, eos_token_id=cfg.eos_token_id, bos_token_id=cfg.bos_token_id,
                      decoder_start_token_id=start, attn_implementation=model.config._attn_implementation,
                      final_logits_bias_nonzero=bool(model.final_logits_bias.abs().max() > 0)),
        "generation": {
            "greedy_kwargs": GREEDY_KWARGS,
            "beam_kwargs": BEAM_KWARGS,
            "effective": effective,
            "notes": "generate(input_ids, attention_mask, **kwargs) on one source at a time (batch of 1). "
                     "greedy_ids / beam_ids are the returned decoder sequences: they start with "
                     "decoder_start_token_id and end with eos_token_id unless max_length = 1 + max_new_tokens "
                     "was reached. No logits processor is active (all neutral). beam_score = the returned "
                     "sequences_scores: sum of the log_softmax of the chosen tokens divided by "
                     "(number of generated tokens, EOS included, decoder start excluded) ** length_penalty. "
                     "greedy_min_top2_logprob_margin = the smallest gap between the best and second-best "
                     "next-token log-probability along the greedy path; beam_min_decision_margin = the "
                     "smallest score difference behind a choice of the beam search (which beams run on, which "
                     "finished hypotheses are kept, when it stops, which one wins): how far it was from a tie.",
        },
        "cases": cases,
        "batch": batch,
        "head_mask": head_mask,
        "tensors": {k: list(v.shape) for k, v in sorted(tensors.items())},
        "tensor_notes": "reference.safetensors, float32: {case}.logits [B, n_tgt, V] (final_logits_bias "
                        "included); {case}.encoder_hidden [B, n_src, d] = encoder last_hidden_state; "
                        "{case}.encoder_attention.{layer} [B, H_enc, n_src, n_src], "
                        "{case}.decoder_attention.{layer} [B, H_dec, n_tgt, n_tgt], "
                        "{case}.cross_attention.{layer} [B, H_dec, n_tgt, n_src] (post-softmax, eager "
                        "attention); case = case0..case3 (B = 1) or batch (B = 2). The forward pass uses "
                        "decoder_input_ids (the shifted labels), not the generated ids.",
    }
    write_json(folder / "reference.json", reference)


def versions():
    return {"python": sys.version.split()[0], "transformers": transformers.__version__,
            "torch": torch.__version__, "sentencepiece": sentencepiece.__version__,
            "tokenizers": tokenizers.__version__, "safetensors": safetensors.__version__,
            "numpy": np.__version__}


def write_json(path, data):
    text = json.dumps(data, indent=2, ensure_ascii=False)
    # one line for each list of plain numbers
    text = re.sub(r"\[([\s\d.eE+,-]+)\]", lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                  text)
    path.write_text(text + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------- the models

def check_reload(model, cls, folder):
    loaded = cls.from_pretrained(str(folder), attn_implementation="eager").eval()
    a, b = model.state_dict(), loaded.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), f"{k} differs after reload"
    assert loaded.lm_head.weight.data_ptr() == loaded.model.shared.weight.data_ptr()
    return loaded


def make_marian(pairs, out, work):
    folder = out / "marian_tiny"
    folder.mkdir(parents=True)
    tok = build_marian_tokenizer(pairs, folder, work / "marian")
    vocab_size = len(tok.get_vocab())
    pad = tok.pad_token_id
    cfg = MarianConfig(
        vocab_size=vocab_size, decoder_vocab_size=vocab_size, d_model=16, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24,
        max_position_embeddings=64, activation_function="swish", scale_embedding=True,
        share_encoder_decoder_embeddings=True, tie_word_embeddings=True, dropout=0.0, attention_dropout=0.0,
        activation_dropout=0.0, pad_token_id=pad, eos_token_id=tok.eos_token_id, decoder_start_token_id=pad,
        bos_token_id=None, forced_eos_token_id=None)
    model = MarianMTModel._from_config(cfg, attn_implementation="eager").eval()
    randomize(model, *WEIGHTS["marian"], skip=("embed_positions",))  # the sinusoidal table stays as Marian builds it
    model.generation_config = neutral_generation_config(cfg)
    model.save_pretrained(str(folder), safe_serialization=True)
    os.chmod(folder / "model.safetensors", 0o644)
    write_generation_config(model, folder)
    model = check_reload(model, MarianMTModel, folder)
    make_references(model, tok, folder, modeling_marian.shift_tokens_right, modeling_marian,
                    {"class": "MarianMTModel", "tokenizer": "MarianTokenizer"})


def make_bart(pairs, out, work):
    folder = out / "bart_tiny"
    folder.mkdir(parents=True)
    tok = build_bart_tokenizer(pairs, folder, work / "bart")
    cfg = BartConfig(
        vocab_size=len(tok), d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=24, max_position_embeddings=64,
        activation_function="gelu", scale_embedding=False, tie_word_embeddings=True, dropout=0.0,
        attention_dropout=0.0, activation_dropout=0.0, classifier_dropout=0.0, pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, decoder_start_token_id=tok.eos_token_id,
        forced_eos_token_id=None, forced_bos_token_id=None)
    model = BartForConditionalGeneration._from_config(cfg, attn_implementation="eager").eval()
    randomize(model, *WEIGHTS["bart"])
    model.generation_config = neutral_generation_config(cfg)
    model.save_pretrained(str(folder), safe_serialization=True)
    os.chmod(folder / "model.safetensors", 0o644)
    write_generation_config(model, folder)
    model = check_reload(model, BartForConditionalGeneration, folder)
    make_references(model, tok, folder, modeling_bart.shift_tokens_right, modeling_bart,
                    {"class": "BartForConditionalGeneration", "tokenizer": "BartTokenizer (RobertaTokenizer)"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tatoeba", default=os.environ.get("TATOEBA_ENG_FRA", DEFAULT_TATOEBA),
                        help="eng-fra.tsv from manythings.org (English<TAB>French per line)")
    parser.add_argument("--out", default=str(REPO / "tests" / "fixtures" / "hf"))
    parser.add_argument("--lines", type=int, default=300, help="Tatoeba pairs the tokenizers are trained on")
    args = parser.parse_args()
    if not Path(args.tatoeba).is_file():
        parser.error(f"no Tatoeba file at {args.tatoeba} (pass --tatoeba or set TATOEBA_ENG_FRA)")

    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    out = Path(args.out)
    pairs = pick_lines(args.tatoeba, args.lines, [s for s, _ in CASES], [t for _, t in CASES])
    log(f"{len(pairs)} Tatoeba pairs for the tokenizers")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "marian").mkdir()
        (work / "bart").mkdir()
        for name in ("marian_tiny", "bart_tiny"):
            shutil.rmtree(out / name, ignore_errors=True)
        log("marian_tiny")
        make_marian(pairs, out, work)
        log("bart_tiny")
        make_bart(pairs, out, work)
    for name in ("marian_tiny", "bart_tiny"):
        for f in sorted((out / name).iterdir()):
            log(f"  {f.relative_to(out)}  {f.stat().st_size} bytes")


if __name__ == "__main__":
    main()
