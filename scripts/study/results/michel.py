"""Michel et al. (2019), "Are Sixteen Heads Really Better than One?": each head switched off alone
(Table 1), only the best head of a layer kept (Table 2), head importance I_h, pruning heads in order
(Figure 3) and real pruning's speed, each against the paper's numbers where we could read them.
"""
from .cells import interval, num, pvalue, significance_cell, table
from .inputs import read_csv, resampled
from .papers import MICHEL_SOURCE, MICHEL_TABLE2_WMT


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
                       "between 0 and 100 % (single runs of each order; no test between the orders).")
        report.add("**What we see.** " + "; ".join(sentences)[0].upper() + "; ".join(sentences)[1:] + "." + verdict +
                   " **The paper:** about 20 % of WMT's heads and 40 % of BERT's can be pruned before the metric "
                   "drops noticeably, and the I_h order beats the ablation order (Figure 3).\n")
    _, speed = read_csv(report.path("pruning_speed.csv"))
    if speed and len(speed) == 2:
        full, pruned = speed
        gain = float(full["seconds"]) / float(pruned["seconds"]) - 1
        report.add("### Real pruning: the heads removed from the weights\n")
        report.add("`prune --apply 50 --save`: half of the heads removed from the checkpoint (not gated), then "
                   "`eval` over the Michel slice of the test split (the two models alternated 3 times, each one's "
                   "fastest wall time, "
                   "loading included).\n")
        report.add(table(["model", "heads", "parameters", "perplexity", "seconds (fastest of 3)", "slowest"],
                         [[r["model"], r["heads"], f"{int(r['parameters']):,}", num(r["perplexity"]),
                           num(r["seconds"], 3), num(r.get("seconds_max"), 3)] for r in speed]))
        # A difference smaller than either model's own run-to-run spread is not a measured speed-up.
        spread = max(float(r.get("seconds_max") or r["seconds"]) - float(r["seconds"]) for r in speed)
        measured = abs(float(full["seconds"]) - float(pruned["seconds"])) > spread
        verdict = (f"Speed-up {gain * 100:+.1f} %" + ("." if measured else
                   ", smaller than the spread of the runs themselves: no measurable change."))
        report.add(f"{verdict} **The paper** (Table 4, BERT, 50 % of heads pruned, GPU): "
                   "+1.9 % to +17.5 % examples per second from batch 1 to 64. Removing heads shrinks only the "
                   "attention projections and products; the feed-forward layers, the output layer over the "
                   "vocabulary, loading and reading the text stay, and bound the speed-up.\n")
    report.add(f"_Source of the paper's numbers: {MICHEL_SOURCE}._\n")
