"""Size and depth limits that keep hostile input from taking a scorer down, shared by the
answer parser and the trajectory checks.

Example:
    >>> from assay.limits import MAX_DEPTH
    >>> MAX_DEPTH
    64
"""

MAX_ANSWER_CHARS = 1_000_000
"""Longest answer text that is parsed at all; longer text is rejected with a reason."""

MAX_DEPTH = 64
"""Deepest nesting of brackets (or of a parsed value) that is accepted."""

MAX_PARSE_ATTEMPTS = 200
"""Most candidate spans tried when looking for the last structure in noisy text."""

MAX_TOKEN_COUNT = 10**12
"""Largest token count taken as one: no model call or run uses a trillion tokens, and a
larger figure (`1e300`, `2**64 - 1`) is a broken record. Read as unknown instead, it can never
overflow a 64-bit sum in a report or the judge cache, even added up over millions of runs."""

JUDGE_CALL_TIMEOUT_S = 180.0
"""Seconds one judge call may take in all, retries and waits included, unless told otherwise
(`--judge-call-timeout`): three slow attempts of a minute, or a few `Retry-After` waits."""
