"""Michel et al. (2019), "Are Sixteen Heads Really Better than One?": each head switched off alone
(Table 1), only the best head of a layer kept (Table 2), head importance I_h, pruning heads in order
(Figure 3) and real pruning's speed, each against the paper's numbers where we could read them.
"""
import os

from . import michel_held_out, michel_more, verdicts
from .cells import below_cell, interval, num, pvalue, significance_cell, table
from .inputs import read_csv, resampled
from .paired_timing import MIN_UNITS, speedups
from .papers import (MICHEL_PRUNABLE, MICHEL_TABLE1, MICHEL_TABLE2_LOST, MICHEL_TABLE2_WMT, MICHEL_TABLE4,
                     MICHEL_TABLE4_PRINTED, SOURCES)


def michel(report):
    comments, single = read_csv(report.path("michel_single.csv"))
    if single is None:
        return
    report.add("## Michel et al.: are all heads needed?\n")
    report.add(f"On `{comments.get('model')}`, over {report.michel_part()} (the sweeps "
               f"evaluate it once per head setting); 95 % paired-bootstrap intervals {resampled(comments)}, "
               "Holm-corrected p-values. "
               f"Baseline perplexity {num(comments.get('baseline'))}.\n")
    report.add("### Table 1: each head switched off alone\n")
    report.add(table(["layer", "head", "perplexity", "Δ", "95 % interval", "p", "Holm p", "significant (Holm, 0.05)",
                      "p < 0.01 (Michel's rule)"],
                     [[r["layer"], r["head"], num(r["metric"]), num(r["delta"]),
                       interval(r), pvalue(r["p_value"]), pvalue(r["p_adjusted"]),
                       significance_cell(r), below_cell(r.get("p_value"), 0.01)] for r in single]))
    report.fig("michel_single.png", "Δ perplexity with each head off")
    significant = [r for r in single if r["significant"] == "1"]
    helping = [r for r in significant if float(r["delta"]) < 0]
    if "significance" in comments:  # too few units for the bootstrap: no claim of significance either way
        report.add(f"**What we see.** {comments['significance']}.\n")
    else:
        report.add(f"**What we see.** {len(significant)} of {len(single)} heads change perplexity significantly when "
                   f"switched off alone ({len(helping)} of them improve it). **The paper** (Table 1, WMT encoder "
                   "self-attention): 8 of 96 heads change BLEU significantly at p < 0.01, 4 of them for the better — "
                   "most heads have no significant effect alone. " + (
                       "Here, unlike there, most heads have a significant effect alone."
                       if len(significant) > len(single) / 2 else
                       "Here too most heads have no significant effect alone (which does not make their effect zero: "
                       "read the intervals).") + "\n")
        worst = max(single, key=lambda r: float(r["delta"]))
        uncorrected = [r for r in single if float(r["p_value"]) < 0.01]
        uncorrected_better = [r for r in uncorrected if float(r["delta"]) < 0]
        floor = min(float(r["p_value"]) for r in single)
        report.add(f"**Michel's own rule** (p < 0.01 per head, uncorrected): {len(uncorrected)} of {len(single)} heads "
                   f"({len(uncorrected_better)} of them better); Holm's at 0.05, above: {len(significant)}. With "
                   f"{comments.get('bootstrap', '?')} resamples a p-value cannot go below {pvalue(floor)} "
                   f"uncorrected, {pvalue(min(1.0, floor * len(single)))} after Holm over {len(single)} heads.\n")
        # The paper's claim: most heads alone make no significant difference (8 of 96). Ours is tested head by
        # head; the claim is on the share, so "ours significant" is a majority of heads significant.
        majority = len(uncorrected) > len(single) / 2
        verdict = verdicts.rule(0, 1 if majority else 0, majority)
        verdicts.add(report, "Michel", "Table 1: heads that matter alone (one masked at a time)",
                     f"{MICHEL_TABLE1['significant']} of {MICHEL_TABLE1['heads']} significant (p < 0.01, uncorrected), "
                     f"{MICHEL_TABLE1['better']} of them better; base BLEU {MICHEL_TABLE1['base_bleu']}",
                     f"{len(uncorrected)} of {len(single)} significant at p < 0.01 uncorrected ({len(significant)} with "
                     f"Holm at 0.05), {len(uncorrected_better)} better; largest Δ {num(worst['delta'])} {interval(worst)} "
                     f"on {num(comments.get('baseline'))}",
                     verdict, "most heads matter alone here" if majority else
                     "most heads do not matter alone here either",
                     detectable_effect=None if majority else
                     verdicts.detectable(min(float(r["delta_low"]) for r in single if r.get("delta_low")),
                                         min(float(r["delta_high"]) for r in single if r.get("delta_high")),
                                         unit="perplexity (the narrowest head's interval)"))
    alone_comments, alone = read_csv(report.path("michel_alone.csv"))
    if alone:
        report.add("### Table 2: only the best head of a layer kept\n")
        report.add(table(["layer", "best head", "perplexity", "Δ", "95 % interval", "significant"],
                         [[r["layer"], r["best_head"], num(r["metric"]), num(r["delta"]),
                           interval(r),
                           significance_cell(r)] for r in alone]))
        report.add("The paper's Table 2 (WMT, ΔBLEU with the best head alone, as printed; " + MICHEL_TABLE2_LOST + "):\n")
        report.add(table(["layer", "Enc-Enc", "Enc-Dec", "Dec-Dec"], MICHEL_TABLE2_WMT))
        reduced = sum(1 for r in alone if r["significant"] != "1")
        deltas = [float(r["delta"]) for r in alone]
        verdict = ("every layer changes significantly" if reduced == 0 else
                   f"{reduced} of {len(alone)} layers show no significant change")
        if "significance" in alone_comments:  # too few units: nothing tested
            verdict = alone_comments["significance"]
        report.add(f"**What we see.** With one head left, {verdict} (Δ perplexity from {num(min(deltas))} to "
                   f"{num(max(deltas))} over the layers). **The paper** (§3.3): one head suffices at test time \"for most "
                   "layers\" (none of BERT's 12 changes significantly, its Table 3); the last Enc-Dec layer of WMT loses "
                   "at least 13.5 BLEU.\n")
        if "significance" not in alone_comments:
            smallest = min(alone, key=lambda r: float(r["delta"]))
            # The paper's claim: no significant change in most layers (4 of 6 WMT Enc-Enc, 12 of 12 BERT).
            majority_changed = reduced < len(alone) / 2
            verdicts.add(report, "Michel", "Tables 2–3: a layer reduced to its best head",
                         "one head suffices \"for most layers\" (§3.3; which WMT layers is lost with Table 2's underlining); "
                         "no significant change in 12 of 12 BERT layers (Table 3)",
                         f"no significant change in {reduced} of {len(alone)} layers; smallest Δ "
                         f"{num(smallest['delta'])} {interval(smallest)}",
                         verdicts.rule(0, 1 if majority_changed else 0, majority_changed),
                         "most layers need more than one head here" if majority_changed else
                         "most layers keep their metric with one head here too",
                         detectable_effect=None if majority_changed else
                         verdicts.detectable(smallest["delta_low"], smallest["delta_high"], unit="perplexity"),
                         claim=MOST_LAYERS)
    michel_held_out.language_model(report)
    importance_comments, importance = read_csv(report.path("importance.csv"))
    if importance:
        report.add("### Head importance I_h (§4.1)\n")
        if importance_comments.get("per_example") == "true":
            report.add("I_h = E_x |∂L(x)/∂ξ_h|, the paper's Eq. 2: each example's (window's) absolute gradient, "
                       "averaged over the text, each layer divided by its ℓ2 norm as the paper does. The pruning "
                       "order below ranks by the same form.\n")
        else:
            report.add("I_h = |∂L/∂ξ_h| of each batch's mean loss, averaged over batches (the per-batch form of "
                       "the paper's code; its Eq. 2 takes |·| per example), each layer divided by its ℓ2 norm.\n")
        report.fig("importance.png", "I_h per head")
    comments, pruning = read_csv(report.path("pruning.csv"))
    if pruning:
        report.add("### Figure 3: pruning heads in order\n")
        report.add("Heads ranked on the WikiText-2 *validation* text (by I_h, and by single-head ablation damage: "
                   "the \"oracle\" order), then switched off 10 % at a time on the test part: the ranking never "
                   "sees the text it is scored on.\n")
        orders = {}
        for r in pruning:
            orders.setdefault(r["order"], []).append(r)
        percents = [r["percent_pruned"] for r in next(iter(orders.values()))]
        rows = []
        for order, rs in orders.items():
            rows.append([order] + [num(r["metric"], 1) for r in rs])
        report.add(table(["order \\ % pruned"] + percents, rows))
        report.fig("pruning.png", "Perplexity as heads are pruned, with 95 % intervals")
        sentences = []
        for order, rs in orders.items():
            # the first step whose rise is significant, and the share pruned before it
            first = next((r for r in rs if float(r["percent_pruned"]) > 0 and r["significant"] == "1"
                          and float(r["delta"]) > 0), None)
            at_20 = next((r for r in rs if float(r["percent_pruned"]) == 20), None)
            change = f"; at 20 %, Δ {num(at_20['delta'])}" if at_20 and at_20 is not first else ""
            if "significance" in comments:  # too few units: nothing tested
                sentences.append(f"by {order}, {comments['significance']}")
            elif first:
                sentences.append(f"by {order}, the first significant rise in perplexity comes at "
                                 f"{num(first['percent_pruned'], 0)} % pruned (Δ {num(first['delta'])}{change})")
            else:
                sentences.append(f"by {order}, no step raises perplexity significantly")
        verdict = ""
        if "importance" in orders and "oracle" in orders:
            pairs = [(a, b) for a, b in zip(orders["importance"], orders["oracle"])
                     if 0 < float(a["percent_pruned"]) < 100]
            better = sum(1 for a, b in pairs if float(a["metric"]) < float(b["metric"]))
            verdict = (f" The importance order gives the lower perplexity at {better} of the {len(pairs)} steps "
                       "between 0 and 100 % (single runs of each order" +
                       ("; the test between them follows)." if os.path.exists(report.path("pruning_between.csv"))
                        else "; no test between the orders)."))
        report.add("**What we see.** " + "; ".join(sentences)[0].upper() + "; ".join(sentences)[1:] + "." + verdict +
                   " **The paper:** about 20 % of WMT's heads and 40 % of BERT's can be pruned before the metric "
                   "drops noticeably, and the I_h order beats the ablation order (Figure 3).\n")
        pruning_verdicts(report, comments, orders)
    michel_more.figure2(report)
    real_pruning_speed(report)
    michel_more.figure4(report)
    michel_more.series(report)
    report.add(f"_The paper's numbers are read from {SOURCES}._\n")


