"""Bird-Eye Figure 3 as the paper runs it: the diagonal's rate applied while the models train. Table 2's
runs trained with the diagonal scaled by 0.2 (`reduced_diag`), 1 (`vanilla`) and 2 (`magnified_diag`),
each over its recorded seeds: the test perplexity against the rate, its least-squares slope, and the exact
permutation test of that slope over the runs (every distinct way of giving the rates to the runs).
"""
import itertools

from . import verdicts
from .cells import num, pvalue, signed, table
from .comparisons import TABLE2_MODELS, device_kind, trained_on
from .inputs import read_records

# The factor each variant's training multiplies the diagonal's dot-product scores by (models/nn/transformer.cpp).
RATES = {"reduced_diag": 0.2, "vanilla": 1.0, "magnified_diag": 2.0}


def slope(xs, ys):
    """The least-squares slope of ys on xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def permutation_p(xs, ys):
    """Two-sided exact p of the slope: the share of distinct assignments of the rates to the runs whose
    slope is at least as far from 0 as the observed one (1,680 assignments for 3 rates × 3 runs)."""
    observed = abs(slope(xs, ys))
    arrangements = set(itertools.permutations(xs))
    extreme = sum(1 for arranged in arrangements if abs(slope(arranged, ys)) >= observed - 1e-12)
    return extreme / len(arrangements)


def runs(records, prefix):
    """{rate: [test perplexity per seed]} of the variants recorded under `prefix` ("" or "wiki6_")."""
    found = {}
    for variant, rate in RATES.items():
        values = [float(r["perplexity"]) for _, r in records.get(prefix + variant, []) if "perplexity" in r]
        if values:
            found[rate] = values
    return found


def enough(by_rate):
    """Whether every rate has two recorded seeds, as the slope's test needs."""
    return len(by_rate) == len(RATES) and min(len(v) for v in by_rate.values()) >= 2


def ready(report, prefix=""):
    return enough(runs(read_records(report.records), prefix))


def trained(report, prefix=""):
    """The subsection and its verdict; nothing until every rate has two recorded seeds."""
    records = read_records(report.records)
    by_rate = runs(records, prefix)
    if not enough(by_rate):
        return
    xs = [rate for rate, values in sorted(by_rate.items()) for _ in values]
    ys = [y for _, values in sorted(by_rate.items()) for y in values]
    b, p = slope(xs, ys), permutation_p(xs, ys)
    names = {rate: prefix + variant for variant, rate in RATES.items()}
    report.add("### Trained with the diagonal scaled (the paper's protocol)\n")
    report.add("The paper's Figure 3 applies the rate while the models train. Table 2's runs do: the diagonal scaled "
               "by 0.2, 1 and 2 in training, each over its recorded seeds (WikiText-2 test perplexity). The slope is "
               "the least-squares change in perplexity per unit of rate over the runs; its p is exact, over every "
               f"distinct way of giving the rates to the {len(ys)} runs.\n")
    report.add(table(["rate in training", "variant", "runs", "test perplexity per seed", "mean", "trained on"],
                     [[num(rate, 1), f"`{names[rate]}`", len(values), ", ".join(num(v) for v in values),
                       num(sum(values) / len(values)), trained_on(records[names[rate]])]
                      for rate, values in sorted(by_rate.items())]))
    direction = "rises" if b > 0 else "falls"
    means = {rate: sum(v) / len(v) for rate, v in by_rate.items()}
    devices = {device_kind(record) for rate in by_rate for _, record in records[names[rate]]}
    report.add(f"**What we see.** Perplexity {direction} by {num(abs(b))} per unit of rate (slope {signed(b)}, "
               f"permutation p = {pvalue(p)}); the means at 0.2 and 1 differ by {num(abs(means[1.0] - means[0.2]))}, "
               f"at 1 and 2 by {num(abs(means[2.0] - means[1.0]))}. The slope pools all {len(ys)} runs, where Table "
               "2 tests each rate against the Transformer on its own, with Holm over five tests." +
               (" The runs trained on both devices, which adds to their spread (Table 2 lists them)."
                if len(devices) > 1 else "") +
               " **The paper** (Figure 3, its models converged): the less diagonal, the better — perplexity rises "
               "with the rate.\n")
    verdict = verdicts.effect(+1, None, 1 if b > 0 else -1, p < 0.05)
    verdicts.add(report, "Bird-Eye", "Figure 3 (trained rates): the metric against the diagonal rate",
                 "less diagonal, better (negative correlation of performance with the rate)",
                 f"slope {signed(b)} perplexity per unit of rate, permutation p {pvalue(p)} "
                 f"(rates 0.2, 1, 2; {len(ys)} runs)", verdict,
                 {"reproduced": "perplexity rises with the trained rate, significantly",
                  "refuted": "perplexity falls with the trained rate, significantly",
                  "not reproduced": "the slope is not significant over these runs"}[verdict] +
                 "; " + TABLE2_MODELS[prefix])
