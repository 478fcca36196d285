"""The translation models: Bird-Eye Table 1's MT rows, their BLEU and chrF, and Michel Table 2 by BLEU
(only the best head of each encoder, decoder and cross-attention block kept).
"""
from .cells import interval, num, significance_cell, table
from .inputs import read_csv, read_json


def translation(report):
    _, rows = read_csv(report.path("table1_mt.csv"))
    if not rows:
        return
    report.add("## Translation models: Table 1's MT rows and Michel Table 2 by BLEU\n")
    bleu = []
    for m in ["mt_vanilla", "mt_bet_sf"]:
        e = read_json(report.path(f"eval_{m}.json"))
        if e:
            bleu.append(f"`{m}` BLEU {num(e['bleu'])}, chrF {num(e['chrf'])} on {e['sentences']} Tatoeba test pairs")
    if bleu:
        report.add("; ".join(bleu) + " (beam 4).\n")
    report.add(table(["model", "attention", "layer", "CA", "HA(μ)", "Ratio", "Ratio ÷ uniform"],
                     [[r["model"], r["kind"], r["layer"], num(r["CA"], 3), num(r["HA_mean"], 3), num(r["Ratio"]),
                       num(r["Ratio_over_uniform"])] for r in rows]))
    comments, alone = read_csv(report.path("michel_alone_mt.csv"))
    if alone:
        report.add(f"`mt_vanilla`, only the best head of each block kept (BLEU; baseline "
                   f"{num(comments.get('baseline'))}):\n")
        report.add(table(["attention", "layer", "best head", "BLEU", "Δ", "95 % interval", "significant"],
                         [[r["kind"], r["layer"], r["best_head"], num(r["metric"]), num(r["delta"]),
                           interval(r),
                           significance_cell(r)] for r in alone]))
        worst = min(alone, key=lambda r: float(r["delta"]))
        if float(worst["delta"]) < 0:
            report.add(f"The largest loss is in {worst['kind']} layer {worst['layer']} ({num(worst['delta'])} BLEU); "
                       "the paper's largest is the last Enc-Dec layer (−13.56 BLEU).\n")
        else:
            report.add("No block loses BLEU with one head left; the paper's largest loss is the last Enc-Dec layer "
                       "(−13.56 BLEU).\n")
