"""The work budget shared by every list alignment of one answer's comparison.

A unit is about one comparison of two numbers (a couple of microseconds). Scoring a pair of
items costs one unit plus one per key it yields; `assignment_cost` and
`normalize.text_similarity_cost` put the optimal assignment and the similarity of two
strings in the same units, so that the budget bounds time whatever the answer holds.

Once the budget has run out, lists are paired greedily by shared values. That costs one unit
per leaf indexed, at every level again, so it has an allowance of its own (`allow_greedy`:
a quarter of the budget, plus one pass over the answer), past which lists are paired by
position, which costs nothing.

Example:
    >>> budget = AlignmentBudget(100)
    >>> budget.affords(60), budget.spend(60, "answer[0]"), budget.affords(60)
    (True, True, False)
    >>> budget.spend(60, "answer[1]"), budget.exhausted_at
    (False, 'answer[1]')
    >>> budget.allow_greedy(leaves=10); budget.greedy_allowed(), budget.greedy_limit
    (True, 155)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class AlignmentBudget:
    """Units of alignment work for one comparison, and what running out changed."""

    limit: int
    """Units the optimal alignments may spend."""

    spent: int = 0
    """Units spent so far (past `limit` by the work that ran it out, and the greedy work)."""

    exhausted_at: str | None = None
    """Key path of the list whose alignment ran the budget out, once it has."""

    greedy: int = 0
    """Lists paired greedily because the budget had run out."""

    by_position: int = 0
    """Lists paired by position because the greedy allowance had run out too."""

    greedy_limit: int | None = None
    """What `spent` may reach with greedy pairing (set by `allow_greedy`)."""

    def affords(self, units: int) -> bool:
        """Whether `units` more can be spent without running the budget out."""
        return self.exhausted_at is None and self.spent + units <= self.limit

    def spend(self, units: int, path: str) -> bool:
        """Spend `units` on the list at `path`; False once the budget has run out."""
        self.spent += units
        if self.spent > self.limit and self.exhausted_at is None:
            self.exhausted_at = path
        return self.exhausted_at is None

    def run_out(self, path: str) -> None:
        """Mark the budget run out at `path` (the work there would not fit)."""
        if self.exhausted_at is None:
            self.exhausted_at = path

    def allow_greedy(self, leaves: int) -> None:
        """Open the greedy allowance, once, for an answer of `leaves` leaves (gold and model):
        a quarter of the budget, and enough to index the whole answer once more."""
        if self.greedy_limit is None:
            self.greedy_limit = self.spent + self.limit // 4 + leaves

    def greedy_allowed(self) -> bool:
        """Whether greedy pairing may still index items (its allowance is not spent)."""
        return self.greedy_limit is not None and self.spent <= self.greedy_limit

    def note(self) -> str:
        """What running out changed, for the score's notes.

        Example:
            >>> note = AlignmentBudget(1000, 1300, "answer[3]", greedy=4, by_position=2).note()
            >>> note.split("; ")[0]
            'alignment budget of 1,000 comparisons exhausted at answer[3]'
            >>> note.split("; ")[1]
            '4 list(s) were then paired greedily by shared values instead, and 2 by position'
        """
        text = (
            f"alignment budget of {self.limit:,} comparisons exhausted at {self.exhausted_at}; "
            f"{self.greedy} list(s) were then paired greedily by shared values instead"
        )
        if self.by_position:
            text += f", and {self.by_position} by position"
        return text


def assignment_cost(rows: int, cols: int) -> int:
    """Units for the optimal assignment of a rows x cols matrix (cubic, but a tight loop).

    Example:
        >>> assignment_cost(10, 10), assignment_cost(100, 100)
        (15, 15625)
    """
    return rows * cols * min(rows, cols) // 64
