"""How the report writes a value: numbers with a real minus sign, p-values, 95 % intervals, data paths, and
Markdown tables and figure links. Every section formats through these, so the page reads one way.
"""
import math
import os


def num(value, digits=2):
    """A number for a table: fixed digits, a real minus sign, '—' for a missing one."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "—"
    if math.isnan(x):
        return "—"
    if round(x, digits) == 0:
        x = 0.0  # a rounding residue (−0.000003) reads 0.00, not −0.00
    text = f"{x:,.{digits}f}"
    return text.replace("-", "−")


def signed(value, digits=2):
    """A difference with its sign always shown: +1.75, −0.28."""
    text = num(value, digits)
    return text if text.startswith("−") or text == "—" else "+" + text


def pvalue(value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "—"  # no bootstrap ran (too few units)
    return "< 0.001" if x < 0.001 else f"{x:.3f}"


def span(low, high, digits=2):
    """A 95 % interval cell: [low, high]."""
    return f"[{num(low, digits)}, {num(high, digits)}]"


def interval(row):
    """A delta's 95 % interval cell from its delta_low and delta_high columns."""
    if not row.get("delta_low"):
        return "—"  # no bootstrap ran (too few units)
    return span(row["delta_low"], row["delta_high"])


def below_cell(value, alpha):
    """yes / no for p < alpha; — where no bootstrap ran (too few units)."""
    try:
        return "yes" if float(value) < alpha else "no"
    except (TypeError, ValueError):
        return "—"


def significance_cell(row):
    """yes / no from a delta's significant column; — where no bootstrap ran."""
    flag = row.get("significant", "")
    return "—" if flag == "" else "yes" if flag == "1" else "no"


def data_name(path):
    """A data path as a reader can find it: the shared data as they are; a split made at training time
    (build-models/data/amazon/test.tsv, a scratch folder of the translation split) named by its source,
    the split command and the part, since that folder is not in the repository."""
    if not path or path == "?":
        return "—"
    if path.startswith("../shared/data/"):
        return f"`{path}`"
    folder, part = os.path.basename(os.path.dirname(path)), os.path.splitext(os.path.basename(path))[0]
    if folder == "amazon":
        return f"Amazon Fine Food, `split --seed 1`: {part}"
    if folder in ("split", "mt") and part in ("train", "valid", "test"):
        return f"Tatoeba en–fr, `split --group-by source --seed 1`: {part}"
    return f"`{path}`"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def figure(results_rel, name, caption):
    return f"![{caption}]({results_rel}/{name})\n"
