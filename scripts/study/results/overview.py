"""The report's frame: its header (when, at which commit, in which mode), the bundled models, every run
train-models.sh recorded, and the closing commands that rewrite the page.
"""
import datetime
import os
import subprocess

from .cells import data_name, num, table
from .comparisons import table2_prefix
from .inputs import read_json, read_records


def header(report):
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    report.add("# Results: the three papers' analyses on the bundled models\n")
    report.add(f"_Written by `scripts/study/reproduce.sh` ({report.mode} mode) on {when} at commit {commit}, in "
               f"{report.seconds / 60:.1f} minutes on {os.cpu_count()} cores. Do not edit by hand: rerun the "
               "script. Every number below is read from the CSVs next to this page "
               f"(`{report.rel}/`), which `attention-cli` wrote; the figures are drawn from them by "
               "`attention-plot`._\n")
    if report.mode == "quick":
        report.add("**Quick mode: every step ran on a small slice of its data. These numbers only show "
                   "that the pipeline works; they are not results.**\n")


def models(report):
    rows = []
    for name in ["vanilla_lm", "bet_sf", "bet_sg", "lama_amazon", "mt_vanilla", "mt_bet_sf"]:
        info = read_json(report.path(f"info_{name}.json"))
        if info is None:
            continue
        training = read_json(os.path.join(report.samples, name, "training.json")) or {}
        evaluation = read_json(report.path(f"eval_{name}.json")) or {}
        metric = "—"
        if "perplexity" in evaluation and "bleu" not in evaluation:
            metric = f"perplexity {num(evaluation['perplexity'])}"
        elif "accuracy" in evaluation:
            metric = f"accuracy {num(evaluation['accuracy'], 3)}, macro F1 {num(evaluation['macro_f1'], 3)}"
        elif "bleu" in evaluation:
            metric = f"BLEU {num(evaluation['bleu'])} ({evaluation.get('sentences', '?')} pairs)"
        config = read_json(os.path.join(report.samples, name, "config.json")) or {}
        if "encoder_layers" in config:  # a translation model: its encoder and decoder layers
            shape = f"{config['encoder_layers']} + {config['decoder_layers']} × {info.get('heads', '?')}"
        else:
            shape = f"{info.get('layers', '?')} × {info.get('heads', '?')}"
        if "sample_split" in str(training.get("valid", "")):
            report.contaminated.append(name)
        rows.append([f"`{name}`", info.get("model_type", "?"), shape, info.get("d_model", "—"),
                     f"{info.get('parameters', 0) / 1e6:.2f} M", data_name(training.get("train", "?")),
                     data_name(training.get("valid", "?")), metric])
    report.add("## The models\n")
    report.add("The checkpoints in `sample_data/` (how each was trained: `sample_data/README.md`). The test "
               "metric is on the data this page's sections name.\n")
    report.add(table(["model", "architecture", "layers × heads", "d_model", "parameters", "trained on",
                      "epoch chosen on", "test metric"], rows))
    if report.contaminated:
        report.add(", ".join(f"`{m}`" for m in report.contaminated) + " chose their epoch on `build/sample_split/valid.txt`, "
                   "the first 1,000 lines of WikiText-2's *test* split (they were trained when only the valid and "
                   "test splits were here): their WikiText-2 \"test\" numbers below include those lines, so they "
                   "are slightly optimistic.\n")
    report.add("**Scale.** Michel et al. study a 6-layer, 16-head WMT Transformer and BERT-base (12 layers × 12 "
               "heads), trained on millions of sentences; Bird-Eye's language models are converged 6-layer "
               "Transformers 300 wide on WikiText-2 (its translation models 6 + 6 layers, 512 wide, on IWSLT "
               "De-En); LAMA reads 100-dimensional word2vec embeddings through a BiGRU of 50 per direction, "
               "trained on up to 560,000 reviews. The models above are smaller and, the WikiText-2 language models, "
               "trained for 2 epochs (the UD EWT ones up to 10), so a pattern that does not show here may still hold at the papers' scale, and one "
               "that shows here says nothing about theirs until it is measured there.\n")


def recorded_runs(report):
    """Every run scripts/study/train-models.sh finished: its test result and the epoch validation chose."""
    rows = []
    for variant, runs in read_records(report.records).items():
        for seed, record in runs:
            training = record.get("training", {})
            metric = "accuracy" if "accuracy" in record else "perplexity"
            digits = 3 if metric == "accuracy" else 2
            rows.append([f"`{variant}`", seed, f"{metric} {num(record.get(metric), digits)}",
                         num(training.get(f"best_valid_{metric}"), digits),
                         f"{training.get('best_epoch', '—')} of {training.get('epochs', '—')}",
                         training.get("device", "cpu (before devices were recorded)"), data_name(record.get("data", ""))])
    if not rows:
        return
    report.add("## The recorded runs\n")
    report.add(f"Each run `scripts/study/train-models.sh` has finished, as recorded in `{report.records}/` ({len(rows)} run{'s' if len(rows) != 1 else ''}): "
               "its metric on the test split, measured once after training, and the validation score that "
               "chose its epoch. The bundled language models are seed 1 of their variants and keep its weights "
               "(`sample_data/`); the bundled translation models are runs of their own with the same recipe "
               "(sample_data/README.md), not the recorded seed-1 runs. The comparisons over seeds below read these "
               "records. A variant with one run so far is listed here "
               "and compared with nothing.\n")
    report.add(table(["variant", "seed", "test", "best valid", "epoch chosen", "trained on", "test data"], rows))
    queued(report)


def queued(report):
    """The runs train-models.sh has queued and not recorded yet (reproduce.sh lists them in queued.txt)."""
    path = report.path("queued.txt")
    if not os.path.exists(path):
        return
    seeds = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                variant, seed = line.split()[:2]
                seeds.setdefault(variant, []).append(seed)
    if not seeds:
        report.add("No run is queued: every run `scripts/study/train-models.sh` lists is recorded.\n")
        return
    report.add(f"**Still queued** ({sum(len(s) for s in seeds.values())} runs; `scripts/study/train-models.sh queue` "
               "trains them on CPU lanes, `scripts/gpu/gpu-train.sh` on a lent GPU; the report compares them once "
               "recorded): " + "; ".join(f"`{v}` seed{'s' if len(s) > 1 else ''} {', '.join(s)}"
                                         for v, s in seeds.items()) + "." +
               (("" if not any(v.startswith("wiki6_") for v in seeds) else
                 " The `wiki6_*` runs are Table 2's variants at the paper's 6 layers trained until validation stops "
                 "improving; Table 2 compares those recorded, and the queued seeds join them once recorded."
                 if table2_prefix(report) else
                 " The `wiki6_*` runs are Table 2's variants at the paper's 6 layers trained until validation stops "
                 "improving; until they are recorded, every WikiText-2 number on this page comes from the 2-epoch "
                 "4-layer models.")) + "\n")


def reproduce(report):
    report.add("## Reproduce\n")
    report.add("```sh\nscripts/build.sh                 # once\nscripts/study/reproduce.sh             # this page "
               "(docs/results.md, docs/results/)\nscripts/study/reproduce.sh --quick     # the pipeline on small slices "
               "(ctest: reproduce.quick)\nscripts/study/train-models.sh queue    # the study-size models and Table 2's "
               "seeds (hours on 2 cores)\n```\n")
