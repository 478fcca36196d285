#!/usr/bin/env python3
"""Writes docs/results.md from the CSVs and figures scripts/study/reproduce.sh leaves in its results folder.

Every number in the report comes from those files; every sentence that reads a result is built from
the numbers it reads (a difference is called significant only when its test says so), so rerunning
reproduce.sh on new models rewrites the text with them. The papers' own numbers are quoted where we
could read them (results/papers.py, with their source); where we could not, the report says so.
Standard library only: the report must be writable on a fresh Debian machine.
"""
import argparse
import datetime
import os
import subprocess
import sys

from results.cells import data_name, figure, interval, num, pvalue, span, table
from results.comparisons import against, runs_by_device, trained_on
from results.inputs import read_csv, read_json
from results.papers import MICHEL_SOURCE, MICHEL_TABLE2_WMT, TABLE2_VARIANTS


class Report:
    def __init__(self, results, out, samples, mode, seconds, records=""):
        self.results = results
        self.records = records
        self.out = out
        self.samples = samples
        self.mode = mode
        self.seconds = seconds
        self.rel = os.path.relpath(results, os.path.dirname(os.path.abspath(out)) or ".")
        self.parts = []
        self.contaminated = []  # models whose epoch was chosen on lines of the test split

    def path(self, name):
        return os.path.join(self.results, name)

    def add(self, text=""):
        self.parts.append(text)

    def has_figure(self, name):
        return os.path.exists(self.path(name))

    def fig(self, name, caption):
        if self.has_figure(name):
            self.add(figure(self.rel, name, caption))

    # ---- header and models
    def header(self):
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        self.add("# Results: the three papers' analyses on the bundled models\n")
        self.add(f"_Written by `scripts/study/reproduce.sh` ({self.mode} mode) on {when} at commit {commit}, in "
                 f"{self.seconds / 60:.1f} minutes on {os.cpu_count()} cores. Do not edit by hand: rerun the "
                 "script. Every number below is read from the CSVs next to this page "
                 f"(`{self.rel}/`), which `attention-cli` wrote; the figures are drawn from them by "
                 "`attention-plot`._\n")
        if self.mode == "quick":
            self.add("**Quick mode: every step ran on a small slice of its data. These numbers only show "
                     "that the pipeline works; they are not results.**\n")

    def models(self):
        rows = []
        for name in ["vanilla_lm", "bet_sf", "bet_sg", "lama_amazon", "mt_vanilla", "mt_bet_sf"]:
            info = read_json(self.path(f"info_{name}.json"))
            if info is None:
                continue
            training = read_json(os.path.join(self.samples, name, "training.json")) or {}
            evaluation = read_json(self.path(f"eval_{name}.json")) or {}
            metric = "—"
            if "perplexity" in evaluation and "bleu" not in evaluation:
                metric = f"perplexity {num(evaluation['perplexity'])}"
            elif "accuracy" in evaluation:
                metric = f"accuracy {num(evaluation['accuracy'], 3)}, macro F1 {num(evaluation['macro_f1'], 3)}"
            elif "bleu" in evaluation:
                metric = f"BLEU {num(evaluation['bleu'])} ({evaluation.get('sentences', '?')} pairs)"
            config = read_json(os.path.join(self.samples, name, "config.json")) or {}
            if "encoder_layers" in config:  # a translation model: its encoder and decoder layers
                shape = f"{config['encoder_layers']} + {config['decoder_layers']} × {info.get('heads', '?')}"
            else:
                shape = f"{info.get('layers', '?')} × {info.get('heads', '?')}"
            if "sample_split" in str(training.get("valid", "")):
                self.contaminated.append(name)
            rows.append([f"`{name}`", info.get("model_type", "?"), shape, info.get("d_model", "—"),
                         f"{info.get('parameters', 0) / 1e6:.2f} M", data_name(training.get("train", "?")),
                         data_name(training.get("valid", "?")), metric])
        self.add("## The models\n")
        self.add("The checkpoints in `sample_data/` (how each was trained: `sample_data/README.md`). The test "
                 "metric is on the data this page's sections name.\n")
        self.add(table(["model", "architecture", "layers × heads", "d_model", "parameters", "trained on",
                        "epoch chosen on", "test metric"], rows))
        if self.contaminated:
            self.add(", ".join(f"`{m}`" for m in self.contaminated) + " chose their epoch on `build/sample_split/valid.txt`, "
                     "the first 1,000 lines of WikiText-2's *test* split (they were trained when only the valid and "
                     "test splits were here): their WikiText-2 \"test\" numbers below include those lines, so they "
                     "are slightly optimistic.\n")
        self.add("**Scale.** Michel et al. study a 6-layer, 16-head WMT Transformer and BERT-base (12 layers × 12 "
                 "heads), trained on millions of sentences; we could not read the Bird-Eye and LAMA papers' model "
                 "sizes. The models above are smaller than those, so a pattern that does not show here may still "
                 "hold at the papers' scale, and one that shows here says nothing about theirs until it is "
                 "measured there.\n")

    # ---- Bird-Eye
    def table1(self):
        _, rows = read_csv(self.path("table1.csv"))
        if rows is None:
            return
        self.add("## Bird-Eye Table 1: how much attention the current token gets\n")
        self.add("`attention-cli stats` on the WikiText-2 test split: CA is the mean weight a row gives its own "
                 "(current) token, HA(μ) and HA(σ) the mean and spread of the weights on the history, Ratio = "
                 "CA / HA(μ). Uniform causal attention already has a Ratio well above 1 (early rows have few keys: "
                 "docs/analyses.md), so \"uniform Ratio\" is that of an even spread over exactly the rows measured, "
                 "and Ratio ÷ uniform > 1 means the current token gets more than an even spread would give it.\n")
        self.add(table(["model", "layer", "CA", "HA(μ)", "HA(σ)", "Ratio", "uniform Ratio", "Ratio ÷ uniform"],
                       [[r["model"], r["layer"], num(r["CA"], 3), num(r["HA_mean"], 3), num(r["HA_std"], 3),
                         num(r["Ratio"]), num(r["uniform_Ratio"]), num(r["Ratio_over_uniform"])] for r in rows]))
        self.fig("table1.png", "Ratio per layer against the uniform reference")
        by_model = {}
        for r in rows:
            by_model.setdefault(r["model"], []).append(float(r["Ratio_over_uniform"]))
        sentences = []
        for model, ratios in by_model.items():
            above = sum(1 for x in ratios if x > 1.0)
            sentences.append(f"`{model}`: Ratio ÷ uniform {', '.join(num(x) for x in ratios)} over its "
                             f"{len(ratios)} layers ({above} above 1)")
        self.add("**What the paper says.** Its abstract: a vanilla Transformer predicting token i+1 \"only takes the "
                 "i-th token as an information collector, and it tends to give a high attention weight to those "
                 "tokens similar to itself\"; BET reweights attention towards the history. We could not read the "
                 "paper's Table 1 values, so they are not quoted here.\n")
        vanilla = by_model.get("vanilla_lm", [])
        if vanilla and all(x > 1.0 for x in vanilla):
            reading = ("The vanilla model puts more weight on the current token than an even spread in every layer, "
                       "the pattern the paper describes.")
        elif vanilla and any(x > 1.0 for x in vanilla):
            reading = ("The vanilla model shows the paper's pattern in some layers only.")
        else:
            reading = ("The vanilla model gives the current token no more than an even spread would: the pattern "
                       "the paper describes does not show in this model.")
        self.add("**What we see.** " + "; ".join(sentences) + ". " + reading + " BET(SF)'s diagonal-free mask "
                 "zeroes the current token's weight on every row but the first, so its CA comes from row 0 "
                 "only.\n")
        _, sg = read_csv(self.path("table1_bet_sg.csv"))
        if sg:
            self.add("BET(SG) on the UD English EWT test split (its own data; it was trained on EWT):\n")
            self.add(table(["model", "layer", "CA", "HA(μ)", "Ratio", "uniform Ratio", "Ratio ÷ uniform"],
                           [[r["model"], r["layer"], num(r["CA"], 3), num(r["HA_mean"], 3), num(r["Ratio"]),
                             num(r["uniform_Ratio"]), num(r["Ratio_over_uniform"])] for r in sg]))

    def recorded_runs(self):
        """Every run scripts/study/train-models.sh finished: its test result and the epoch validation chose."""
        rows = []
        for variant, runs in self.read_records().items():
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
        self.add("## The recorded runs\n")
        self.add(f"Each run `scripts/study/train-models.sh` has finished, as recorded in `{self.records}/` ({len(rows)} run{'s' if len(rows) != 1 else ''}): "
                 "its metric on the test split, measured once after training, and the validation score that "
                 "chose its epoch. Only seed 1 of the bundled models keeps its weights (`sample_data/`); the "
                 "comparisons over seeds below read these records. A variant with one run so far is listed here "
                 "and compared with nothing.\n")
        self.add(table(["variant", "seed", "test", "best valid", "epoch chosen", "trained on", "test data"], rows))

    def read_records(self):
        """{variant: [(seed, record)]} of every run train-models.sh recorded, variants and seeds sorted."""
        found = {}
        if not self.records or not os.path.isdir(self.records):
            return found
        for variant in sorted(os.listdir(self.records)):
            folder = os.path.join(self.records, variant)
            names = sorted(n for n in os.listdir(folder) if n.startswith("seed-") and n.endswith(".json"))
            runs = [(n[len("seed-"):-len(".json")], read_json(os.path.join(folder, n)) or {}) for n in names]
            if runs:
                found[variant] = runs
        return found

    def table2(self):
        self.add("## Bird-Eye Table 2: perplexity of each variant over seeds\n")
        _, summary = read_csv(self.path("table2_summary.csv"))
        _, tests = read_csv(self.path("table2_tests.csv"))
        records = self.read_records()
        recorded = [(v, [float(r["perplexity"]) for _, r in records[v] if "perplexity" in r])
                    for v in TABLE2_VARIANTS if v in records]
        recorded = [(v, ppl) for v, ppl in recorded if ppl]
        if not summary:
            if recorded:
                self.add("Fewer than two variants had two recorded seeds when this page was written, so there is no "
                         "mean ± sd or t-test yet (`scripts/study/train-models.sh queue` trains 3 seeds of each; the next "
                         "`scripts/study/reproduce.sh` compares them here). The runs recorded so far, WikiText-2 test "
                         "perplexity of each seed:\n")
                self.add(table(["variant", "seeds", "test perplexity per seed"],
                               [[f"`{v}`", len(ppl), ", ".join(num(x) for x in ppl)] for v, ppl in recorded]))
                spread = [max(p) - min(p) for _, p in recorded if len(p) > 1]
                values = [x for _, p in recorded for x in p]
                self.add(f"**What we see.** The recorded runs lie between {num(min(values))} and "
                         f"{num(max(values))}" + (f"; two seeds of one variant already differ by {num(max(spread))}"
                                                  if spread else "") +
                         ", so one run a variant cannot rank the variants. **The paper** reports BET better than the vanilla "
                         "Transformer on all three of its language-modelling datasets (abstract); we could not read "
                         "its Table 2's values.\n")
            else:
                self.add("No runs were recorded when this page was written: `scripts/study/train-models.sh queue` trains "
                         "them (3 seeds of each Table 2 variant). **The paper** reports BET better than the vanilla "
                         "Transformer on all three of its language-modelling datasets (abstract).\n")
            return
        self.add("`attention-cli compare`: each variant's runs (seeds) evaluated on the WikiText-2 test split; "
                 "mean ± sd over runs, and Welch's t-test (unequal variances) of each variant against the first, "
                 "Holm-adjusted over those tests.\n")
        devices = {v: trained_on(runs) for v, runs in records.items()}
        self.add(table(["variant", "runs", "test perplexity, mean ± sd", "trained on"],
                       [[r["variant"], r["runs"], f"{num(r['mean'])} ± {num(r['sd'])}", devices.get(r["variant"], "—")]
                        for r in summary]))
        if len({devices.get(r["variant"]) for r in summary}) > 1:
            self.add("The variants' seeds did not all train on one device (the CPU here, or a lent GPU): the same "
                     "seed does not give the same weights on another device (docs/training.md measured 0.2–0.8 % "
                     "apart in perplexity), so a device difference adds to the seed-to-seed spread; each run's "
                     "device is in the recorded runs' table below." + runs_by_device(records, [r["variant"] for r in summary]) +
                     "\n")
        if tests:
            reference = summary[0]["variant"]
            rows, sentences = [], []
            for other, diff, (low, high), p, holm, t in against(tests, reference):  # diff = reference − other
                rows.append([other, num(-diff), span(-high, -low), num(t["df"], 1), pvalue(p), pvalue(holm)])
                verdict = "significant at 0.05" if holm < 0.05 else "not significant at 0.05"
                direction = "lower" if diff > 0 else "higher"
                sentences.append(f"`{other}` is {num(abs(diff))} {direction} than `{reference}` (p = {pvalue(p)}, "
                                 f"Holm p = {pvalue(holm)}, {verdict})")
            self.add(table([f"variant vs `{reference}`", "difference in mean perplexity",
                            "95 % interval (Welch, unadjusted)", "Welch df", "p", "Holm p"], rows))
            runs = min(int(r["runs"]) for r in summary)
            unadjusted = [other for other, _, _, p, holm, _ in against(tests, reference) if p < 0.05 <= holm]
            self.add("**What we see.** " + "; ".join(sentences) + f". Each variant is tested against `{reference}` "
                     f"alone ({len(rows)} test{'s' if len(rows) != 1 else ''}), and Holm's adjustment keeps the chance of any false \"significant\" "
                     "among them at 5 %" + (f"; {', '.join(f'`{o}`' for o in unadjusted)} would pass at 0.05 without "
                                             "it" if unadjusted else "") +
                     f". With {runs} runs a variant, only differences several times the seed-to-seed spread reach "
                     "significance; a \"not significant\" here is no evidence that the variants are equal.\n")
        compared = {r["variant"] for r in summary}
        single = [(v, ppl) for v, ppl in recorded if v not in compared]
        if single:
            self.add("Variants with fewer than two recorded seeds are not compared; their runs, WikiText-2 test "
                     "perplexity: " + "; ".join(f"`{v}` {', '.join(num(x) for x in ppl)}" for v, ppl in single) +
                     ". One run cannot place a variant against the others' spread.\n")
        self.add("**What the paper says.** BET beats the vanilla Transformer on all three of its language-"
                 "modelling datasets (abstract); we could not read its Table 2's values.\n")

    def table2_ud(self):
        """BET(SG) on UD EWT: the λ_p sweep and the chosen weight's seeds against a vanilla model."""
        _, lambdas = read_csv(self.path("bet_sg_lambda.csv"))
        if lambdas:
            best = min(lambdas, key=lambda r: float(r["best_dev_perplexity"]))
            self.add("BET(SG)'s pointer-loss weight λ_p, chosen on the UD EWT dev set (seed 1 of each):\n")
            self.add(table(["λ_p", "best dev perplexity"],
                           [[r["lambda_p"], num(r["best_dev_perplexity"])] for r in lambdas]))
            self.add(f"λ_p = {best['lambda_p']} is taken on to the other seeds.\n")
        _, ud = read_csv(self.path("table2_ud_summary.csv"))
        _, ud_tests = read_csv(self.path("table2_ud_tests.csv"))
        if ud:
            self.add("BET(SG) against a vanilla Transformer trained the same way on UD EWT, test perplexity over seeds:\n")
            self.add(table(["variant", "runs", "test perplexity, mean ± sd"],
                           [[r["variant"], r["runs"], f"{num(r['mean'])} ± {num(r['sd'])}"] for r in ud]))
            for t in ud_tests or []:
                p = float(t["p_value"])
                self.add(f"`{t['first']}` − `{t['second']}` = {num(t['difference'])}, 95 % interval "
                         f"{span(float(t['ci_low']), float(t['ci_high']))} (Welch p = {pvalue(p)}, "
                         f"{'significant' if p < 0.05 else 'not significant'} at 0.05).\n")

    def table3(self):
        _, rows = read_csv(self.path("table3.csv"))
        if not rows:
            return
        self.add("## Bird-Eye Table 3: the tokens each model attends to most\n")
        self.add("`attention-cli top-tokens` on `sample_data/demo_sentences.txt`: for the row predicting the "
                 "sentence's last token, the 3 tokens with the highest head-mean weight, per layer.\n")
        ks = [k for k in rows[0] if k.startswith("top")]
        self.add(table(["sentence", "layer", "model", "top tokens"],
                       [[r["sentence"], r["layer"], r["method"], ", ".join(r[k] for k in ks if r[k])] for r in rows]))
        same = sum(1 for a, b in zip(rows[0::2], rows[1::2]) if [a[k] for k in ks] == [b[k] for k in ks])
        self.add(f"The two models' lists are identical in {same} of {len(rows) // 2} (sentence, layer) rows. The paper's "
                 "Table 3 lists such tokens for BET and a vanilla Transformer; we could not read it, so there is "
                 "nothing to compare them with.\n")

    def michel_part(self):
        """The text the per-setting sweeps (Figure 3, Michel) read, as reproduce.sh recorded it."""
        slices = read_json(self.path("slices.json")) or {}
        if "michel_lines" not in slices:
            return "the first part of the WikiText-2 test split"
        if int(slices["michel_lines"]) == 0:
            return f"the whole WikiText-2 test split ({int(slices['michel_words']):,} words)"
        return (f"the first {int(slices['michel_lines']):,} lines ({int(slices['michel_words']):,} words) of the "
                "WikiText-2 test split")

    def figure3(self):
        models = [m for m in ["vanilla_lm", "bet_sf"] if os.path.exists(self.path(f"figure3_{m}.csv"))]
        if not models:
            return
        self.add("## Bird-Eye Figure 3: perplexity with the attention diagonal scaled\n")
        self.add("`attention-cli diag-sweep`: the dot-product score of each token with itself multiplied by a factor "
                 f"(1 = the model as trained; `mask` = the diagonal removed) at evaluation time, over "
                 f"{self.michel_part()}, with the paired bootstrap over windows (Holm-corrected).\n")
        for m in models:
            comments, rows = read_csv(self.path(f"figure3_{m}.csv"))
            self.add(f"### `{m}` (baseline perplexity {num(comments.get('baseline'))})\n")
            self.add(table(["diagonal factor", "perplexity", "Δ", "95 % interval of Δ", "adjusted p"],
                           [[r["factor"], num(r["metric"]), num(r["delta"]),
                             interval(r), pvalue(r["p_adjusted"])]
                            for r in rows]))
            self.fig(f"figure3_{m}.png", f"Figure 3 for {m}")
            better = [r["factor"] for r in rows if r["significant"] == "1" and float(r["delta"]) < 0]
            worse = [r["factor"] for r in rows if r["significant"] == "1" and float(r["delta"]) > 0]
            self.add(f"Significantly better than as trained: {', '.join(better) or 'no factor'}; significantly "
                     f"worse: {', '.join(worse) or 'no factor'}.\n")
        self.add("Scaling the diagonal of a model *after* training tests how much it relies on its current-token "
                 "weight; the paper's Reduced/Magnified Diag rows train with the scaled diagonal (Table 2 above).\n")

    # ---- Michel
    def michel(self):
        comments, single = read_csv(self.path("michel_single.csv"))
        if single is None:
            return
        self.add("## Michel et al.: are all heads needed?\n")
        self.add(f"On `{comments.get('model')}`, over {self.michel_part()} (the sweeps "
                 "evaluate it once per head setting); 95 % paired-bootstrap intervals, Holm-corrected p-values. "
                 f"Baseline perplexity {num(comments.get('baseline'))}.\n")
        self.add("### Table 1: each head switched off alone\n")
        self.add(table(["layer", "head", "perplexity", "Δ", "95 % interval", "adjusted p", "significant"],
                       [[r["layer"], r["head"], num(r["metric"]), num(r["delta"]),
                         interval(r), pvalue(r["p_adjusted"]),
                         "yes" if r["significant"] == "1" else "no"] for r in single]))
        self.fig("michel_single.png", "Δ perplexity with each head off")
        significant = [r for r in single if r["significant"] == "1"]
        helping = [r for r in significant if float(r["delta"]) < 0]
        self.add(f"**What we see.** {len(significant)} of {len(single)} heads change perplexity significantly when "
                 f"switched off alone ({len(helping)} of them improve it). **The paper** (Table 1, WMT encoder "
                 "self-attention): 8 of 96 heads change BLEU significantly at p < 0.01, 4 of them for the better — "
                 "most heads have no significant effect alone. " + (
                     "Here, unlike there, most heads have a significant effect alone."
                     if len(significant) > len(single) / 2 else
                     "Here too most heads have no significant effect alone (which does not make their effect zero: "
                     "read the intervals).") + "\n")
        _, alone = read_csv(self.path("michel_alone.csv"))
        if alone:
            self.add("### Table 2: only the best head of a layer kept\n")
            self.add(table(["layer", "best head", "perplexity", "Δ", "95 % interval", "significant"],
                           [[r["layer"], r["best_head"], num(r["metric"]), num(r["delta"]),
                             interval(r),
                             "yes" if r["significant"] == "1" else "no"] for r in alone]))
            self.add("The paper's Table 2 (WMT, ΔBLEU with the best head alone; * significant at p < 0.01):\n")
            self.add(table(["layer", "Enc-Enc", "Enc-Dec", "Dec-Dec"], MICHEL_TABLE2_WMT))
            reduced = sum(1 for r in alone if r["significant"] != "1")
            deltas = [float(r["delta"]) for r in alone]
            verdict = ("every layer changes significantly" if reduced == 0 else
                       f"{reduced} of {len(alone)} layers show no significant change")
            self.add(f"**What we see.** With one head left, {verdict} (Δ perplexity from {num(min(deltas))} to "
                     f"{num(max(deltas))} over the layers); the paper finds no significant change for half of WMT's "
                     "layers and all of BERT's.\n")
        _, importance = read_csv(self.path("importance.csv"))
        if importance:
            self.add("### Head importance I_h (§4.1)\n")
            self.add("I_h = mean |∂L/∂ξ_h| over the text, each layer divided by its ℓ2 norm, as the paper does.\n")
            self.fig("importance.png", "I_h per head")
        comments, pruning = read_csv(self.path("pruning.csv"))
        if pruning:
            self.add("### Figure 3: pruning heads in order\n")
            self.add("Heads ranked on the WikiText-2 *validation* text (by I_h, and by single-head ablation damage: "
                     "the \"oracle\" order), then switched off 10 % at a time on the test part: the ranking never "
                     "sees the text it is scored on.\n")
            orders = {}
            for r in pruning:
                orders.setdefault(r["order"], []).append(r)
            percents = [r["percent_pruned"] for r in next(iter(orders.values()))]
            rows = []
            for order, rs in orders.items():
                rows.append([order] + [num(r["metric"], 1) for r in rs])
            self.add(table(["order \\ % pruned"] + percents, rows))
            self.fig("pruning.png", "Perplexity as heads are pruned, with 95 % intervals")
            sentences = []
            for order, rs in orders.items():
                # the first step whose rise is significant, and the share pruned before it
                first = next((r for r in rs if float(r["percent_pruned"]) > 0 and r["significant"] == "1"
                              and float(r["delta"]) > 0), None)
                at_20 = next((r for r in rs if float(r["percent_pruned"]) == 20), None)
                change = f"; at 20 %, Δ {num(at_20['delta'])}" if at_20 and at_20 is not first else ""
                if first:
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
            self.add("**What we see.** " + "; ".join(sentences)[0].upper() + "; ".join(sentences)[1:] + "." + verdict +
                     " **The paper:** about 20 % of WMT's heads and 40 % of BERT's can be pruned before the metric "
                     "drops noticeably, and the I_h order beats the ablation order (Figure 3).\n")
        _, speed = read_csv(self.path("pruning_speed.csv"))
        if speed and len(speed) == 2:
            full, pruned = speed
            gain = float(full["seconds"]) / float(pruned["seconds"]) - 1
            self.add("### Real pruning: the heads removed from the weights\n")
            self.add("`prune --apply 50 --save`: half of the heads removed from the checkpoint (not gated), then "
                     "`eval` over the Michel slice of the test split (the two models alternated 3 times, each one's "
                     "fastest wall time, "
                     "loading included).\n")
            self.add(table(["model", "heads", "parameters", "perplexity", "seconds (fastest of 3)", "slowest"],
                           [[r["model"], r["heads"], f"{int(r['parameters']):,}", num(r["perplexity"]),
                             num(r["seconds"], 3), num(r.get("seconds_max"), 3)] for r in speed]))
            # A difference smaller than either model's own run-to-run spread is not a measured speed-up.
            spread = max(float(r.get("seconds_max") or r["seconds"]) - float(r["seconds"]) for r in speed)
            measured = abs(float(full["seconds"]) - float(pruned["seconds"])) > spread
            verdict = (f"Speed-up {gain * 100:+.1f} %" + ("." if measured else
                       ", smaller than the spread of the runs themselves: no measurable change."))
            self.add(f"{verdict} **The paper** (Table 4, BERT, 50 % of heads pruned, GPU): "
                     "+1.9 % to +17.5 % examples per second from batch 1 to 64. Removing heads shrinks only the "
                     "attention projections and products; the feed-forward layers, the output layer over the "
                     "vocabulary, loading and reading the text stay, and bound the speed-up.\n")
        self.add(f"_Source of the paper's numbers: {MICHEL_SOURCE}._\n")

    # ---- LAMA
    def lama(self):
        _, words = read_csv(self.path("lama_words.csv"))
        if words is None:
            return
        evaluation = read_json(self.path("eval_lama_amazon.json")) or {}
        self.add("## LAMA: word weights per rating (Figure 4) and keywords (Table 6)\n")
        if evaluation:
            self.add(f"`sample_data/lama_amazon` on the Amazon Fine Food test part ({evaluation.get('count')} "
                     f"reviews): accuracy {num(evaluation.get('accuracy'), 3)}, macro F1 "
                     f"{num(evaluation.get('macro_f1'), 3)}.\n")
        self.add("`attention-cli word-weights --scale length`: each occurrence's weight (head mean) times the "
                 "review's length, so 1 is what a uniform distribution gives.\n")
        self.add(table(["word", "rating", "occurrences", "mean weight × length", "median"],
                       [[r["word"], r["label"], r["count"], num(r["mean"]), num(r["median"])] for r in words]))
        self.fig("lama_figure4.png", "Word-weight densities per rating")
        _, keywords = read_csv(self.path("lama_keywords.csv"))
        if keywords:
            by_label = {}
            for r in keywords:
                by_label.setdefault(r["label"], []).append(r)
            self.add("Table 6: the words with the highest mean weight × length per rating (top 5):\n")
            self.add(table(["rating", "keywords (mean weight × length)"],
                           [[label, ", ".join(f"{r['word']} ({num(r['mean_weight'])})" for r in rs[:5])]
                            for label, rs in by_label.items()]))
        means = [float(r["mean"]) for r in words]
        if means:
            self.add(f"**What we see.** The followed words' mean weights lie between {num(min(means))} and "
                     f"{num(max(means))} × uniform. **The paper** plots these distributions shifting with the rating; "
                     "we could not read its Figure 4 or Table 6 values, so no number is quoted.\n")
        self.lama_heads()
        self.lama_baselines()

    def lama_heads(self):
        """Each head's spread on the valid part, and the widest head's word weights on the test part."""
        _, heads = read_csv(self.path("lama_heads.csv"))
        if not heads:
            return
        self.add("### Each head on its own\n")
        self.add("The head mean above averages heads that disagree. Each head's weight × length over every "
                 "occurrence of the followed words on the **valid** part (`word-weights --head K --part valid`):\n")
        self.add(table(["head", "occurrences", "min", "5 %", "median", "95 %", "max"],
                       [[r["head"], r["occurrences"], num(r["min"]), num(r["p5"]), num(r["median"]), num(r["p95"]),
                         num(r["max"])] for r in heads]))
        widest = next(r for r in heads if r["shown_on_test"] == "1")  # chosen by reproduce.sh
        narrowest = min(heads, key=lambda r: float(r["p95"]) - float(r["p5"]))
        self.add(f"Head {widest['head']} has the widest 5–95 % range ({num(widest['p5'])}–{num(widest['p95'])}; "
                 f"its largest weight is {num(float(widest['max']) / float(widest['min']), 1)} × its smallest), head "
                 f"{narrowest['head']} the narrowest ({num(narrowest['p5'])}–{num(narrowest['p95'])}). A head's scores "
                 "lie in [−1, 1] (docs/lama.md), so within one review no word can get more than e² ≈ 7.4 × another "
                 "word's weight.\n")
        _, words = read_csv(self.path("lama_head_words.csv"))
        if not words:
            return
        by_word = {}
        for r in words:
            by_word.setdefault(r["word"], []).append(r)
        self.add(f"Head {widest['head']}, chosen on the valid part, on the **test** part: mean weight × length per "
                 "rating (occurrences in brackets):\n")
        self.add(table(["word", "per rating"],
                       [[w, ", ".join(f"{r['label']}★ {num(r['mean'])} ({r['count']})" for r in rs)]
                        for w, rs in by_word.items()]))
        self.fig("lama_figure4_head.png", f"Word-weight densities per rating, head {widest['head']}")
        word_means = {w: sum(float(r["mean"]) * int(r["count"]) for r in rs) / sum(int(r["count"]) for r in rs)
                      for w, rs in by_word.items()}
        high = max(word_means, key=word_means.get)
        low = min(word_means, key=word_means.get)
        _, shifts = read_csv(self.path("lama_head_shift.csv"))
        significant = [r for r in shifts or [] if float(r["p_adjusted"]) < 0.05]
        shift_text = (f"{len(significant)} of {len(shifts)} (word, pair of ratings) comparisons differ at 0.05 after "
                      "Holm's correction (Mann–Whitney U)" + (": " + "; ".join(
                          f"`{r['word']}` {r['label_a']}★ vs {r['label_b']}★ (medians {num(r['median_a'])} vs "
                          f"{num(r['median_b'])})" for r in significant) if significant else "")) if shifts else ""
        self.add(f"**What we see.** This head weighs words very differently: `{high}` gets "
                 f"{num(word_means[high])} × uniform on average and `{low}` {num(word_means[low])}, "
                 f"{num(word_means[high] / word_means[low], 1)} × apart. " + (shift_text + ". " if shift_text else "") +
                 ("The word, not the rating, moves the weight here. " if shifts and not significant else "") +
                 "The attention of this LAMA is peaked in some heads and near-uniform in others; the head mean "
                 "hides it.\n")

    def lama_baselines(self):
        found = [(name, read_csv(self.path(f"lama_{name}_summary.csv"))[1], read_csv(self.path(f"lama_{name}_tests.csv"))[1])
                 for name in ["amazon", "sst5"]]
        found = [(name, summary, tests) for name, summary, tests in found if summary]
        self.add("### LAMA against its baselines\n")
        if not found:
            self.add("Not yet measured: `scripts/study/train-models.sh queue` trains LAMA+ctx (with the penalisation), the "
                     "max-pooled BiGRU and the 1-layer encoder, 3 seeds each, on Amazon Fine Food and SST-5; the next "
                     "`scripts/study/reproduce.sh` compares them here. The single runs of the first small models are in "
                     "[results-history.md](results-history.md).\n")
            return
        for name, summary, tests in found:
            title = {"amazon": "Amazon Fine Food (seeded 80/10/10 split)", "sst5": "SST-5 (its own split)"}[name]
            self.add(f"{title}: test accuracy over seeds (`compare`), mean ± sd, and Welch's t-test against LAMA, "
                     "Holm-adjusted over the two baselines.\n")
            self.add(table(["model", "runs", "test accuracy, mean ± sd"],
                           [[r["variant"], r["runs"], f"{num(r['mean'], 3)} ± {num(r['sd'], 3)}"] for r in summary]))
            rows, sentences = [], []
            for other, lama_minus_other, (low, high), p, holm, _ in against(tests, "lama"):
                rows.append([other, num(lama_minus_other, 3), span(low, high, 3), pvalue(p), pvalue(holm),
                             "yes" if holm < 0.05 else "no"])
                if holm < 0.05:
                    sentences.append(f"LAMA is {'above' if lama_minus_other > 0 else 'below'} `{other}` by "
                                     f"{num(abs(lama_minus_other), 3)} (Holm p = {pvalue(holm)})")
                else:
                    sentences.append(f"LAMA and `{other}` differ by {num(lama_minus_other, 3)}, not significantly "
                                     f"(p = {pvalue(p)}, Holm p = {pvalue(holm)})")
            if rows:
                self.add(table(["baseline", "LAMA − baseline (accuracy)", "95 % interval (Welch, unadjusted)", "p", "Holm p",
                                "significant at 0.05 (Holm)"], rows))
                runs = min(int(r["runs"]) for r in summary)
                self.add("**What we see.** " + "; ".join(sentences) + f". With {runs} seeds a model, a difference "
                         "that is not significant is no evidence that the models are equal. **The paper** reports "
                         "that LAMA matches or outperforms its baselines (abstract); we could not read its tables' "
                         "values.\n")

    # ---- translation
    def translation(self):
        _, rows = read_csv(self.path("table1_mt.csv"))
        if not rows:
            return
        self.add("## Translation models: Table 1's MT rows and Michel Table 2 by BLEU\n")
        bleu = []
        for m in ["mt_vanilla", "mt_bet_sf"]:
            e = read_json(self.path(f"eval_{m}.json"))
            if e:
                bleu.append(f"`{m}` BLEU {num(e['bleu'])}, chrF {num(e['chrf'])} on {e['sentences']} Tatoeba test pairs")
        if bleu:
            self.add("; ".join(bleu) + " (beam 4).\n")
        self.add(table(["model", "attention", "layer", "CA", "HA(μ)", "Ratio", "Ratio ÷ uniform"],
                       [[r["model"], r["kind"], r["layer"], num(r["CA"], 3), num(r["HA_mean"], 3), num(r["Ratio"]),
                         num(r["Ratio_over_uniform"])] for r in rows]))
        comments, alone = read_csv(self.path("michel_alone_mt.csv"))
        if alone:
            self.add(f"`mt_vanilla`, only the best head of each block kept (BLEU; baseline "
                     f"{num(comments.get('baseline'))}):\n")
            self.add(table(["attention", "layer", "best head", "BLEU", "Δ", "95 % interval", "significant"],
                           [[r["kind"], r["layer"], r["best_head"], num(r["metric"]), num(r["delta"]),
                             interval(r),
                             "yes" if r["significant"] == "1" else "no"] for r in alone]))
            worst = min(alone, key=lambda r: float(r["delta"]))
            if float(worst["delta"]) < 0:
                self.add(f"The largest loss is in {worst['kind']} layer {worst['layer']} ({num(worst['delta'])} BLEU); "
                         "the paper's largest is the last Enc-Dec layer (−13.56 BLEU).\n")
            else:
                self.add("No block loses BLEU with one head left; the paper's largest loss is the last Enc-Dec layer "
                         "(−13.56 BLEU).\n")

    def write(self):
        self.header()
        self.models()
        self.recorded_runs()
        self.table1()
        self.table2()
        self.table2_ud()
        self.table3()
        self.figure3()
        self.michel()
        self.lama()
        self.translation()
        self.add("## Reproduce\n")
        self.add("```sh\nscripts/build.sh                 # once\nscripts/study/reproduce.sh             # this page "
                 "(docs/results.md, docs/results/)\nscripts/study/reproduce.sh --quick     # the pipeline on small slices "
                 "(ctest: reproduce.quick)\nscripts/study/train-models.sh queue    # the study-size models and Table 2's "
                 "seeds (hours on 2 cores)\n```\n")
        with open(self.out, "w", encoding="utf-8") as f:
            f.write("\n".join(self.parts))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples", default="sample_data")
    parser.add_argument("--mode", choices=["full", "quick"], default="full")
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--records", default="", help="the runs train-models.sh recorded (docs/results/runs)")
    args = parser.parse_args()
    if not os.path.isdir(args.results):
        sys.exit(f"write_results: {args.results}: no such folder (scripts/study/reproduce.sh writes it)")
    Report(args.results, args.out, args.samples, args.mode, args.seconds, args.records).write()


if __name__ == "__main__":
    main()
