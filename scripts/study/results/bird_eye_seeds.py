"""Bird-Eye Table 2: the trained variants' perplexity over seeds, compared with Welch's t-test, on WikiText-2
and, for BET(SG), on UD EWT with its λ_p sweep. With too few recorded seeds it lists the runs instead.
"""
from . import verdicts
from .cells import num, pvalue, signed, span, table
from .comparisons import TABLE2_MODELS, against, runs_by_device, table2_prefix, trained_on
from .inputs import read_csv, read_records
from .papers import BIRD_EYE_TABLE2_SG, BIRD_EYE_TABLE2_WIKI, TABLE2_VARIANTS


def table2(report):
    report.add("## Bird-Eye Table 2: perplexity of each variant over seeds\n")
    _, summary = read_csv(report.path("table2_summary.csv"))
    _, tests = read_csv(report.path("table2_tests.csv"))
    records = read_records(report.records)
    prefix = table2_prefix(report)
    recorded = [(prefix + v, [float(r["perplexity"]) for _, r in records[prefix + v] if "perplexity" in r])
                for v in TABLE2_VARIANTS if prefix + v in records]
    recorded = [(v, ppl) for v, ppl in recorded if ppl]
    if not summary:
        if recorded:
            report.add("Fewer than two variants had two recorded seeds when this page was written, so there is no "
                       "mean ± sd or t-test yet (`scripts/study/train-models.sh queue` trains 3 seeds of each; the next "
                       "`scripts/study/reproduce.sh` compares them here). The runs recorded so far, WikiText-2 test "
                       "perplexity of each seed:\n")
            report.add(table(["variant", "seeds", "test perplexity per seed"],
                             [[f"`{v}`", len(ppl), ", ".join(num(x) for x in ppl)] for v, ppl in recorded]))
            spread = [max(p) - min(p) for _, p in recorded if len(p) > 1]
            values = [x for _, p in recorded for x in p]
            report.add(f"**What we see.** The recorded runs lie between {num(min(values))} and "
                       f"{num(max(values))}" + (f"; two seeds of one variant already differ by {num(max(spread))}"
                                                if spread else "") +
                       ", so one run a variant cannot rank the variants. **The paper** (Table 2, WikiText-2): " +
                       ", ".join(f"{v} {num(p)}" + ("*" if star else "") for v, (p, star) in BIRD_EYE_TABLE2_WIKI.items()) +
                       " (* significantly better than the Transformer).\n")
        else:
            report.add("No runs were recorded when this page was written: `scripts/study/train-models.sh queue` trains "
                       "them (3 seeds of each Table 2 variant). **The paper** reports BET better than the vanilla "
                       "Transformer on all three of its language-modelling datasets (abstract).\n")
        return
    report.add("`attention-cli compare`: each variant's runs (seeds) evaluated on the WikiText-2 test split; "
               "mean ± sd over runs, and Welch's t-test (unequal variances) of each variant against the first, "
               f"Holm-adjusted over those tests. The runs are the {TABLE2_MODELS[prefix]}" +
               (" (`wiki6_*` in the records)" if prefix else "") + ".\n")
    devices = {v[len(prefix):]: trained_on(runs) for v, runs in records.items() if v.startswith(prefix)}
    report.add(table(["variant", "runs", "test perplexity, mean ± sd", "trained on"],
                     [[r["variant"], r["runs"], f"{num(r['mean'])} ± {num(r['sd'])}", devices.get(r["variant"], "—")]
                      for r in summary]))
    if len({devices.get(r["variant"]) for r in summary}) > 1:
        report.add("The variants' seeds did not all train on one device (the CPU here, or a lent GPU): the same "
                   "seed does not give the same weights on another device (docs/training.md measured 0.2–0.8 % "
                   "apart in perplexity), so a device difference adds to the seed-to-seed spread; each run's "
                   "device is in the recorded runs' table below." + runs_by_device(records, [prefix + r["variant"] for r in summary]) +
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
        report.add(table([f"variant vs `{reference}`", "difference in mean perplexity",
                          "95 % interval (Welch, unadjusted)", "Welch df", "p", "Holm p"], rows))
        runs = min(int(r["runs"]) for r in summary)
        unadjusted = [other for other, _, _, p, holm, _ in against(tests, reference) if p < 0.05 <= holm]
        report.add("**What we see.** " + "; ".join(sentences) + f". Each variant is tested against `{reference}` "
                   f"alone ({len(rows)} test{'s' if len(rows) != 1 else ''}), and Holm's adjustment keeps the chance of any false \"significant\" "
                   "among them at 5 %" + (f"; {', '.join(f'`{o}`' for o in unadjusted)} would pass at 0.05 without "
                                           "it" if unadjusted else "") +
                   f". With {runs} runs a variant, only differences several times the seed-to-seed spread reach "
                   "significance; a \"not significant\" here is no evidence that the variants are equal.\n")
    compared = {r["variant"] for r in summary}
    single = [(v, ppl) for v, ppl in recorded if v[len(prefix):] not in compared]
    if single:
        report.add("Variants with fewer than two recorded seeds are not compared; their runs, WikiText-2 test "
                   "perplexity: " + "; ".join(f"`{v}` {', '.join(num(x) for x in ppl)}" for v, ppl in single) +
                   ". One run cannot place a variant against the others' spread.\n")
    paper_table2(report, summary, tests, prefix)
    mask_ablation(report, prefix)


def mask_ablation(report, prefix):
    """BET(SF) against BET(SF) without its diagonal-free mask (compare with bet_sf as reference): the paper's
    Table 2 ablation, 52.97 against 53.50, which it does not test between the two."""
    _, summary = read_csv(report.path("table2_mask_summary.csv"))
    _, tests = read_csv(report.path("table2_mask_tests.csv"))
    found = list(against(tests or [], "bet_sf"))
    if not summary or not found:
        return
    means = {r["variant"]: float(r["mean"]) for r in summary}
    _, diff, (low, high), p, _, _ = found[0]  # bet_sf − bet_sf_no_mask
    theirs = BIRD_EYE_TABLE2_WIKI["bet_sf"][0], BIRD_EYE_TABLE2_WIKI["bet_sf_no_mask"][0]
    paper_relative = (theirs[0] / theirs[1] - 1) * 100
    low_relative, high_relative = low / means["bet_sf_no_mask"] * 100, high / means["bet_sf_no_mask"] * 100
    report.add(f"**The mask itself** (BET(SF) against BET(SF) without its diagonal-free mask, Welch): `bet_sf` − "
               f"`bet_sf_no_mask` = {signed(diff)} perplexity ({num(means['bet_sf'])} against "
               f"{num(means['bet_sf_no_mask'])}), 95 % interval {span(low, high)}, p = {pvalue(p)}. The paper prints "
               f"{num(theirs[0])} against {num(theirs[1])} ({verdicts.relative(*theirs)}) and tests each against the "
               "Transformer only.\n")
    verdict = verdicts.rule(-1, -1 if diff < 0 else 1, p < 0.05,
                            verdicts.inside(paper_relative, low_relative, high_relative))
    verdicts.add(report, "Bird-Eye", "Table 2 (WikiText-2): `bet_sf` against `bet_sf_no_mask` (the mask's own effect)",
                 f"{signed(theirs[0] - theirs[1])} ({verdicts.relative(*theirs)}), no test between the two",
                 f"{signed(diff)} ({num(diff / means['bet_sf_no_mask'] * 100, 1)} %), {span(low, high)}, p {pvalue(p)}",
                 verdict, {"reproduced": "the mask lowers perplexity, significantly, by a share that holds the paper's",
                           "inconclusive": "not significant", "not reproduced":
                           "the mask raises perplexity significantly" if p < 0.05 and diff > 0 else
                           f"the paper's {verdicts.relative(*theirs)} lies outside our interval"}[verdict] +
                 "; " + TABLE2_MODELS[prefix],
                 detectable_effect=verdicts.detectable(low, high, unit="perplexity", reference=means["bet_sf_no_mask"])
                 if verdict in verdicts.NEEDS_DETECTABLE else None)


def paper_table2(report, summary, tests, prefix):
    """The paper's WikiText-2 column beside ours, each variant's change against the Transformer in both
    (absolute and relative), and a verdict per variant."""
    ours = {r["variant"]: float(r["mean"]) for r in summary}
    reference = summary[0]["variant"]
    paper_ref = BIRD_EYE_TABLE2_WIKI["vanilla"][0]
    tested = {other: (diff, low, high, holm) for other, diff, (low, high), _, holm, _ in against(tests or [], reference)}
    rows = []
    for variant in TABLE2_VARIANTS:
        if variant not in BIRD_EYE_TABLE2_WIKI:
            continue
        theirs, starred = BIRD_EYE_TABLE2_WIKI[variant]
        row = [f"`{variant}`", num(theirs) + ("*" if starred else ""),
               "—" if variant == "vanilla" else f"{signed(theirs - paper_ref)} ({verdicts.relative(theirs, paper_ref)})"]
        if variant in ours:
            row.append(num(ours[variant]))
            if variant in tested:
                diff, low, high, holm = tested[variant]  # reference − variant
                row.append(f"{signed(-diff)} ({verdicts.relative(ours[variant], ours[reference])}), "
                           f"{span(-high, -low)}" + (" *" if holm < 0.05 else ""))
            else:
                row.append("—")
        else:
            row += ["not trained", "—"]
        rows.append(row)
    report.add("**The paper's Table 2** (WikiText-2 test perplexity of its converged 6-layer models; * significantly "
               "better than the Transformer, Student's t-test p < 0.05) beside ours (mean over seeds; * Holm p < 0.05; "
               "the interval is Welch's, unadjusted):\n")
    report.add(table(["variant", "the paper", "paper − Transformer", "ours", "ours − vanilla, 95 % interval"], rows))
    report.add(f"The paper's BET(SG) row is {num(BIRD_EYE_TABLE2_SG)} on WikiText-2 "
               f"({verdicts.relative(BIRD_EYE_TABLE2_SG, paper_ref)}); ours trains on UD EWT, whose trees give the "
               f"hints (below). Our Transformer's perplexity is {num(ours[reference] / paper_ref, 1)} times the "
               f"paper's; ours are {TABLE2_MODELS[prefix]} where its are converged 6-layer models (and its "
               "vocabulary and text preparation may differ), so the relative columns are what compare.\n")
    for variant in TABLE2_VARIANTS[1:]:
        if variant not in tested or variant not in BIRD_EYE_TABLE2_WIKI:
            continue
        theirs, starred = BIRD_EYE_TABLE2_WIKI[variant]
        diff, low, high, holm = tested[variant]
        paper_sign = -1 if theirs < paper_ref else 1
        # The paper stars the variants significantly better than the Transformer (Student's t, p < 0.05); an
        # unstarred row, better or worse, reports no tested effect.
        paper_direction = paper_sign if starred else 0
        ours_direction = -1 if diff > 0 else 1
        reference_value = ours[reference]
        paper_relative = (theirs / paper_ref - 1) * 100
        low_relative, high_relative = -high / reference_value * 100, -low / reference_value * 100
        verdict = verdicts.rule(paper_direction, ours_direction, holm < 0.05,
                                verdicts.inside(paper_relative, low_relative, high_relative))
        why = {"reproduced": "the same direction, significant in both",
               "consistent": "no significant difference in either",
               "inconclusive": "ours is not significant (Holm)" + (", though in the paper's direction"
                                                                   if ours_direction == paper_sign else ""),
               "not reproduced": "ours is significant where the paper reports no difference" if paper_direction == 0
               else "ours is significantly the other way" if holm < 0.05
               else f"the paper's {verdicts.relative(theirs, paper_ref)} lies outside our interval "
                    f"[{num(low_relative, 1)} %, {num(high_relative, 1)} %]"}[verdict]
        verdicts.add(report, "Bird-Eye", f"Table 2 (WikiText-2): `{variant}` against the Transformer",
                     f"{signed(theirs - paper_ref)} ({verdicts.relative(theirs, paper_ref)})" + ("*" if starred else ""),
                     f"{signed(-diff)} ({verdicts.relative(ours[variant], ours[reference])}), {span(-high, -low)}, "
                     f"Holm p {pvalue(holm)}", verdict, why + "; " + TABLE2_MODELS[prefix],
                     detectable_effect=verdicts.detectable(-high, -low, unit="perplexity", reference=reference_value)
                     if verdict in verdicts.NEEDS_DETECTABLE else None)


def table2_ud(report):
    """BET(SG) on UD EWT: the λ_p sweep and the chosen weight's seeds against a vanilla model."""
    _, lambdas = read_csv(report.path("bet_sg_lambda.csv"))
    if lambdas:
        best = min(lambdas, key=lambda r: float(r["best_dev_perplexity"]))
        report.add("BET(SG)'s pointer-loss weight λ_p, chosen on the UD EWT dev set (seed 1 of each):\n")
        report.add(table(["λ_p", "best dev perplexity"],
                         [[r["lambda_p"], num(r["best_dev_perplexity"])] for r in lambdas]))
        report.add(f"λ_p = {best['lambda_p']} is taken on to the other seeds.\n")
    _, ud = read_csv(report.path("table2_ud_summary.csv"))
    _, ud_tests = read_csv(report.path("table2_ud_tests.csv"))
    if ud:
        report.add("BET(SG) against a vanilla Transformer trained the same way on UD EWT, test perplexity over seeds:\n")
        report.add(table(["variant", "runs", "test perplexity, mean ± sd"],
                         [[r["variant"], r["runs"], f"{num(r['mean'])} ± {num(r['sd'])}"] for r in ud]))
        for t in ud_tests or []:
            p = float(t["p_value"])
            report.add(f"`{t['first']}` − `{t['second']}` = {num(t['difference'])}, 95 % interval "
                       f"{span(float(t['ci_low']), float(t['ci_high']))} (Welch p = {pvalue(p)}, "
                       f"{'significant' if p < 0.05 else 'not significant'} at 0.05).\n")
        means = {r["variant"]: float(r["mean"]) for r in ud}
        for other, diff, (low, high), p, _, _ in against(ud_tests or [], "ud_vanilla"):
            paper_ref = BIRD_EYE_TABLE2_WIKI["vanilla"][0]
            # The paper does not star BET(SG) (its hints are outside input); its text calls it the best model.
            paper_relative = (BIRD_EYE_TABLE2_SG / paper_ref - 1) * 100
            low_relative, high_relative = -high / means["ud_vanilla"] * 100, -low / means["ud_vanilla"] * 100
            verdict = verdicts.rule(-1, -1 if diff > 0 else 1, p < 0.05,
                                    verdicts.inside(paper_relative, low_relative, high_relative))
            why = {"reproduced": "significantly better, as the paper says",
                   "inconclusive": "ours is not significant",
                   "not reproduced": "ours is significantly worse" if p < 0.05 else
                   f"the paper's {verdicts.relative(BIRD_EYE_TABLE2_SG, paper_ref)} lies outside our interval "
                   f"[{num(low_relative, 1)} %, {num(high_relative, 1)} %]"}[verdict]
            verdicts.add(report, "Bird-Eye", "Table 2: BET(SG) against the Transformer",
                         f"{signed(BIRD_EYE_TABLE2_SG - paper_ref)} ({verdicts.relative(BIRD_EYE_TABLE2_SG, paper_ref)}) "
                         "on WikiText-2, hints from parses (not starred; the text calls it the best model)",
                         f"{signed(-diff)} ({verdicts.relative(means[other], means['ud_vanilla'])}), {span(-high, -low)}, "
                         f"p {pvalue(p)}, on UD EWT with its gold trees", verdict,
                         why + "; other data (the paper's WikiText-2 has no trees), 4-layer models",
                         detectable_effect=verdicts.detectable(-high, -low, unit="perplexity", reference=means["ud_vanilla"])
                         if verdict in verdicts.NEEDS_DETECTABLE else None)
