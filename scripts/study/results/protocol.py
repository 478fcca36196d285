"""Every way our runs differ from the papers' protocols, in one table, and where the compared groups trained on
different devices: which runs, and an exact test of whether the device moved the metric (each run's distance
from its variant's mean, CPU runs against GPU runs, over every way of giving the devices to the runs).
"""
import itertools

from .cells import num, pvalue, table
from .comparisons import device_kind
from .inputs import read_records

# (what, the paper, ours, what it can change). Ours as scripts/study/train-models.sh and reproduce.sh run it.
DIFFERENCES = [
    ("Bird-Eye LMs: size and training",
     "converged 6-layer Transformers 300 wide; its recipe (learning rate, schedule, batch) is not given",
     "4 layers × 8 heads, d_model 256, d_ff 1,024; Adam at 1e-3, cosine schedule after 200 warm-up steps, batch 16, "
     "dropout 0.1, windows of 128 tokens, 2 epochs on WikiText-2 (the `wiki6_*` runs: 6 layers to early stopping, "
     "queued)",
     "effects that need converged or deeper models may not show"),
    ("BET(SG) and the UD EWT runs", "BET(SG) on WikiText-2 with hints from a parser",
     "UD English EWT with its gold trees, up to 10 epochs, the epoch chosen on dev (5–10 chosen); λ_p chosen "
     "among 0.1, 0.3, 1 on dev",
     "other data and more epochs than the WikiText-2 runs"),
    ("Michel: the models", "a 6-layer WMT Transformer (BLEU) and BERT-base on MNLI",
     "the 4-layer WikiText-2 LM (perplexity) and the 2 + 2-layer Tatoeba en–fr model (BLEU)",
     "head counts per layer (8 and 4 against 16 and 12)"),
    ("Michel: significance", "p < 0.01 per head, uncorrected (Table 1)",
     "the same rule, and Holm's at 0.05 beside it, from the paired bootstrap over paragraphs",
     "Holm is stricter; both are reported"),
    ("Michel §6 / Figure 5", "IWSLT, about 40 epochs, every epoch's pruning curve",
     "10 epochs (`series_mt_vanilla`, `series_ud_vanilla`), one run each",
     "the late regime (from epoch 10) is reached only at the last epoch"),
    ("LAMA: the regulariser", "λ = 0.2 (Eq. 18)", "λ = 1 with the penalisation in `lama`; none in `lama_paper` "
     "(its LAMA+ctx)", "the penalisation's strength"),
    ("LAMA: the context vector", "c starts as the mean of the word annotations (BiGRU states), then is learned",
     "the mean of the review's word embeddings, learned with them (E = 2h, no projection)",
     "what the heads query at the start of training"),
    ("LAMA: the number of heads", "chosen per dataset (§5.5 sweeps m = 1 to 25)",
     "m fixed at 10 (the §5.5 sweep: m = 1, 5, 10, 15, 20 on SST-5)", "an m better for our data is not searched"),
    ("LAMA: the Transformer-encoder baseline", "8 heads, d_model 512 (its §5.1 sizes)",
     "1 layer, 4 heads, d_model 128, d_ff 512", "a smaller baseline than the paper's"),
    ("LAMA: seeds and splits", "the best model after 3-fold cross-validation", "3 seeds on one seeded split "
     "(Amazon) or SST-5's own split", "ours measures training noise, not split noise"),
    ("LAMA: embeddings", "100-dimensional word2vec, words seen under 5 times dropped",
     "learnt with the model (`lama_paper`: 100-dimensional, the same cut-off)", "no pre-trained embeddings here"),
]

# The groups the report compares over seeds, by the variants each test reads.
GROUPS = {
    "Bird-Eye Table 2 (WikiText-2)": ["vanilla", "bet_sf", "bet_sf_no_mask", "diag_free_mask", "reduced_diag",
                                      "magnified_diag"],
    "BET(SG) on UD EWT": ["ud_vanilla", "ud_bet_sg"],
    "LAMA on Amazon Fine Food": ["amazon_lama", "amazon_bigru_max", "amazon_encoder", "amazon_lama_paper"],
    "LAMA on SST-5": ["sst5_lama", "sst5_bigru_max", "sst5_encoder", "sst5_lama_paper"],
    "the translation pair": ["mt_vanilla", "mt_bet_sf"],
}