# The claims the language model's and the translation model's rows share.
MOST_LAYERS = "Michel: one head suffices for most layers (Tables 2–3)"
HELD_OUT_HALF = "Michel: with the head chosen on held-out data, one suffices for half of the layers (Tables 5–6)"


def prunable(rows):
    """The largest share pruned before the first step whose rise is significant (0 when the first is)."""
    last = 0.0
    for r in rows:
        if float(r["percent_pruned"]) == 0:
            continue
        if r["significant"] == "1" and float(r["delta"]) > 0:
            return last
        last = float(r["percent_pruned"])
    return last


def pruning_verdict(at_20):
    """The verdict and its reason on "20 % of the heads prunable without noticeable loss" (the paper reports
    no loss there): our step at 20 % and its paired bootstrap."""
    if at_20 is None or not at_20.get("delta_low"):
        return "not comparable", "no tested step at 20 % pruned", None
    significant = at_20["significant"] == "1"
    delta = float(at_20["delta"])
    verdict = verdicts.rule(0, (delta > 0) - (delta < 0), significant)
    why = ("ours loses significantly at 20 % pruned; the paper's \"noticeable\" is read by eye off its curve"
           if significant else "no significant loss at 20 % pruned here either")
    return verdict, why, (verdicts.detectable(at_20["delta_low"], at_20["delta_high"], unit="perplexity")
                          if verdict in verdicts.NEEDS_DETECTABLE else None)


