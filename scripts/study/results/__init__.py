"""The reproduction report (docs/results.md), one module per job: reading reproduce.sh's outputs (inputs),
formatting table cells (cells), the papers' quoted numbers (papers), reading Welch tests and run devices
(comparisons), the page being written (report) and one module per group of sections. The entry point is
scripts/study/write_results.py.
"""
