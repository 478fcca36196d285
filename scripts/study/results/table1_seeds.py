"""Bird-Eye Table 1 over training runs: Ratio ÷ uniform per layer of each recorded seed. train-models.sh
keeps each language or translation model's Table 1 beside its record (seed-<S>.table1.csv), since only
seed 1's weights are kept; the spread over seeds is how much the statistic depends on the training run,
where the intervals of the bundled model's table are how much it depends on the paragraphs read.
"""
import glob
import os
from statistics import mean, stdev

from .cells import num, table
from .inputs import read_csv


def per_seed(report, variant, kind=None):
    """[Ratio ÷ uniform per layer] of each recorded seed of `variant` that has a Table 1, in seed order
    (`kind`: only a translation model's rows of that attention, 'dec')."""
    if not report.records:
        return []
    paths = glob.glob(os.path.join(report.records, variant, "seed-*.table1.csv"))
    found = []
    for path in sorted(paths, key=lambda p: int(os.path.basename(p)[len("seed-"):-len(".table1.csv")])):
        _, rows = read_csv(path)
        layers = [float(r["Ratio_over_uniform"]) for r in rows or [] if kind is None or r.get("kind") == kind]
        if layers:
            found.append(layers)
    return found


def over_seeds(report, variants, data, kind=None):
    """Adds the table of every variant with two or more seeds' Table 1 (mean ± sd, each seed, how many
    above 1, per layer); returns {variant: per_seed} of those variants."""
    seeds = {v: per_seed(report, v, kind) for v in variants}
    seeds = {v: runs for v, runs in seeds.items() if len(runs) >= 2}
    if not seeds:
        return seeds
    rows = []
    for variant, runs in seeds.items():
        for layer in range(min(len(r) for r in runs)):
            values = [r[layer] for r in runs]
            rows.append([f"`{variant}`", layer + 1, f"{num(mean(values))} ± {num(stdev(values))}",
                         ", ".join(num(x) for x in values), f"{sum(1 for x in values if x > 1)} of {len(values)}"])
    report.add(f"Over training runs: Ratio ÷ uniform of each recorded seed of the same recipe on {data} "
               "(`scripts/study/train-models.sh` keeps each run's Table 1 beside its record). This spread comes "
               "from the training run; the brackets of the bundled model's table come from which test text was read:\n")
    report.add(table(["variant", "layer", "Ratio ÷ uniform, mean ± sd", "per seed", "seeds above 1"], rows))
    return seeds

