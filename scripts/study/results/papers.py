"""The papers' own numbers the report quotes, read from the texts in ../shared/papers/ (their README says
where each table is), and the Bird-Eye Table 2 variants in the paper's order.
"""

SOURCES = ("the papers' texts in `../shared/papers/` (Bird-Eye in English; Michel et al. and LAMA in a "
           "Vietnamese translation whose equations and tables are intact)")

# Bird-Eye Table 1: (CA, HA(μ), HA(σ), Ratio) per layer of its converged 6-layer models; LM = WikiText-2,
# MT = the decoder of its IWSLT De-En model.
BIRD_EYE_TABLE1 = {
    "LM": [(0.0628, 0.0192, 0.0131, 3.27), (0.0584, 0.0193, 0.0103, 3.02), (0.0541, 0.0194, 0.0098, 2.79),
           (0.0546, 0.0194, 0.0143, 2.81), (0.0939, 0.0186, 0.0157, 5.05), (0.0664, 0.0192, 0.0124, 3.46)],
    "MT": [(0.2964, 0.0435, 0.0126, 6.81), (0.0592, 0.0475, 0.0034, 1.25), (0.0762, 0.0466, 0.0053, 1.64),
           (0.0544, 0.0479, 0.0046, 1.14), (0.0629, 0.0473, 0.0048, 1.33), (0.0754, 0.0464, 0.0051, 1.63)],
}

# Bird-Eye Table 2, WikiText-2 test perplexity, by train-models.sh's variant names; True where the paper
# stars the value (significantly better than the Transformer, Student's t-test p < 0.05). Its BET(SG)
# row is 51.66 (not starred: its hints are external input).
BIRD_EYE_TABLE2_WIKI = {
    "vanilla": (54.53, False), "reduced_diag": (54.22, False), "magnified_diag": (56.73, False),
    "diag_free_mask": (54.08, True), "bet_sf": (52.97, True), "bet_sf_no_mask": (53.50, True),
}
BIRD_EYE_TABLE2_SG = 51.66
# Bird-Eye Table 2, IWSLT De-En BLEU: Transformer and BET(SF) (starred).
BIRD_EYE_TABLE2_DE_EN = (35.26, 35.85)

# Michel, Levy & Neubig (2019). Table 1: WMT (En-Fr, newstest2013) base BLEU 36.05; 8 of its 96 encoder
# self-attention heads change BLEU significantly (p < 0.01) when masked alone, 4 of them for the better.
MICHEL_TABLE1 = {"base_bleu": 36.05, "heads": 96, "significant": 8, "better": 4}
MICHEL_TABLE2_WMT = [  # layer: (Enc-Enc, Enc-Dec, Dec-Dec) ΔBLEU with only the best head kept, as printed
    ("1", "−1.31", "0.24", "−0.03"), ("2", "−0.16", "0.06", "0.12"), ("3", "0.12", "0.05", "0.18"),
    ("4", "−0.15", "−0.24", "0.17"), ("5", "0.02", "−1.55", "−0.04"), ("6", "−0.36", "−13.56", "0.24")]
# Its caption underlines the values significant at p < 0.01; the translation we have lost the underlining,
# so which layers changed significantly cannot be checked here. Its §3.3 says one head suffices "for most
# layers" and that the last Enc-Dec layer loses at least 13.5 BLEU.
MICHEL_TABLE2_LOST = ("the translation lost Table 2's underlining (p < 0.01), so which of its layers changed "
                      "significantly cannot be checked here")
