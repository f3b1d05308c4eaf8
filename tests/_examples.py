"""How many examples a property test that asks for more than the profile's tries.

Under the `ci` profile (`--hypothesis-profile=ci`, what `.ci/run` uses) a test gets the count
it asks for; under the default `dev` profile, a quarter of it (never fewer than the profile's
own), so that the fast set stays fast and CI stays thorough.

Example::

    from _examples import examples

    @settings(max_examples=examples(400))
    @given(...)
    def test_reader_never_raises(...): ...
"""

from __future__ import annotations

from hypothesis import settings

__all__ = ["examples"]


def examples(thorough: int) -> int:
    """`thorough` under the ci profile, a quarter of it locally."""
    base = settings.default.max_examples
    return thorough if base >= 100 else max(base, thorough // 4)
