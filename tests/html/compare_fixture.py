"""Two evaluations of the shipped examples for the comparison page's tests: BASE is
`examples/trajectories`, NEW the changed agent `examples/trajectories-v2`; both sides add a
run whose id is an XSS probe (its answer and rationale are probes too, different on each side)
and NEW adds one more probe only it has."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from assay.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

XSS_ID = "<script>window.__xss=1</script>"
"""The id of a run that both sides have (scenario 16)."""

XSS_NEW_ID = "<img src=x onerror=\"window.__xss=2\">"
"""The id of a run only NEW has (scenario 16)."""


def _probe(run_id: str, answer: str) -> dict[str, object]:
    record = json.loads((EXAMPLES / "trajectories" / "16.json").read_text())
    record["run_id"] = run_id
    record["answer"] = answer
    return record


def evaluate_both(root: Path) -> tuple[Path, Path]:
    """`assay evaluate` (static_json and trajectory) of BASE and NEW under `root`; returns
    their reports directories."""
    runs = {
        "base": (EXAMPLES / "trajectories", [
            (XSS_ID, "javascript:window.__xss=3 the correct option is C."),
        ]),
        "new": (EXAMPLES / "trajectories-v2", [
            (XSS_ID, "<img src=x onerror=\"window.__xss=4\"> the option is <b>D</b>"),
            (XSS_NEW_ID, "<script>window.__xss=5</script>"),
        ]),
    }  # fmt: skip
    outs = []
    for side, (source, probes) in runs.items():
        folder = root / f"runs-{side}"
        shutil.copytree(source, folder)
        for number, (run_id, answer) in enumerate(probes):
            (folder / f"probe-{number}.json").write_text(json.dumps(_probe(run_id, answer)))
        out = root / side
        code = main(
            [
                "evaluate",
                "--trajectories", str(folder),
                "--scenarios", str(EXAMPLES / "scenarios"),
                "--scorer", "static_json", "--scorer", "trajectory",
                "--reports-dir", str(out),
                "--workers", "1", "-q",
            ]
        )  # fmt: skip
        assert code == 0
        outs.append(out)
    return outs[0], outs[1]
