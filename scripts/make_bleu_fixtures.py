#!/usr/bin/env python3
"""Writes tests/fixtures/bleu/sacrebleu_cases.json: sacreBLEU's own numbers for tests/test_bleu.cpp.

For each of a few hundred hypothesis/reference corpora (0..20 sentences) it records sacreBLEU's
corpus_bleu (score, precisions, BP, lengths, n-gram counts) and corpus_chrf with their default
settings, and for about a hundred single lines the 13a tokenizer's output. The text is synthetic
(seeded random sentences from the word list below, perturbed), hand-written hard lines (Unicode
punctuation, numbers, HTML entities, hyphens, tabs, non-breaking spaces), and a small sample of
Tatoeba English/French pairs (French writes U+202F before ! ? :), at most MAX_TATOEBA_ROWS rows.

An empty corpus makes sacreBLEU raise IndexError; such corpora are recorded with the error instead
of scores (aw::corpus_bleu scores them 0).

Needs only sacreBLEU:
  python3 -m venv /work/bleu-venv && /work/bleu-venv/bin/pip install sacrebleu
  /work/bleu-venv/bin/python scripts/make_bleu_fixtures.py
"""
import argparse
import json
import random
from pathlib import Path

import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

ROOT = Path(__file__).resolve().parent.parent
SEED = 13
MAX_TATOEBA_ROWS = 600

WORDS = """
the a an of to in on at by for with from about over under between after before during without
cat dog house river city village teacher student doctor child mother father friend neighbour
book letter train car bridge window garden market school station museum kitchen mountain forest
walk walks walked run runs ran read reads wrote write see saw seen find found give gave take took
make made know knew think thought come came go went leave left bring brought open opened close
big small old new young long short red green blue quiet loud early late happy tired warm cold
very quite rather almost never always often sometimes here there today tomorrow yesterday again
and but or because although while if when where who which that this these those it they we she he
I you me him her us them my your his our their its not no yes only also just still even
don't can't it's she'll they're o'clock well-known e-mail long-term
U.S. Dr. Mr. etc. i.e. e.g. 3.5 1,000 2,5 10.000 1.5.2 42 7 2024 19th 3-4 1990-1995 -5 +3 50%
$20 €15 £3 (see) [note] {x} a/b x+y <tag> &amp; &quot;hi&quot; &lt;b&gt; café naïve Zürich
""".split()

# Lines chosen for the 13a rules and for Unicode; each is tokenised alone and used in corpora.
HARD_LINES = [
    "",
    " ",
    "\t",
    "Hello, world!",
    "It's 3.14, not 3,14.",
    "e.g., U.S.A. and i.e. the U.K.",
    "Prices rose 1,000.50 dollars (about 2.5%) in 2019-2020.",
    "Call 555-1234 or 555 - 1234; ext. 5.",
    "The well-known twenty-one-year-old e-mail, --dash-- and - minus.",
    "a,.5 x.,y 1..2 .5 5. ,5 5, 3-4-5 --5",
    "&quot;Quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; &amp;quot; &amp;amp; &#39; &nbsp;",
    "<skipped> text <skipped>after<skipped>",
    "Line with\ttabs\tinside\t",
    "Trailing hyphen-",
    "hy-\nphen and new\nline",
    "« Bonjour » — dit-il… l’homme “quoted” ‘single’",
    "Qu’est-ce que c’est\u202f? Attention\u202f: il fait 20\u00a0°C\u202f!",
    "Non\u00a0breaking\u2009thin\u3000ideographic\u2028line\u2029para\u0085nel",
    "Zero\u200bwidth\ufeffspace stays inside",
    "naïve café Zürich São Paulo Ærøskøbing",
    "Ça va ? Oui ! Très bien : merci.",
    "日本語のテキスト、句読点。「引用」",
    "Emoji 😀 and 👍🏽 (with modifier), 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.",
    "Combining e\u0301 versus é; Ångström vs A\u030angstro\u0308m",
    "Русский текст, с запятыми. И точками!",
    "العربية، مع فاصلة.",
    "{curly} [square] (round) <angle> `tick` ~tilde^caret_underscore|pipe\\backslash",
    "a/b/c 1/2 http://example.com/path?x=1&y=2#frag",
    "$5 €5 £5 ¥5 5% #5 @user *bold* +1 =2",
    "Mr. Smith paid $1,234.56 on 12.03.2021 at 10:30.",
    "version 1.2.3-beta.4, build 2024-01-02",
    "  leading and trailing spaces   ",
    "multiple     internal      spaces",
    "ALL CAPS SENTENCE. all lower sentence.",
    "...ellipsis... and ,,commas,, and ..",
    "'single' \"double\" ''two'' \"\"",
    "1.000.000,00 or 1,000,000.00 or 1 000 000",
    "-1 -1.5 +2.5 3- 4-- -",
    "tab\tseparated\tvalues\t1\t2.5\t-3",
    "x\x1cfile\x1dgroup\x1erecord\x1funit separators",
]

