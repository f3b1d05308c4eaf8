"""Live evaluation: run an agent over an eval set, capture each run, score it, report it.

The seed-compatible names are re-exported from `assay.evaluation`.
"""
