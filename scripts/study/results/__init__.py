"""The reproduction report's building blocks, one module per job: reading reproduce.sh's outputs (inputs),
formatting table cells (cells), the papers' quoted numbers (papers), and reading Welch tests and run
devices (comparisons). The entry point is scripts/study/write_results.py.
"""
