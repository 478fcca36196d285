"""The page being written: where its inputs are, the Markdown parts so far, and the order of its sections.
Each section is a function of the report in its own module; write() runs them in the page's order.
"""
import os

from . import bird_eye, bird_eye_seeds, heads, lama, michel, overview, protocol, translation, verdicts
from .cells import figure
from .inputs import read_json


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
        self.verdicts = []  # the papers side by side: rows the sections add (verdicts.add)

    def path(self, name):
        return os.path.join(self.results, name)

    def add(self, text=""):
        self.parts.append(text)

    def has_figure(self, name):
        return os.path.exists(self.path(name))

    def fig(self, name, caption):
        if self.has_figure(name):
            self.add(figure(self.rel, name, caption))

    def michel_part(self):
        """The text the per-setting sweeps (Figure 3, Michel) read, as reproduce.sh recorded it."""
        slices = read_json(self.path("slices.json")) or {}
        if "michel_lines" not in slices:
            return "the first part of the WikiText-2 test split"
        if int(slices["michel_lines"]) == 0:
            return f"the whole WikiText-2 test split ({int(slices['michel_words']):,} words)"
        return (f"the first {int(slices['michel_lines']):,} lines ({int(slices['michel_words']):,} words) of the "
                "WikiText-2 test split")

    def write(self):
        overview.header(self)
        overview.models(self)
        side_by_side = len(self.parts)  # the summary goes here once every section has added its rows
        protocol.protocol(self)
        overview.recorded_runs(self)
        bird_eye.table1(self)
        bird_eye_seeds.table2(self)
        bird_eye_seeds.table2_ud(self)
        bird_eye.table3(self)
        bird_eye.figure3(self)
        michel.michel(self)
        lama.lama(self)
        translation.translation(self)
        heads.head_types(self)
        overview.reproduce(self)
        verdicts.artefacts(self)
        self.parts[side_by_side:side_by_side] = verdicts.summary(self)
        with open(self.out, "w", encoding="utf-8") as f:
            f.write("\n".join(self.parts))
