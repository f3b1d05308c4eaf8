"""Offline evaluation: saved runs joined to their ground truth, scored by the one scoring step,
streamed into a reports directory (`assay evaluate`), and re-scored (`assay rescore`).

Example:
    >>> sorted(name for name in __all__)
    ['EvaluateOptions', 'RescoreError', 'evaluate', 'evaluate_async', 'rescore_options']
"""

from assay.offline.pipeline import EvaluateOptions, evaluate, evaluate_async
from assay.offline.rescore import RescoreError, rescore_options

__all__ = ["EvaluateOptions", "RescoreError", "evaluate", "evaluate_async", "rescore_options"]