def metric_of(record):
    return record.get("perplexity", record.get("accuracy"))


def device_test(runs):
    """Exact two-sided p of the device effect over [(variant, device, metric)]: each run's distance from its
    variant's mean, the CPU runs' mean distance minus the GPU runs', against every assignment of the same
    number of CPU labels to the runs. None unless both devices have a run."""
    means = {}
    for variant, _, value in runs:
        means.setdefault(variant, []).append(value)
    means = {v: sum(x) / len(x) for v, x in means.items()}
    residuals = [value - means[variant] for variant, _, value in runs]
    on_cpu = [device == "cpu" for _, device, _ in runs]
    k, n = sum(on_cpu), len(runs)
    if k == 0 or k == n:
        return None, None

    def gap(cpu_indices):
        chosen = set(cpu_indices)
        cpu = [r for i, r in enumerate(residuals) if i in chosen]
        gpu = [r for i, r in enumerate(residuals) if i not in chosen]
        return sum(cpu) / len(cpu) - sum(gpu) / len(gpu)

    observed = gap([i for i, c in enumerate(on_cpu) if c])
    gaps = [gap(c) for c in itertools.combinations(range(n), k)]
    return observed, sum(1 for g in gaps if abs(g) >= abs(observed) - 1e-12) / len(gaps)


def devices(report):
    """One row per compared group whose runs trained on both devices: which runs where, and the test."""
    records = read_records(report.records)
    rows = []
    for group, variants in GROUPS.items():
        runs = [(v, device_kind(r), float(metric_of(r))) for v in variants for _, r in records.get(v, [])
                if metric_of(r) is not None]
        kinds = {d for _, d, _ in runs}
        if len(kinds) < 2:
            continue
        where = "; ".join(f"`{v}` " + ", ".join(f"{d} ×{sum(1 for vv, dd, _ in runs if vv == v and dd == d)}"
                                                for d in sorted(kinds) if any(vv == v and dd == d for vv, dd, _ in runs))
                          for v in variants if any(vv == v for vv, _, _ in runs))
        # Only a variant with runs on both devices tells the device from the variant.
        mixed = {v for v in variants if len({d for vv, d, _ in runs if vv == v}) > 1}
        gap, p = device_test([r for r in runs if r[0] in mixed])
        confounded = [v for v in variants if v not in mixed and any(vv == v for vv, _, _ in runs)]
        rows.append([group, where, "—" if gap is None else f"{num(gap, 3)}, p {pvalue(p)} (from " +
                     ", ".join(f"`{v}`" for v in sorted(mixed)) + ")",
                     ", ".join(f"`{v}`" for v in confounded) or "none"])
    return rows


def protocol(report):
    report.add("## Where our protocol differs from the papers'\n")
    report.add("Every difference between how the papers ran an experiment and how this page runs it, and what it "
               "can change. The verdicts above name the ones that matter for their row.\n")
    report.add(table(["what", "the paper", "ours", "what it can change"], DIFFERENCES))
    rows = devices(report)
    if rows:
        report.add("**Devices.** Some compared groups trained partly on a CPU and partly on a GPU (train-models.sh's "
                   "lanes), whose kernels round differently and so train slightly different models from one seed. "
                   "The test: each run's distance from its own variant's mean, CPU runs' mean minus GPU runs', "
                   "exact over every way of giving the devices to the runs, read from the variants that trained on both (a "
                   "difference in the metric's units, perplexity or accuracy). A variant whose runs all trained on one "
                   "device cannot tell its device from itself: where it is compared with variants trained on the "
                   "other, that comparison carries the device too (last column).\n")
        report.add(table(["group", "runs by device", "CPU − GPU, exact p", "variants on one device only"], rows))
