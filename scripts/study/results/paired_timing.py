"""A speed-up measured in paired rounds (Michel Table 4): per round, the log of the full model's time over
the pruned model's on the same windows; Wilcoxon's signed-rank test that these are centred on 0, with the
Hodges–Lehmann estimate (the median of the Walsh averages) and its exact 95 % interval, and Holm's
adjustment across batch sizes. Rank tests, because a timing round hit by a load elsewhere on the machine is
an outlier a mean would follow. Fewer rounds than MIN_UNITS give the estimate alone, as the analyses do.
"""
import math
from statistics import median

# The analyses' --min-units default: fewer independent units than this give no interval and no p-value.
MIN_UNITS = 20


def signed_rank_counts(n):
    """counts[w]: how many of the 2^n sign patterns of the ranks 1..n have their positive ranks summing to w."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    for rank in range(1, n + 1):
        for w in range(len(counts) - 1, rank - 1, -1):
            counts[w] += counts[w - rank]
    return counts


def signed_rank_statistic(diffs):
    """The sum of the ranks (by size, 1 = smallest) of the positive differences; no zeros or ties expected
    (timings are continuous; the caller drops exact zeros, as Wilcoxon's test does)."""
    order = sorted(range(len(diffs)), key=lambda i: abs(diffs[i]))
    return sum(rank for rank, i in enumerate(order, start=1) if diffs[i] > 0)


def signed_rank_p(diffs):
    """Two-sided exact p of Wilcoxon's signed-rank test."""
    n = len(diffs)
    counts = signed_rank_counts(n)
    w = signed_rank_statistic(diffs)
    below, above = sum(counts[:w + 1]), sum(counts[w:])
    return min(1.0, 2 * min(below, above) / 2 ** n)


def interval_rank(n, confidence=0.95):
    """k: the Walsh averages' k-th smallest and k-th largest bound the exact interval, k the largest with
    P(W ≤ k − 1) ≤ (1 − confidence) / 2 under the null; 0 when no k qualifies (too few differences)."""
    counts, total = signed_rank_counts(n), 2 ** n
    cumulative, k = 0, 0
    for w, count in enumerate(counts):
        cumulative += count
        if cumulative / total > (1 - confidence) / 2:
            break
        k = w + 1
    return k


def hodges_lehmann(diffs, confidence=0.95):
    """(estimate, low, high): the median of the Walsh averages (d_i + d_j) / 2, i ≤ j, and the exact
    interval between their k-th smallest and k-th largest; low and high None when n is too small for one."""
    n = len(diffs)
    walsh = sorted((diffs[i] + diffs[j]) / 2 for i in range(n) for j in range(i, n))
    estimate = median(walsh)
    k = interval_rank(n, confidence)
    if k == 0:
        return estimate, None, None
    return estimate, walsh[k - 1], walsh[len(walsh) - k]


def holm(pvalues):
    """Holm's step-down adjustment, in the order given."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * len(pvalues), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - step) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def speedups(rows, min_units=MIN_UNITS):
    """Per batch size, from rows (model, batch, round, examples, seconds) of the models full and
    pruned_50: {batch: {"rounds", "full", "pruned" (median examples per second), "gain", "low", "high",
    "p", "p_holm", "refusal"}}. gain = the pruned model's rate over the full one's, minus 1 (its
    Hodges–Lehmann estimate); with fewer than min_units paired rounds, gain alone and refusal says why."""
    paired = {}
    for r in rows:
        paired.setdefault(int(r["batch"]), {}).setdefault(int(r["round"]), {})[r["model"]] = r
    result = {}
    for batch, rounds in sorted(paired.items()):
        pairs = [(m["full"], m["pruned_50"]) for m in rounds.values() if "full" in m and "pruned_50" in m]
        if not pairs:
            continue
        rate = lambda r: float(r["examples"]) / float(r["seconds"])  # noqa: E731
        diffs = [math.log(float(full["seconds"]) / float(pruned["seconds"])) for full, pruned in pairs]
        diffs = [d for d in diffs if d != 0]  # a tie says nothing about which is faster
        entry = {"rounds": len(pairs), "full": median(rate(f) for f, _ in pairs),
                 "pruned": median(rate(p) for _, p in pairs), "low": None, "high": None, "p": None,
                 "p_holm": None, "refusal": ""}
        estimate, low, high = hodges_lehmann(diffs) if diffs else (0.0, None, None)
        entry["gain"] = math.expm1(estimate)
        if len(diffs) < min_units:
            entry["refusal"] = f"{len(diffs)} paired rounds, fewer than {min_units}: no interval"
        elif low is not None:
            entry["low"], entry["high"], entry["p"] = math.expm1(low), math.expm1(high), signed_rank_p(diffs)
        result[batch] = entry
    tested = [batch for batch, e in result.items() if e["p"] is not None]
    for batch, adjusted in zip(tested, holm([result[b]["p"] for b in tested])):
        result[batch]["p_holm"] = adjusted
    return result