SENTENCE_ENDS = [".", ".", ".", "!", "?", "", "…", " ."]


def random_sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 16))]
    words[0] = words[0][:1].upper() + words[0][1:]
    if len(words) > 4 and rng.random() < 0.4:
        words[rng.randrange(1, len(words) - 1)] += ","
    return " ".join(words) + rng.choice(SENTENCE_ENDS)


def perturb(sentence, rng, edits=None):
    """A hypothesis made from a reference: a few word edits (split on ' ' only, so U+202F and tabs
    stay inside words), now and then a change of case or spacing, rarely an empty line."""
    if rng.random() < 0.04:
        return ""
    words = sentence.split(" ")
    for _ in range(rng.randint(0, 4) if edits is None else edits):
        kind = rng.choice(["drop", "swap", "substitute", "insert", "repeat", "case", "punct"])
        i = rng.randrange(len(words)) if words else 0
        if kind == "drop" and len(words) > 1:
            del words[i]
        elif kind == "swap" and len(words) > 1:
            j = min(i + 1, len(words) - 1)
            words[i], words[j] = words[j], words[i]
        elif kind == "substitute" and words:
            words[i] = rng.choice(WORDS)
        elif kind == "insert":
            words.insert(i, rng.choice(WORDS))
        elif kind == "repeat" and words:
            words.insert(i, words[i])
        elif kind == "case" and words:
            words[i] = words[i].upper() if rng.random() < 0.5 else words[i].lower()
        elif kind == "punct" and words:
            words[i] = words[i].rstrip(".,!?") if rng.random() < 0.5 else words[i] + rng.choice([",", ".", " !"])
    text = " ".join(words)
    roll = rng.random()
    if roll < 0.05:
        text += " \t"
    elif roll < 0.08:
        text = "\t" + text.replace(" ", "  ")
    return text


def read_tatoeba(path, rng):
    """A sample of rows (English, French) and of English sentences with two or more French
    translations (real paraphrases), MAX_TATOEBA_ROWS rows in all."""
    rows = [line.rstrip("\n").split("\t")[:2] for line in path.open(encoding="utf-8")]
    rows = [row for row in rows if len(row) == 2]
    by_english = {}
    for english, french in rows:
        by_english.setdefault(english, []).append(french)
    multiple = [english for english, french in by_english.items() if len(french) >= 2]
    paraphrase_groups = [(english, by_english[english][:3]) for english in rng.sample(multiple, 60)]
    used = sum(len(group) for _, group in paraphrase_groups)
    pairs = rng.sample(rows, MAX_TATOEBA_ROWS - used)
    return pairs, paraphrase_groups


def score(hypotheses, references):
    case = {"hypotheses": hypotheses, "references": references}
    try:
        bleu = sacrebleu.corpus_bleu(hypotheses, [references])
        chrf = sacrebleu.corpus_chrf(hypotheses, [references])
    except Exception as error:  # sacreBLEU raises on an empty corpus
        case["sacrebleu_error"] = f"{type(error).__name__}: {error}"
        return case
    case["bleu"] = {"score": bleu.score, "precisions": list(bleu.precisions), "bp": bleu.bp,
                    "sys_len": bleu.sys_len, "ref_len": bleu.ref_len,
                    "counts": list(bleu.counts), "totals": list(bleu.totals)}
    case["chrf"] = chrf.score
    return case


