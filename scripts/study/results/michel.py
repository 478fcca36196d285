"""Michel et al. (2019), "Are Sixteen Heads Really Better than One?": each head switched off alone
(Table 1), only the best head of a layer kept (Table 2), head importance I_h, pruning heads in order
(Figure 3) and real pruning's speed, each against the paper's numbers where we could read them.
"""
import os

from . import michel_held_out, michel_more, verdicts
from .cells import interval, num, pvalue, significance_cell, table
from .inputs import read_csv, resampled
from .paired_timing import MIN_UNITS, speedups
from .papers import MICHEL_PRUNABLE, MICHEL_TABLE1, MICHEL_TABLE2_WMT, MICHEL_TABLE4, SOURCES


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
    report.add(table(["layer", "head", "perplexity", "Δ", "95 % interval", "adjusted p", "significant"],
                     [[r["layer"], r["head"], num(r["metric"]), num(r["delta"]),
                       interval(r), pvalue(r["p_adjusted"]),
                       significance_cell(r)] for r in single]))
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
        verdicts.add(report, "Michel", "Table 1: heads that matter alone (one masked at a time)",
                     f"{MICHEL_TABLE1['significant']} of {MICHEL_TABLE1['heads']} significant (p < 0.01), "
                     f"{MICHEL_TABLE1['better']} of them better; base BLEU {MICHEL_TABLE1['base_bleu']}",
                     f"{len(significant)} of {len(single)} significant (Holm), {len(helping)} better; largest Δ "
                     f"{num(worst['delta'])} {interval(worst)} on {num(comments.get('baseline'))}",
                     "reproduced" if len(significant) <= len(single) / 2 else "not reproduced",
                     "most heads matter alone here" if len(significant) > len(single) / 2 else
                     "most heads do not matter alone here either")
    alone_comments, alone = read_csv(report.path("michel_alone.csv"))
    if alone:
        report.add("### Table 2: only the best head of a layer kept\n")
        report.add(table(["layer", "best head", "perplexity", "Δ", "95 % interval", "significant"],
                         [[r["layer"], r["best_head"], num(r["metric"]), num(r["delta"]),
                           interval(r),
                           significance_cell(r)] for r in alone]))
        report.add("The paper's Table 2 (WMT, ΔBLEU with the best head alone; * significant at p < 0.01):\n")
        report.add(table(["layer", "Enc-Enc", "Enc-Dec", "Dec-Dec"], MICHEL_TABLE2_WMT))
        reduced = sum(1 for r in alone if r["significant"] != "1")
        deltas = [float(r["delta"]) for r in alone]
        verdict = ("every layer changes significantly" if reduced == 0 else
                   f"{reduced} of {len(alone)} layers show no significant change")
        if "significance" in alone_comments:  # too few units: nothing tested
            verdict = alone_comments["significance"]
        report.add(f"**What we see.** With one head left, {verdict} (Δ perplexity from {num(min(deltas))} to "
                   f"{num(max(deltas))} over the layers); the paper finds no significant change for half of WMT's "
                   "layers and all of BERT's.\n")
        if "significance" not in alone_comments:
            smallest = min(alone, key=lambda r: float(r["delta"]))
            verdicts.add(report, "Michel", "Tables 2–3: a layer reduced to its best head",
                         "no significant change in 4 of 6 WMT Enc-Enc layers and 12 of 12 BERT layers",
                         f"no significant change in {reduced} of {len(alone)} layers; smallest Δ "
                         f"{num(smallest['delta'])} {interval(smallest)}",
                         "reproduced" if reduced >= len(alone) / 2 else "not reproduced",
                         "most layers need more than one head here" if reduced < len(alone) / 2 else
                         "most layers keep their metric with one head here too")
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
                 "reproduced" if share >= MICHEL_PRUNABLE["WMT"] else "not reproduced",
                 "the paper's \"noticeable\" is read by eye; ours is the first significant step, a stricter "
                 "reading" if share < MICHEL_PRUNABLE["WMT"] else "as many heads go without a significant loss")
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
                     "reproduced" if better > len(pairs) / 2 else "not reproduced",
                     "no test between the orders; ours ranks on valid and scores on test")
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
    verdict = ("reproduced" if better and not worse else "refuted" if worse and not better else "not reproduced")
    verdicts.add(report, "Michel", "Figure 3: the I_h order against the ablation (oracle) order",
                 "I_h prunes better (read off the curves, no test)",
                 f"I_h significantly better at {len(better)}, worse at {len(worse)} of {len(between)} steps "
                 "(paired bootstrap, Holm)", verdict,
                 {"reproduced": "I_h is better wherever the orders differ significantly",
                  "refuted": "the oracle order is better wherever the orders differ significantly",
                  "not reproduced": "no step differs significantly" if not better else
                  "each order is better at some steps"}[verdict] + "; ours ranks on valid and scores on test")


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
                     f"{paper[0]} → {paper[1]} ({percent(paper[1] / paper[0] - 1)})" if paper else "—"])
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
                 f"{percent(paper[1][1] / paper[1][0] - 1)} (batch 1) to "
                 f"{percent(paper[64][1] / paper[64][0] - 1)} (batch 64), BERT on a GPU",
                 ours + ", CPU", "not comparable",
                 "another model (an LM whose vocabulary layer dominates) and device; " +
                 (f"the pruned model is significantly {found} (Holm)" if found else
                  "no batch size differs significantly (Holm)" if tested else
                  f"too few timing rounds for a test (fewer than {MIN_UNITS})"))


def percent(fraction):
    """A relative change as a signed percentage with a real minus sign: +8.7 %, −0.6 %."""
    return f"{fraction * 100:+.1f} %".replace("-", "−")