# Michel Table 3: BERT on MNLI, best Δ accuracy per layer with one head kept; none significant.
MICHEL_TABLE3_BERT = [-0.01, 0.10, -0.14, -0.53, -0.29, -0.52, 0.05, -0.72, -0.96, 0.07, -0.19, -0.12]
# Michel Tables 5–6 (appendix A): the same, the head chosen on other data. Table 5: WMT, ΔBLEU on newstest2014
# with the head chosen on newstest2013, per layer (Enc-Enc, Enc-Dec, Dec-Dec); its p < 0.01 underlines are
# lost in the text we have, whose §3.3 says no significant change for half of WMT's layers. Table 6: BERT,
# Δ accuracy (%) on MNLI-matched validation, chosen on 5,000 training examples; none significant.
MICHEL_TABLE5_WMT = [("1", "−1.96", "0.02", "0.03"), ("2", "−0.57", "0.09", "−0.13"), ("3", "−0.45", "−0.42", "0.00"),
                     ("4", "−0.30", "−0.60", "−0.31"), ("5", "−0.32", "−2.75", "−0.66"), ("6", "−0.67", "−18.89", "−0.03")]
MICHEL_TABLE6_BERT = [-0.01, -0.02, -0.26, -0.53, -0.29, -0.52, 0.05, -0.72, -0.96, 0.07, -0.19, -0.15]
# Michel Figure 3: the share of heads prunable (by I_h) before the metric drops noticeably.
MICHEL_PRUNABLE = {"WMT": 20, "BERT": 40}
# Michel Table 4: BERT on MNLI-matched validation, examples per second (± sd), GTX 1080Ti, 6 runs each:
# batch size: (original, 50 % of heads pruned); and the gains as it prints them (recomputing from the
# rounded speeds gives +1.8 % and +17.6 % at batch 1 and 64).
MICHEL_TABLE4 = {1: (17.0, 17.3), 4: (67.3, 69.1), 16: (114.0, 134.0), 64: (124.7, 146.6)}
MICHEL_TABLE4_PRINTED = {1: "+1.9 %", 4: "+2.7 %", 16: "+17.5 %", 64: "+17.5 %"}


# Bird-Eye Table 2's variants as scripts/study/train-models.sh names them, in the paper's order.
TABLE2_VARIANTS = ["vanilla", "bet_sf", "bet_sf_no_mask", "diag_free_mask", "reduced_diag", "magnified_diag"]

# Bird-Eye Table 3: per sentence (the order of scripts/study/bird_eye_table3.tsv), the layer the paper
# shows it at and its top 3 attended tokens for BET(SF) and the Transformer ("[period]" = ".",
# "[comma]" = ","), as printed: its fifth BET(SF) list has "open" where the sentence has "opened", so that
# token matches none of ours and is counted as not shared. The paper marks the predicted token in
# red, which the text loses: "attack" (layer 3) and "iron" (layer 4) are named in its §4.6; elsewhere
# the target is the token right after the last token either model attends to.
BIRD_EYE_TABLE3 = [
    (1, ["led", "increasing", "elsewhere"], ["derry", "the", "increasing"]),
    (2, ["by", "also", "corporations"], ["by", "also", "private"]),
    (3, ["suffered", "further", "he"], ["heart", ".", "he"]),
    (4, ["warship", "propelled", "protected"], ["by", "protected", "propelled"]),
    (5, ["open", "beauty", "public"], ["september", "15", "beauty"]),
    (6, ["declaration", "congress", "held"], ["in", ",", "old"]),
]

# LAMA (Mehta et al.), §5: LAMA+ctx's accuracy gain over the max-pooled BiGRU per dataset, in percent as
# the paper gives it (its Table 4's values are not in the text we have; these gains are).
LAMA_OVER_BIGRU = {"News": 2.0, "Reuters": 12.2, "Yelp": 7.9, "Yelp-L": 9.4, "IMDB": 2.7}
# The words its Figure 4 follows on Yelp, and the direction it reports: positive words' weights move up
# as the rating rises, negative words' down.
LAMA_FIGURE4_WORDS = {"amazing": +1, "happy": +1, "recommended": +1, "poor": -1, "terrible": -1, "worst": -1}
# Its §5.5 (Figure 5, validation accuracy per epoch for m = 1, 5, 10, 15, 20 heads), in its words.
LAMA_FIGURE5 = ("on Yelp-L accuracy peaks at m = 15 and falls at m = 20, with a clear difference between m = 1 "
                "and m = 20; on IMDB m = 15 is best and m = 1 worst, m = 5, 15 and 20 alike")
