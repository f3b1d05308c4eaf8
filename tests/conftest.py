"""Shared test settings.

Hypothesis' timing checks are turned off: these machines are noisy, and a slow example is not a
wrong one. Property tests still run their full example counts.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "assay",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("assay")
