"""The papers' own numbers the report quotes, with their source, and the Bird-Eye Table 2 variants in the
paper's order. Where a paper's values could not be read, the sections say so instead of quoting.
"""

# Michel, Levy & Neubig (2019), "Are Sixteen Heads Really Better than One?", read through a
# section-by-section transcription of the paper (GitHub viktor-shcherb/msc_thesis,
# references/2019-12-sixteen-heads-better-than-one/, commit d8817a68), not the PDF itself.
MICHEL_SOURCE = ("Michel et al. (2019), as transcribed in viktor-shcherb/msc_thesis "
                 "(references/2019-12-sixteen-heads-better-than-one); not checked against the PDF")
MICHEL_TABLE2_WMT = [  # layer: (Enc-Enc, Enc-Dec, Dec-Dec) ΔBLEU with only the best head; * = p < 0.01
    ("1", "−1.31*", "0.24*", "−0.03"), ("2", "−0.16", "0.06", "0.12"), ("3", "0.12", "0.05", "0.18"),
    ("4", "−0.15", "−0.24", "0.17"), ("5", "0.02", "−1.55*", "−0.04"), ("6", "−0.36*", "−13.56*", "0.24")]


# Bird-Eye Table 2's variants as scripts/study/train-models.sh names them, in the paper's order.
TABLE2_VARIANTS = ["vanilla", "bet_sf", "bet_sf_no_mask", "diag_free_mask", "reduced_diag", "magnified_diag"]

# Bird-Eye Table 3: per sentence (the order of scripts/study/bird_eye_table3.tsv), the layer the paper
# shows it at and its top 3 attended tokens for BET(SF) and the Transformer ("[period]" = ".",
# "[comma]" = ","; "open" is the paper's spelling for "opened"). The paper marks the predicted token in
# red, which the text loses: "attack" (layer 3) and "iron" (layer 4) are named in its §4.6; elsewhere
# the target is the token right after the last token either model attends to.
BIRD_EYE_TABLE3 = [
    (1, ["led", "increasing", "elsewhere"], ["derry", "the", "increasing"]),
    (2, ["by", "also", "corporations"], ["by", "also", "private"]),
    (3, ["suffered", "further", "he"], ["heart", ".", "he"]),
    (4, ["warship", "propelled", "protected"], ["by", "protected", "propelled"]),
    (5, ["opened", "beauty", "public"], ["september", "15", "beauty"]),
    (6, ["declaration", "congress", "held"], ["in", ",", "old"]),
]
