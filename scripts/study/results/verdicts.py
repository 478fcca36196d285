"""The papers side by side: one row per artefact the papers list (../shared/papers/README.md) — the paper's
number, ours with its interval, and a verdict with its reason. Sections add their rows as they read their
results (add), each judged by the one rule below (rule); summary() writes the table the page opens with and
counts claims, not rows; artefacts() adds the rows no step measures.
"""
import math

from .cells import num, table

PAPERS = ("Bird-Eye", "Michel", "LAMA")

VERDICTS = ("reproduced", "consistent", "inconclusive", "not reproduced", "not comparable")

# The rule, stated once: the page prints it and rule() applies it.
RULE = ("**reproduced**: the paper reports an effect and ours is the same effect, significant, in the paper's "
        "direction, at a size our interval holds where the two can be set on one scale; **consistent**: the paper reports no effect and ours finds none either, with the smallest effect "
        "our data could have detected stated beside it; **inconclusive**: the paper reports an effect and ours is not "
        "significant, with that smallest detectable effect, so the reader sees whether the paper's effect was within "
        "reach; **not reproduced**: ours is significant the other way (or, where the paper reports no effect, "
        "significant at all), or the paper's effect size lies outside our interval; **not comparable**: another "
        "model, task or protocol, or not run. The smallest detectable effect is the one our test finds with 80 % "
        "power at α = 0.05: 2.8 standard errors, read from the 95 % interval's width (width ÷ 3.92 × 2.8).")

# Where a verdict needs the smallest detectable effect beside it.
NEEDS_DETECTABLE = ("consistent", "inconclusive")


def rule(paper_direction, ours_direction, ours_significant, paper_size_inside=None):
    """The verdict on one tested claim.
    paper_direction: +1 or −1, the direction of the effect the paper reports; 0 where it reports none.
    ours_direction: the sign of our estimate (+1, −1, 0); ours_significant: our test's call.
    paper_size_inside: whether the paper's effect size, set on our scale, lies inside our 95 % interval
    (None where the two cannot be set on one scale)."""
    if paper_direction not in (-1, 0, 1) or ours_direction not in (-1, 0, 1):
        raise ValueError("directions are −1, 0 or +1")
    if paper_direction == 0:
        return "not reproduced" if ours_significant else "consistent"
    if paper_size_inside is False:
        return "not reproduced"  # the same direction at another size is not the same effect
    if ours_significant:
        return "reproduced" if ours_direction == paper_direction else "not reproduced"
    return "inconclusive"


def detectable(low, high, digits=2, unit="", reference=None):
    """The smallest effect detectable with 80 % power at α = 0.05, from a 95 % interval [low, high]:
    2.8 standard errors, the standard error being the width ÷ 3.92; '±0.86 perplexity (0.5 %)'."""
    size = (float(high) - float(low)) / 3.92 * 2.8
    text = f"±{num(size, digits)}" + (f" {unit}" if unit else "")
    if reference:
        text += f" ({num(size / abs(float(reference)) * 100, 1)} %)"
    return text


def inside(value, low, high):
    """Whether a value lies in [low, high]."""
    return float(low) <= float(value) <= float(high)


