"""Checks that drive the agent itself, not only read its run: a simulated user
(`simulation`) and a repeated idempotent call (`idempotency`). The runner runs them within the
run's timeout and capture, and hands their verdicts to the scoring step."""