def pruning_verdicts(report, comments, orders):
    if "significance" in comments or "importance" not in orders:
        return
    rows = orders["importance"]
    share = prunable(rows)
    at_20 = next((r for r in rows if float(r["percent_pruned"]) == 20), None)
    verdicts.add(report, "Michel", "Figure 3: heads prunable by I_h before the metric drops",
                 f"{MICHEL_PRUNABLE['WMT']} % (WMT), {MICHEL_PRUNABLE['BERT']} % (BERT), \"without noticeable loss\"",
                 f"{num(share, 0)} % before the first significant rise" +
                 (f"; at 20 %: Δ {num(at_20['delta'])} {interval(at_20)}" if at_20 else ""),
                 *pruning_verdict(at_20))
    if "oracle" in orders:
        order_test(report, rows, orders["oracle"])


def order_test(report, importance, oracle):
    """The I_h order against the oracle order: each step's difference with its paired bootstrap
    (pruning_between.csv, `prune --between`) where it ran, else the count of steps where I_h is lower."""
    comments, between = read_csv(report.path("pruning_between.csv"))
    if not between or "significance" in comments or "delta_low" not in between[0]:
        pairs = [(a, b) for a, b in zip(importance, oracle) if 0 < float(a["percent_pruned"]) < 100]
        better = sum(1 for a, b in pairs if float(a["metric"]) < float(b["metric"]))
        verdicts.add(report, "Michel", "Figure 3: the I_h order against the ablation (oracle) order",
                     "I_h prunes better", f"I_h lower at {better} of {len(pairs)} steps (one run of each order)",
                     "not comparable", "no test between the orders, one trained model; ours ranks on valid and "
                     "scores on test")
        return
    better = [r for r in between if r["significant"] == "1" and float(r["delta"]) < 0]
    worse = [r for r in between if r["significant"] == "1" and float(r["delta"]) > 0]
    steps = lambda rs: ", ".join(f"{num(r['percent_pruned'], 0)} %" for r in rs) or "none"
    report.add(f"**The two orders tested** (`prune --between`: I_h − oracle at each step, paired bootstrap {resampled(comments)}, "
               f"Holm over the {len(between)} steps): I_h is significantly better at {steps(better)}, "
               f"significantly worse at {steps(worse)}.\n")
    report.add(table(["% pruned", "I_h", "oracle", "I_h − oracle", "95 % interval", "adjusted p"],
                     [[num(r["percent_pruned"], 0), num(r["metric_importance"], 1), num(r["metric_oracle"], 1),
                       num(r["delta"]), interval(r), pvalue(r["p_adjusted"])] for r in between]))
    # The paper's claim is about a ranking method on its trained models; ours is one run of each order on
    # one trained LM, so its steps' intervals are over text, not over training runs: no verdict on the method.
    found = ("I_h is better wherever the orders differ significantly" if better and not worse else
             "the oracle order is better wherever the orders differ significantly" if worse and not better else
             "no step differs significantly" if not better else "each order is better at some steps")
    verdicts.add(report, "Michel", "Figure 3: the I_h order against the ablation (oracle) order",
                 "I_h prunes better (read off the curves, no test)",
                 f"I_h significantly better at {len(better)}, worse at {len(worse)} of {len(between)} steps "
                 "(paired bootstrap, Holm)", "not comparable",
                 f"one trained LM and one run of each order (on it, {found}): the claim is about the ranking "
                 "method, which needs more seeds to judge; ours ranks on valid and scores on test")