def make_corpora(rng, pairs, paraphrase_groups):
    corpora = []

    def add(kind, hypotheses, references):
        case = score(hypotheses, references)
        case["kind"] = kind
        corpora.append(case)

    def size():
        return rng.randint(1, 20)

    # Edges first: empty corpora, all-empty lines, empty on one side, short lines (no 4-grams).
    add("empty corpus", [], [])
    add("empty corpus", [], [])
    for n in (1, 3, 20):
        add("all empty", [""] * n, [""] * n)
    add("whitespace only", [" ", "\t", "\u00a0"], ["", " \t ", "\u202f"])
    add("empty hypotheses", ["", "", ""], ["The cat sat.", "A dog ran.", "Hi."])
    add("empty references", ["The cat sat.", "A dog ran."], ["", ""])
    add("identical", ["the cat sat on the mat"], ["the cat sat on the mat"])
    add("identical short", ["the cat"], ["the cat"])
    add("no 4-grams", ["a b c", "d e"], ["a b c", "d e"])
    add("no match", ["x y z w v"], ["a b c d e"])
    add("only unigrams match", ["c a t s"], ["s t a c"])
    add("longer hypothesis", ["the cat sat on the mat today again and again"], ["the cat sat on the mat"])
    add("single character", ["a"], ["a"])
    add("single character mismatch", ["a"], ["b"])
    add("one hard line each", HARD_LINES[3:9], HARD_LINES[3:9])

    for _ in range(70):
        references = [random_sentence(rng) for _ in range(size())]
        add("synthetic", [perturb(line, rng) for line in references], references)
    for _ in range(15):
        references = [random_sentence(rng) for _ in range(size())]
        add("synthetic, heavy edits", [perturb(line, rng, edits=8) for line in references], references)
    for _ in range(10):
        references = [random_sentence(rng) for _ in range(size())]
        add("synthetic, unrelated", [random_sentence(rng) for _ in references], references)
    for _ in range(10):
        references = [rng.choice(["", random_sentence(rng)]) for _ in range(size())]
        add("synthetic, some empty", [rng.choice(["", perturb(line, rng)]) for line in references], references)

    for _ in range(25):
        references = [rng.choice(HARD_LINES) for _ in range(size())]
        add("hard lines", [perturb(line, rng) for line in references], references)

    cursor = 0

    def take(n):
        nonlocal cursor
        taken = pairs[cursor:cursor + n]
        cursor += len(taken)
        return taken

    for _ in range(20):
        rows = take(rng.randint(1, 12))
        add("tatoeba English", [perturb(english, rng) for english, _ in rows], [english for english, _ in rows])
    for _ in range(20):
        rows = take(rng.randint(1, 12))
        add("tatoeba French", [perturb(french, rng) for _, french in rows], [french for _, french in rows])
    for _ in range(8):
        rows = take(rng.randint(1, 6))
        add("tatoeba English vs French", [english for english, _ in rows], [french for _, french in rows])
    for start in range(0, len(paraphrase_groups), 6):
        groups = paraphrase_groups[start:start + 6]
        add("tatoeba French paraphrases", [group[1] for _, group in groups], [group[0] for _, group in groups])
    for _ in range(10):
        references = [rng.choice(HARD_LINES) if rng.random() < 0.3 else rng.choice(pairs)[1] for _ in range(size())]
        add("tatoeba French and hard lines", [perturb(line, rng) for line in references], references)
    return corpora


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tatoeba", type=Path, default=ROOT.parent / "shared/data/tatoeba-eng-fra/eng-fra.tsv")
    parser.add_argument("--out", type=Path, default=ROOT / "tests/fixtures/bleu/sacrebleu_cases.json")
    args = parser.parse_args()

    rng = random.Random(SEED)
    pairs, paraphrase_groups = read_tatoeba(args.tatoeba, rng)
    corpora = make_corpora(rng, pairs, paraphrase_groups)

    tokenizer = Tokenizer13a()
    lines = list(HARD_LINES)
    lines += [english for english, _ in pairs[-20:]] + [french for _, french in pairs[-25:]]
    lines += [perturb(random_sentence(rng), rng) for _ in range(15)]
    tokenized = [{"line": line, "tokens": tokenizer(line)} for line in lines]

    fixture = {"generator": "scripts/make_bleu_fixtures.py", "sacrebleu_version": sacrebleu.__version__,
               "seed": SEED, "tokenize_13a": tokenized, "corpora": corpora}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One corpus or line per row: diffs stay readable, the file stays small.
    with args.out.open("w", encoding="utf-8") as out:
        out.write("{\n")
        for key in ("generator", "sacrebleu_version", "seed"):
            out.write(f" {json.dumps(key)}: {json.dumps(fixture[key])},\n")
        for key in ("tokenize_13a", "corpora"):
            rows = ",\n  ".join(json.dumps(row, ensure_ascii=False) for row in fixture[key])
            out.write(f" {json.dumps(key)}: [\n  {rows}\n ]{',' if key == 'tokenize_13a' else ''}\n")
        out.write("}\n")
    print(f"{args.out}: {len(corpora)} corpora, {len(tokenized)} tokenised lines, "
          f"{args.out.stat().st_size // 1024} KB, sacreBLEU {sacrebleu.__version__}")


if __name__ == "__main__":
    main()
