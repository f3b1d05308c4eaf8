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

ALIGNMENT_BUDGET = 500_000
"""Most work units one answer's optimal list alignments may spend, at every level of nesting
together (`static_json`'s option `alignment_budget`).

Aligning two lists by content scores every differing gold item against every differing model
item, and each of those pairs aligns the lists inside it the same way, so nested lists
multiply: a 100x100 grid of numbers, shuffled, took over ten minutes. A unit is about one
comparison of two numbers (a couple of microseconds): a pair of items scored costs one unit
plus one per key it yields, and longer strings and the assignment itself cost in proportion
to their work (`assay.answers._budget`). Past the budget the remaining lists are paired
greedily by shared values (then by position), and the score's notes say where it ran out.
Half a million units is about a second of work, and more than realistic answers need: a
hundred records of ten keys in another order, a tenth of their values wrong, take 0.23
million (half of them wrong, 0.47 million); three hundred records, a hundredth of the values
wrong, 35,000. Fifty such records that each hold two short lists in another order take 1.3
million: past the budget they are paired greedily, by their ids, and score as the optimum."""
