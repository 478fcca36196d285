"""Michel et al., appendix A (Tables 5–6): each layer reduced to the head that does best alone on *other*
data (`ablate --mode all-but-one --choose-on`), so the choice never sees the text it is scored on; set
beside Table 2's choice on the scored text itself, for the language model and the translation model.
"""
from . import verdicts
from .cells import interval, num, significance_cell, table
from .inputs import read_csv
from .papers import MICHEL_TABLE5_WMT, MICHEL_TABLE6_BERT


def kept_share(report, rows, artefact, theirs, claim):
    """A translation model's blocks that keep their BLEU with one head (no significant change): the share
    the paper counts over its layers, every attention kind together."""
    kept = [r for r in rows if r["significant"] != "1"]
    by_kind = {}
    for r in rows:
        by_kind.setdefault(r["kind"], [0, 0])
        by_kind[r["kind"]][1] += 1
        by_kind[r["kind"]][0] += r["significant"] != "1"
    share = len(kept) / len(rows)
    verdicts.add(report, "Michel", artefact, theirs,
                 f"{len(kept)} of {len(rows)} blocks keep their BLEU (" +
                 ", ".join(f"{k} {n} of {t}" for k, (n, t) in by_kind.items()) + "), `mt_vanilla`",
                 "reproduced" if share >= 0.5 else "not reproduced",
                 f"{num(share * 100, 0)} % of the blocks keep their BLEU with one head" +
                 ("" if share >= 0.5 else ", fewer than half") + "; a 2 + 2-layer model, BLEU on Tatoeba test pairs",
                 claim=claim)


def block(row):
    """A row's block as the page names it: 'layer 2' or 'cross layer 2'."""
    return (f"{row['kind']} " if row.get("kind") else "") + f"layer {row['layer']}"


def own_best(path):
    """Table 2's rows (the best head chosen on the scored text), by block."""
    _, rows = read_csv(path)
    return {block(r): r for r in rows or []}


def rows_beside_own(held_out, own, metric):
    """One row per block: the held-out choice, its Δ and interval here, and the scored text's own best."""
    rows = []
    for r in held_out:
        mine = own.get(block(r))
        rows.append([block(r), r["best_head"], mine["best_head"] if mine else "—", num(r["metric"]), num(r["delta"]),
                     interval(r), significance_cell(r), num(float(r["delta"]) - float(mine["delta"])) if mine else "—"])
    return table(["block", "head chosen on valid", "best head on test", metric, "Δ", "95 % interval", "significant",
                  "Δ − test's own best Δ"], rows)


def agreement(held_out, own):
    same = sum(1 for r in held_out if own.get(block(r), {}).get("best_head") == r["best_head"])
    return f"the head chosen on valid is the test text's own best in {same} of {len(held_out)} blocks"


def language_model(report):
    """`michel_held_out.csv`: vanilla_lm, heads chosen on the WikiText-2 validation slice, scored on test."""
    comments, rows = read_csv(report.path("michel_held_out.csv"))
    if not rows:
        return
    report.add("### Tables 5–6: the head chosen on held-out text\n")
    report.add("The same reduction as Table 2, but each layer keeps the head that does best alone on the WikiText-2 "
               "*validation* slice (`ablate --choose-on`), scored on the test slice; the Holm correction spans the "
               "chosen heads only, one per layer.\n")
    own = own_best(report.path("michel_alone.csv"))
    report.add(rows_beside_own(rows, own, "perplexity"))
    report.add("The paper's Table 6 (BERT, Δ accuracy in % on MNLI-matched validation, the head chosen on 5,000 "
               "training examples; none significant at p < 0.01): " +
               ", ".join(f"{x:+.2f}".replace("-", "−") for x in MICHEL_TABLE6_BERT) + ".\n")
    if "significance" in comments:  # too few units: nothing tested
        report.add(f"**What we see.** {comments['significance']}; {agreement(rows, own)}.\n")
        return
    from .michel import HELD_OUT_HALF as HELD_OUT_HALF_CLAIM
    kept = sum(1 for r in rows if r["significant"] != "1")
    smallest = min(rows, key=lambda r: float(r["delta"]))
    changed = ("every layer changes significantly" if kept == 0 else
               f"{kept} of {len(rows)} layers show no significant change")
    report.add(f"**What we see.** With the head chosen on held-out text, {changed}; {agreement(rows, own)}. **The paper** "
               "(§3.3, appendix A): no significant change for half of WMT's layers and all of BERT's, as with the "
               "choice on the test set.\n")
    verdicts.add(report, "Michel", "Tables 5–6: best head chosen on held-out data",
                 "no significant change in 50 % of WMT's layers (§3.3; chosen on newstest2013) and 100 % of BERT's",
                 f"no significant change in {kept} of {len(rows)} layers (chosen on valid, scored on test); smallest Δ "
                 f"{num(smallest['delta'])} {interval(smallest)}",
                 verdicts.rule(0, 1 if kept < len(rows) / 2 else 0, kept < len(rows) / 2),
                 "most layers keep their metric with one held-out head here too" if kept >= len(rows) / 2 else
                 "most layers need more than one head here, however the head is chosen",
                 detectable_effect=None if kept < len(rows) / 2 else
                 verdicts.detectable(smallest["delta_low"], smallest["delta_high"], unit="perplexity"),
                 claim=HELD_OUT_HALF_CLAIM)


