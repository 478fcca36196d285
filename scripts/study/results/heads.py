"""Beyond the papers: head types, activation patching and retrieval heads on the bundled models
(docs/head-types.md, docs/patching.md, docs/retrieval-heads.md). Every sentence is built from the CSVs
reproduce.sh writes; a head is called an induction (previous-token, retrieval) head here when its score
exceeds INDUCTION (PREVIOUS, RETRIEVAL), thresholds of ours, said in the text.
"""
from .cells import num, pvalue, span, table
from .inputs import read_csv

INDUCTION = 0.3
PREVIOUS = 0.3
RETRIEVAL = 0.5
MODELS = ("vanilla_lm", "bet_sf", "induction_lm")


def heads_over(rows, column, threshold):
    """'2.1 (0.90), 2.4 (0.87)': the heads whose score exceeds the threshold, best first."""
    scored = [(float(r[column]), f"{r['layer']}.{r['head']}") for r in rows if r.get(column) not in ("", "nan", None)]
    chosen = sorted((s for s in scored if s[0] > threshold), reverse=True)
    return ", ".join(f"{name} ({num(score)})" for score, name in chosen)


def best(rows, column):
    scored = [(float(r[column]), f"{r['layer']}.{r['head']}") for r in rows if r.get(column) not in ("", "nan", None)]
    return max(scored) if scored else (float("nan"), "—")


def head_types(report):
    found = {m: read_csv(report.path(f"head_types_{m}.csv")) for m in MODELS}
    found = {m: v for m, v in found.items() if v[1]}
    if not found:
        return
    report.add("## Beyond the papers: head types, patching and retrieval heads\n")
    report.add(f"`head-types` on each language model, on its default generated sequences (random tokens repeated "
               f"once; docs/head-types.md). We call a head an induction head when its induction score exceeds "
               f"{INDUCTION}, a previous-token head when its previous-token score exceeds {PREVIOUS}.\n")
    rows = []
    for model, (comments, heads) in found.items():
        induction, at = best(heads, "induction")
        rows.append([f"`{model}`", len(heads), f"{num(induction)} ({at})", heads_over(heads, "induction", INDUCTION) or "none",
                     heads_over(heads, "previous_token", PREVIOUS) or "none", num(comments.get("sink_rate"))])
    report.add(table(["model", "heads", "largest induction score (head)", "induction heads", "previous-token heads",
                      "sink rate (α₁ > 0.3)"], rows))
    study = [m for m in ("vanilla_lm", "bet_sf") if m in found]
    without = [m for m in study if not heads_over(found[m][1], "induction", INDUCTION)]
    if without:
        report.add(f"**The study-size models have no induction head** ({', '.join(f'`{m}`' for m in without)}: their "
                   f"largest induction score stays below {INDUCTION}). The positive control `induction_lm`, a two-layer "
                   "model trained on sequences that repeat (sample_data/README.md), shows what one looks like.\n")
    patching(report)
    retrieval(report)


def patching(report):
    comments, rows = read_csv(report.path("patch_induction_lm.csv"))
    if not rows:
        return
    report.add(f"`patch` on `induction_lm` with `sample_data/induction_pairs.tsv` ({comments.get('pairs')} pairs; "
               f"mean logit difference clean {num(comments.get('clean_mean'))}, corrupted "
               f"{num(comments.get('corrupted_mean'))}; docs/patching.md): the heads whose output restores a "
               "significant share of it (Holm-adjusted p ≤ 0.05), largest first.\n")
    kept = sorted((r for r in rows if r.get("significant") == "1"), key=lambda r: -float(r["effect"]))
    report.add(table(["head", "effect", "95 % interval", "adjusted p", "DLA"],
                     [[f"{r['layer']}.{r['head']}", num(r["effect"]), span(r["effect_low"], r["effect_high"]),
                       pvalue(r["p_adjusted"]), num(r["dla"])] for r in kept]))


def retrieval(report):
    comments, rows = read_csv(report.path("retrieval_induction_lm.csv"))
    if not rows:
        return
    report.add(f"`retrieval-heads` on `induction_lm` (needles from `sample_data/induction_needles.txt` in haystacks "
               f"from `sample_data/induction_haystack.txt`; docs/retrieval-heads.md): it copied "
               f"{comments.get('copied')} of {comments.get('needle_tokens')} needle tokens; heads with a retrieval "
               f"score above {RETRIEVAL}: {heads_over(rows, 'retrieval_score', RETRIEVAL) or 'none'}.\n")