def real_pruning_speed(report):
    """Michel Table 4: examples per second of the full and the really pruned model per batch size
    (pruning_speed.csv: one row per model, batch size and timing round), the speed-up tested over the
    paired rounds (paired_timing.py)."""
    _, speed = read_csv(report.path("pruning_speed.csv"))
    if not speed or "round" not in speed[0]:
        return
    report.add("### Table 4: real pruning's speed\n")
    by_batch = speedups(speed)
    rounds = max((e["rounds"] for e in by_batch.values()), default=0)
    report.add("`prune --apply 50 --save` removes half of the heads from the checkpoint (not gated); `eval` then "
               "times the forward passes alone (`seconds` in its JSON: loading and reading the text excluded) of "
               f"both models over the same windows, at each batch size, in {rounds} rounds; within a round the two "
               "run back to back, the first of them alternating (`scripts/study/time_pruning.py`). The speed-up is "
               "the Hodges–Lehmann estimate of the pruned model's rate over the full one's across the rounds, "
               "with its exact 95 % interval and Wilcoxon's signed-rank p, Holm-adjusted over the batch sizes: "
               "rank statistics, so a round slowed by other work on the machine does not carry the result. The "
               "rates are the medians over the rounds.\n")
    rows = []
    for batch, e in by_batch.items():
        paper = MICHEL_TABLE4.get(batch)
        rows.append([batch, num(e["full"], 1), num(e["pruned"], 1), percent(e["gain"]),
                     "—" if e["low"] is None else f"[{percent(e['low'])}, {percent(e['high'])}]",
                     pvalue(e["p_holm"]) if e["p_holm"] is not None else "—",
                     f"{paper[0]} → {paper[1]} ({MICHEL_TABLE4_PRINTED[batch]} as printed; "
                     f"{percent(paper[1] / paper[0] - 1)} recomputed)" if paper else "—"])
    report.add(table(["batch", "full, examples/s", "50 % pruned, examples/s", "speed-up", "95 % interval",
                      "Holm p", "the paper (BERT, GPU)"], rows))
    for refusal in sorted({e["refusal"] for e in by_batch.values() if e["refusal"]}):
        report.add(f"{refusal}, no p-value; the speed-up is the estimate alone.\n")
    info = {r["model"]: r for r in speed}
    report.add(f"The full model has {info['full']['heads']} heads and {int(info['full']['parameters']):,} "
               f"parameters, the pruned one {info['pruned_50']['heads']} and "
               f"{int(info['pruned_50']['parameters']):,}. An example is one window of the language model's "
               "text; removing heads shrinks only the attention projections and products, while the feed-forward "
               "layers and the output layer over the vocabulary stay and bound the speed-up.\n")
    if not by_batch:
        return
    faster = [b for b, e in by_batch.items() if e["p_holm"] is not None and e["p_holm"] < 0.05 and e["gain"] > 0]
    slower = [b for b, e in by_batch.items() if e["p_holm"] is not None and e["p_holm"] < 0.05 and e["gain"] < 0]
    ours = "; ".join(f"{percent(e['gain'])}" + (f" [{percent(e['low'])}, {percent(e['high'])}]" if e["low"] is not None
                                                else "") + f" (batch {b})" for b, e in by_batch.items())
    tested = any(e["p_holm"] is not None for e in by_batch.values())
    found = (f"faster at batch {', '.join(map(str, faster))}" if faster else "") + \
        ("; " if faster and slower else "") + (f"slower at batch {', '.join(map(str, slower))}" if slower else "")
    paper = MICHEL_TABLE4
    verdicts.add(report, "Michel", "Table 4: examples per second, 50 % of heads removed",
                 f"{MICHEL_TABLE4_PRINTED[1]} (batch 1) to {MICHEL_TABLE4_PRINTED[64]} (batch 64) as printed "
                 f"({percent(paper[1][1] / paper[1][0] - 1)} and {percent(paper[64][1] / paper[64][0] - 1)} recomputed "
                 "from its rounded speeds), BERT on a GPU",
                 ours + ", CPU", "not comparable",
                 "another model (an LM whose vocabulary layer dominates) and device; " +
                 (f"the pruned model is significantly {found} (Holm)" if found else
                  "no batch size differs significantly (Holm)" if tested else
                  f"too few timing rounds for a test (fewer than {MIN_UNITS})"))


def percent(fraction):
    """A relative change as a signed percentage with a real minus sign: +8.7 %, −0.6 %."""
    return f"{fraction * 100:+.1f} %".replace("-", "−")