def translation(report):
    """`michel_held_out_mt.csv`: mt_vanilla by BLEU, heads chosen on validation pairs, scored on test pairs."""
    comments, rows = read_csv(report.path("michel_held_out_mt.csv"))
    if not rows:
        return
    report.add(f"The same with each block's head chosen on the first validation pairs (Michel Table 5's protocol; "
               f"BLEU, baseline {num(comments.get('baseline'))}):\n")
    report.add(rows_beside_own(rows, own_best(report.path("michel_alone_mt.csv")), "BLEU"))
    report.add("The paper's Table 5 (WMT, ΔBLEU on newstest2014, the head chosen on newstest2013):\n")
    report.add(table(["layer", "Enc-Enc", "Enc-Dec", "Dec-Dec"], MICHEL_TABLE5_WMT))
    worst = min(rows, key=lambda r: float(r["delta"]))
    if "significance" in comments:
        report.add(f"**What we see.** {comments['significance']}; the largest loss is {block(worst)}.\n")
        return
    per_kind = {}
    for r in rows:
        per_kind.setdefault(r["kind"], []).append(r["significant"] == "1")
    ours = ", ".join(f"{k} {sum(v)} of {len(v)}" for k, v in per_kind.items())
    cross_worst = worst["kind"] == "cross" and worst["significant"] == "1" and float(worst["delta"]) < 0
    report.add(f"**What we see.** Significant with the held-out head: {ours}; the largest loss is {block(worst)} "
               f"({num(worst['delta'])} BLEU). The paper's largest is the last Enc-Dec layer (−18.89).\n")
    self_kept = [r for r in rows if r["kind"] in ("enc", "dec") and r["significant"] != "1"]
    self_blocks = [r for r in rows if r["kind"] in ("enc", "dec")]
    report.add(f"With the held-out head, {len(self_kept)} of {len(self_blocks)} self-attention blocks keep their BLEU "
               f"(no significant change) — the paper's \"no significant change for 50 % of WMT's layers\" (§3.3) is "
               "this held-out result.\n")
    from .michel import HELD_OUT_HALF
    kept_share(report, rows, "Tables 5–6 (translation): the head chosen on held-out pairs",
               "no significant change for 50 % of WMT's layers (§3.3)", HELD_OUT_HALF)
    verdicts.add(report, "Michel", "Table 5 (translation): the held-out head, which attention loses most",
                 "the last Enc-Dec layer, −18.89 BLEU; the self-attentions −1.96 to +0.03 (as printed; its underlining "
                 "is lost in the translation)",
                 f"significant: {ours}; largest loss {block(worst)} ({num(worst['delta'])} {interval(worst)}); "
                 f"{len(self_kept)} of {len(self_blocks)} self-attention blocks keep their BLEU",
                 "reproduced" if cross_worst else "not reproduced",
                 "cross-attention loses the most with one head, significantly, in both" if cross_worst else
                 "the block that loses the most differs",
                 claim="Michel: cross-attention needs several heads more than self-attention (translation, "
                       "Tables 2 and 5 rest on our same blocks)")