def add(report, paper, artefact, theirs, ours, verdict, why, detectable_effect=None, claim=None):
    """One row of the side-by-side table. A consistent or inconclusive verdict must say how small an effect
    ours could have seen (detectable_effect). Rows that rest on the same evidence or test the same claim of
    the paper share a claim (default: the artefact), which the tally counts once."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict '{verdict}' is not one of {VERDICTS}")
    if verdict in NEEDS_DETECTABLE and not detectable_effect:
        raise ValueError(f"{paper} {artefact}: a '{verdict}' verdict needs the smallest detectable effect")
    if detectable_effect:
        why += f"; smallest effect detectable here {detectable_effect}"
    report.verdicts.append((paper, artefact, theirs, ours, verdict, why, claim or f"{paper}: {artefact}"))


def relative(value, reference):
    """A change in percent of the reference, '+2.9 %'; '—' without a reference."""
    try:
        change = (float(value) / float(reference) - 1) * 100
    except (TypeError, ValueError, ZeroDivisionError):
        return "—"
    digits = 2 if abs(change) < 0.1 else 1
    return f"{change:+.{digits}f} %".replace("-", "−")


def harmonic(n):
    """H_n for a real n (the asymptotic series; n here is tens of tokens, where it is exact to 1e-9)."""
    return math.log(n) + 0.5772156649 + 1 / (2 * n) - 1 / (12 * n * n)


def uniform_ratio(n):
    """CA / HA(μ) of uniform causal attention over windows of n tokens: each row i spreads 1/(i+1) over
    its keys, so CA = H_n / n and HA(μ) = 2 (1 − CA) / (n − 1) (the n(n−1)/2 history weights share the
    rest)."""
    ca = harmonic(n) / n
    return ca / (2 * (1 - ca) / (n - 1))


def implied_window(ca, ha):
    """The window length n a Table 1 row implies: causal rows sum to 1, so HA(μ) = 2 (1 − CA) / (n − 1)."""
    return 1 + 2 * (1 - ca) / ha


def tally(rows):
    """'N claims (M rows): a reproduced, …': each claim counted once, under its rows' verdict where they
    agree, as "mixed" (and named) where they do not."""
    claims = {}
    for row in rows:
        claims.setdefault(row[6], set()).add(row[4])
    counts = {v: 0 for v in VERDICTS}
    mixed = []
    for claim, found in claims.items():
        if len(found) == 1:
            counts[next(iter(found))] += 1
        else:
            mixed.append(f"{claim} ({', '.join(v for v in VERDICTS if v in found)})")
    parts = [f"{n} {v}" for v, n in counts.items() if n]
    if mixed:
        parts.append(f"{len(mixed)} mixed: " + "; ".join(mixed))
    return f"{len(claims)} claims ({len(rows)} rows): " + ", ".join(parts) + "."


def summary(report):
    """The table the page opens with: every row the sections added, in the order of the page."""
    if not report.verdicts:
        return []
    return ["## The papers side by side\n",
            "One row per artefact the three papers report (`../shared/papers/README.md` lists them): the paper's number "
            "as printed, ours (with its 95 % interval where the step gives one), and a verdict with its reason. One "
            "rule gives every verdict (`scripts/study/results/verdicts.py` applies it): " + RULE + " The sections "
            "below give every number in full. Relative effects are differences divided by the reference model's "
            "value.\n",
            table(["paper", "artefact", "the paper", "ours", "verdict", "why"],
                  [[p, a, t, o, f"**{v}**", w] for p, a, t, o, v, w, _ in
                   sorted(report.verdicts, key=lambda r: PAPERS.index(r[0]))]),
            "Verdicts, counted by claim (rows that rest on the same numbers or seeds are one claim): " +
            tally(report.verdicts) + "\n"]


def ensure(report, paper, artefact, theirs, why):
    """A 'not run' row for an artefact no section gave a row for (its step did not run or had no input)."""
    if not any(r[0] == paper and r[1].startswith(artefact) for r in report.verdicts):
        add(report, paper, artefact, theirs, "not run", "not comparable", why)


def artefacts(report):
    """Rows for what the papers report and no step here measures, with the reason."""
    ensure(report, "Michel", "Figure 2", "r > 0.5 (p < 0.01)", "the second domain's ablation did not run")
    ensure(report, "Michel", "Figure 4", "Enc-Dec collapses past 60 % pruned", "needs the translation models")
    ensure(report, "Michel", "§6", "up to 40 % prunable from epoch 10",
           "no run with every epoch kept is recorded yet (series_* in train-models.sh's queue)")
    ensure(report, "Michel", "Table 4", "+1.9 % (batch 1) to +17.5 % (batch 64)", "the timing step did not run")
    add(report, "Bird-Eye", "Table 2: De-En, En-De BLEU; WikiText-103, enwik8; five external baselines",
        "e.g. De-En 35.26 → 35.85 (BET(SF))", "not run", "not comparable",
        "the data are not in ../shared/data; the translation pair here is Tatoeba en–fr (section below)")
    add(report, "Michel", "Table 3: BERT on MNLI, one head kept per layer",
        "none of 12 layers significant (Δ −0.96 to +0.10 %)", "not run", "not comparable",
        "no BERT fine-tuned on MNLI and no MNLI data here")
    ensure(report, "Michel", "Tables 5–6", "no significant change in half of WMT's layers and all of BERT's",
           "the held-out ablation (`ablate --choose-on`) did not run")
    add(report, "Michel", "Figure 6: pruning on GLUE tasks", "up to 50–60 % prunable", "not run",
        "not comparable", "no GLUE data here")
    add(report, "LAMA", "Table 6: top keywords (Yelp, Reuters)", "word lists", "Amazon lists (section below)",
        "not comparable", "other data; the paper's lists are not in the text we have")
    ensure(report, "LAMA", "Figure 5: accuracy against the number of heads m", "m = 1 worst, m = 15 best (Yelp-L, IMDB)",
           "fewer than two seeds of m = 1 and m = 20 are recorded (sst5_lama_paper_m* in train-models.sh's queue)")
