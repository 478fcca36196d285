"""Reads what the report is written from: attention-cli's CSVs and JSON in the results folder, and the run
records scripts/study/train-models.sh keeps. A missing file reads as None, so a section can skip itself.
"""
import csv
import json
import os


def read_csv(path):
    """(comment key=values, rows as dicts) of an attention-cli CSV, or (None, None) when absent."""
    if not os.path.exists(path):
        return None, None
    comments, lines = {}, []
    with open(path, newline="", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") and not lines:
                for part in line[1:].split(","):
                    if "=" in part:
                        key, value = part.strip().split("=", 1)
                        comments[key] = value
            else:
                lines.append(line)
    rows = list(csv.DictReader(lines))
    if "significance" in comments:  # the bootstrap refused (too few units): its columns read as missing
        for row in rows:
            for key in ("delta_low", "delta_high", "p_value", "p_adjusted", "significant"):
                row.setdefault(key, "")
    return comments, rows


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_records(records):
    """{variant: [(seed, record)]} of every run train-models.sh recorded under `records`, variants and seeds
    sorted ({} without a records folder)."""
    found = {}
    if not records or not os.path.isdir(records):
        return found
    for variant in sorted(os.listdir(records)):
        folder = os.path.join(records, variant)
        names = sorted(n for n in os.listdir(folder) if n.startswith("seed-") and n.endswith(".json"))
        runs = [(n[len("seed-"):-len(".json")], read_json(os.path.join(folder, n)) or {}) for n in names]
        if runs:
            found[variant] = runs
    return found


def resampled(comments):
    """'over 144 paragraphs (windows of one paragraph resampled together)' from a CSV's header, as
    attention-cli names what its bootstrap resampled; 'over windows' for CSVs written before it did."""
    unit, units = (comments or {}).get("unit"), (comments or {}).get("units")
    if not unit:
        return "over windows"
    if unit == "paragraphs":
        return f"over {units} paragraphs (the windows of one paragraph resampled together)"
    return f"over {units} {unit}"
