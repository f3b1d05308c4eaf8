"""Reading runs in each newer format against parsing the same files with orjson alone.

Usage:
    python bench/formats_bench.py [--runs 10000] [--rounds 7] [--out-root /dev/shm/assay-formats]
                                  [--only NAME ...] [--write]
    python bench/formats_bench.py --files PATH [PATH ...] [--rounds 7] [--write]
    python bench/formats_bench.py --base REV [--work REV] [--only NAME ...] [--runs N] [--write]

Formats (`--only` takes these names): `inspect .json`, `inspect .eval`, `tau-bench`,
`swe-agent .traj`, `langsmith .jsonl`, `otel openinference` and `adk .evalset_result`. For
each, `--runs` runs are written as the format's tool writes them, each run as large and as
nested as a typical one of that tool (the median of runs measured in public repositories; each
generator's docstring says what it follows and where that was measured), its texts generated
to those lengths (no text of those runs is copied). Files hold 100 runs (SWE-agent one run a
file). The runs are then read in turns, in this process, `--rounds` times each:
- floor: what any reader must do, the file's bytes read and parsed with orjson into its
  value (an `.eval` archive's members read and inflated, then parsed one at a time; the JSON
  string of an ADK result parsed too; a JSON lines file's lines into the list of their values,
  as a JSON file's parse is its whole value: a trace's runs are on several lines, and any
  reader holds them until the file is read);
- build: the floor, then the records assay's reader makes of the runs (one `Trajectory` a
  run, the same numbers of `Step`s, `Message`s, `ToolCall`s, `Usage`s, with the same ids,
  question, answer, tool names, arguments, results, usage and source) built with direct
  constructor calls, no checks, for the shape written here only (OTel spans' attributes made
  dicts, which any reader must do; durations left out for LangSmith): what the records
  themselves cost;
- assay: `assay.formats.registry.read_file` on each file (sniffing, the reader, the runs).
Three figures per format, each the median of the rounds' own ratios:
- assay / floor, the target (≤ 2x, issue 25): PASS or MISS;
- build / floor, the records alone (info, no target): where it is near or above 2x, no
  reader that builds these records can meet the target;
- assay / build, what the reader's own logic (sniffing, checks, notes) adds to the records.
Before the rounds (and as their warm-up), the runs of each format's first file are built and
read, and compared (ids, question, answer, steps, messages, tool calls, usage, source): a
build that differs from assay's runs is a fault of the bench, reported, exit 2. Only one
format's files exist at a time (each format's folder is removed once measured); the largest,
SWE-agent's, is about 3.1 GB.

`--files` measures real files instead (files, or folders walked as assay walks them), each
file's format being whatever assay's reader makes of it: per file, the floor (a `.json`
document parsed whole, and parsed again when it is a JSON string; a `.jsonl` / `.ndjson` file
into the list of its lines' values; every member of an `.eval` archive, Zstandard ones
inflated with `zstandard`) and `read_file`, in turns, `--rounds` rounds, each side repeated
in a round until it has taken at least 50 ms; printed per file: its name, size, the runs assay
read, reader / orjson (the median of the rounds' ratios) and PASS / MISS against 2x.

`--base REV` compares two versions of the readers instead: `src/` of REV (exported with `git
archive`, as `compare_commits.py` does) against the working tree, or against `--work REV`, on
the files `--only` formats write (`--runs` each) or on `--files`; each round runs one process a
side, in turn, which parses the files with orjson, then reads them (after one untimed reading);
printed per set: the median of the rounds' work / base CPU ratios of the reading, and each
side's reading / orjson.

With `--write`, the figures and values are appended to results/formats.jsonl: per format
(`ratio`, `assay_s`, `floor_s`, `build_ratio`, `build_s`, `assay_build_ratio`), or with
`--files` per file (its name, bytes, runs, ratio; no content).
Exit: 0 every target met, 1 one missed, 2 a count mismatch (or a build that differs, or a
file of `--files` with no run).
"""

from __future__ import annotations

import argparse
import gc
import math
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from assay.formats.registry import detect_reader, read_file, walk_inputs
from assay.records import Trajectory
from record import append, command_line, environment, figures, git_commit, now
from shapes.adk_results import build_adk_results, floor_adk, write_adk_results
from shapes.common import floor_json
from shapes.inspect_log import (
    build_inspect_eval,
    build_inspect_json,
    floor_eval,
    write_inspect_eval,
    write_inspect_json,
)
from shapes.langsmith import build_langsmith, floor_lines, write_langsmith
from shapes.openinference import build_otel, floor_otel, write_otel
from shapes.swe_agent import build_swe_agent, floor_one, write_swe_agent
from shapes.taubench import build_taubench, write_taubench

ROOT = Path(__file__).resolve().parent.parent
TARGET = 2.0
MIN_SIDE_S = 0.05
"""With `--files`, how long each side must take in a round at least (it is repeated)."""


class Format(NamedTuple):
    write: Callable[[Path, int], list[Path]]
    """How its files are written."""
    floor: Callable[[Path], int]
    """The floor's reading of one file (its number of runs)."""
    build: Callable[[Path], list[Trajectory]]
    """The build reference's reading of one file: its runs' records."""


FORMATS: dict[str, Format] = {
    "inspect .json": Format(write_inspect_json, floor_json, build_inspect_json),
    "inspect .eval": Format(write_inspect_eval, floor_eval, build_inspect_eval),
    "tau-bench": Format(write_taubench, floor_json, build_taubench),
    "swe-agent .traj": Format(write_swe_agent, floor_one, build_swe_agent),
    "langsmith .jsonl": Format(write_langsmith, floor_lines, build_langsmith),
    "otel openinference": Format(write_otel, floor_otel, build_otel),
    "adk .evalset_result": Format(write_adk_results, floor_adk, build_adk_results),
}


def assay_read(path: Path) -> int:
    return sum(isinstance(item, Trajectory) for item in read_file(path))


def _shape(run: Trajectory) -> tuple[Any, ...]:
    """What the build reference must share with assay's run."""
    calls = run.tool_calls()
    return (run.run_id, run.scenario_id, run.question, run.answer, len(run.steps),
            len(run.messages), [(c.name, c.args, c.call_id, c.result) for c in calls],
            run.usage, run.source)


def counted(build: Callable[[Path], list[Trajectory]]) -> Callable[[Path], int]:
    """The build reference as a count of runs, as the floor and assay are timed."""

    def count(path: Path) -> int:
        return len(build(path))

    return count


def build_differs(path: Path, build: Callable[[Path], list[Trajectory]]) -> str | None:
    """How the build reference's runs of `path` differ from assay's, or None."""
    built = [_shape(run) for run in build(path)]
    read = [_shape(run) for run in read_file(path) if isinstance(run, Trajectory)]
    if len(built) != len(read):
        return f"{len(built)} runs built, {len(read)} read"
    for ours, theirs in zip(built, read, strict=True):
        if ours != theirs:
            return f"built {ours}\n  read  {theirs}"
    return None


def timed(work: Callable[[Path], int], paths: list[Path]) -> tuple[float, int]:
    gc.collect()
    started = time.perf_counter()
    found = sum(work(path) for path in paths)
    return time.perf_counter() - started, found


def run_formats(args: argparse.Namespace) -> int:
    rows, values, missed = [], {}, False
    for name, (write, floor, build) in FORMATS.items():
        if args.only and name not in args.only:
            continue
        folder = args.out_root / name.replace(" ", "_").replace(".", "")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        paths = write(folder, args.runs)
        differs = build_differs(paths[0], build)  # also the warm-up: the modules imported
        if differs is not None:
            print(f"{name}: the build reference differs from assay:\n  {differs}")
            return 2
        built = counted(build)
        times: dict[str, list[float]] = {"floor": [], "build": [], "assay": []}
        for _ in range(args.rounds):
            for side, work in (("floor", floor), ("build", built), ("assay", assay_read)):
                seconds, found = timed(work, paths)
                if found != args.runs:
                    print(f"{name}: {side} read {found} runs; expected {args.runs}")
                    return 2
                times[side].append(seconds)
        floor_s, build_s, assay_s = (statistics.median(times[side])
                                     for side in ("floor", "build", "assay"))
        ratio, build_ratio, own_ratio = (
            statistics.median(a / b for a, b in zip(times[top], times[bottom], strict=True))
            for top, bottom in (("assay", "floor"), ("build", "floor"), ("assay", "build"))
        )
        status = "PASS" if ratio <= TARGET else "MISS"
        missed |= status == "MISS"
        size = sum(path.stat().st_size for path in paths)
        result = f"{ratio:.2f}x (assay {assay_s:.3f} s, orjson {floor_s:.3f} s)"
        records = (f"{build_ratio:.2f}x (build {build_s:.3f} s, orjson {floor_s:.3f} s); "
                   f"assay / build {own_ratio:.2f}x")
        print(f"{name} ({size / 1e6:,.0f} MB, {size / args.runs / 1e3:,.1f} KB a run): "
              f"{result} {status}\n  records alone, build / orjson: {records}")
        rows.append((f"{name}, {args.runs:,} runs, assay / orjson", result, f"≤ {TARGET}x",
                     status))
        rows.append((f"{name}, {args.runs:,} runs, build / orjson (the records alone)", records,
                     "—", "info"))
        values[name] = {"ratio": ratio, "assay_s": assay_s, "floor_s": floor_s,
                        "build_ratio": build_ratio, "build_s": build_s,
                        "assay_build_ratio": own_ratio}
        shutil.rmtree(folder, ignore_errors=True)
    if args.write:
        append("formats", {
            "bench": "formats", "date": now(), "commit": git_commit(),
            "command": command_line(), "environment": environment(),
            "figures": figures(rows), "values": values,
        })
    return 1 if missed else 0


_ZSTANDARD = 93
"""The zip compression method number of Zstandard (Inspect AI's `.eval` members)."""


def _member_bytes(file: Any, info: zipfile.ZipInfo, archive: zipfile.ZipFile) -> bytes:
    """A member's bytes, inflated: by `zipfile`, or for Zstandard by `zstandard`."""
    if info.compress_type != _ZSTANDARD:
        return archive.read(info)
    import zstandard  # only real `.eval` logs need it

    file.seek(info.header_offset + 26)
    name_length, extra_length = struct.unpack("<HH", file.read(4))
    file.seek(info.header_offset + 30 + name_length + extra_length)
    raw = file.read(info.compress_size)
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)


def floor_file(path: Path) -> int:
    """A real file parsed as any reader must: every member of an `.eval` archive, the lines
    of a `.jsonl` / `.ndjson` file (into the list of their values, as the main mode's floor),
    else the document (and the JSON string it may be)."""
    name = path.name.lower()
    if name.endswith(".eval"):
        with path.open("rb") as file, zipfile.ZipFile(file) as archive:
            infos = archive.infolist()
            for info in infos:
                orjson.loads(_member_bytes(file, info, archive))
        return len(infos)
    if name.endswith((".jsonl", ".ndjson")):
        return len([orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()])
    value = orjson.loads(path.read_bytes())
    if isinstance(value, str):  # JSON written as a JSON string (ADK's eval results)
        orjson.loads(value)
    return 1


def _repeats(work: Callable[[Path], int], path: Path) -> int:
    """How many calls of `work` take at least MIN_SIDE_S (timed once, after a warm-up)."""
    work(path)
    started = time.perf_counter()
    work(path)
    took = time.perf_counter() - started
    return max(1, math.ceil(MIN_SIDE_S / max(took, 1e-9)))


def _per_call(work: Callable[[Path], int], path: Path, repeats: int) -> float:
    gc.collect()
    started = time.perf_counter()
    for _ in range(repeats):
        work(path)
    return (time.perf_counter() - started) / repeats


def _file_paths(given: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in given:
        for item in walk_inputs(path):
            if isinstance(item, str):
                found.append(Path(item))
            else:
                print(f"skipped: {item.source}: {item.reason}")
    return found


def run_files(args: argparse.Namespace) -> int:
    """Each real file's reading against its floor (see the module notes)."""
    rows, measured, missed, empty = [], [], False, False
    print(f"{'format':<13} {'bytes':>11} {'runs':>5}  {'reader / orjson':<16} file")
    for path in _file_paths(args.files):
        items = list(read_file(path))
        runs = sum(isinstance(item, Trajectory) for item in items)
        problems = len(items) - runs
        reader = detect_reader(path) or "none"
        size = path.stat().st_size
        if runs == 0:
            empty = True
            print(f"{reader:<13} {size:>11,} {runs:>5}  {'no run read':<16} {path.name} "
                  f"({problems} problems)")
            continue
        repeats = {side: _repeats(work, path)
                   for side, work in (("floor", floor_file), ("assay", assay_read))}
        ratios = []
        for _ in range(args.rounds):
            floor_s = _per_call(floor_file, path, repeats["floor"])
            assay_s = _per_call(assay_read, path, repeats["assay"])
            ratios.append(assay_s / floor_s)
        ratio = statistics.median(ratios)
        status = "PASS" if ratio <= TARGET else "MISS"
        missed |= status == "MISS"
        said = f" ({problems} problems)" if problems else ""
        print(f"{reader:<13} {size:>11,} {runs:>5}  {ratio:5.2f}x {status:<10} {path.name}{said}")
        rows.append((f"{path.name} ({reader}, {size:,} bytes, {runs} runs), assay / orjson",
                     f"{ratio:.2f}x", f"≤ {TARGET}x", status))
        measured.append({"file": path.name, "format": reader, "bytes": size, "runs": runs,
                         "ratio": ratio})
    if args.write:
        append("formats", {
            "bench": "formats", "date": now(), "commit": git_commit(),
            "command": command_line(), "environment": environment(),
            "figures": figures(rows), "values": {"files": measured},
        })
    return 2 if empty else 1 if missed else 0


_AB_CHILD = """
import gc, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import orjson
from assay.formats.registry import read_file
paths = [Path(p) for p in sys.argv[2:]]
def floor():
    for path in paths:
        orjson.loads(path.read_bytes())
def read():
    for path in paths:
        for _ in read_file(path):
            pass
read()  # the warm-up: readers imported, caches filled
for side, work in (("floor", floor), ("read", read)):
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    print(side, time.process_time() - cpu, time.perf_counter() - wall)
"""
"""One side of an A/B round: the files parsed by orjson, then read by `read_file` of the
source tree given, in one process; CPU and wall seconds of each."""


def _ab_round(tree: Path, paths: list[Path]) -> dict[str, tuple[float, float]]:
    done = subprocess.run([sys.executable, "-c", _AB_CHILD, str(tree), *map(str, paths)],
                          capture_output=True, text=True, check=True)
    found = {}
    for line in done.stdout.splitlines():
        side, cpu, wall = line.split()
        found[side] = (float(cpu), float(wall))
    return found


def run_ab(args: argparse.Namespace) -> int:
    """Reading at `--base` against `--work` (or the working tree), in alternating processes."""
    from compare_commits import export_source  # beside this script

    with tempfile.TemporaryDirectory() as scratch:
        base = export_source(args.base, Path(scratch) / "base")
        work = ROOT / "src"
        if args.work is not None:
            work = export_source(args.work, Path(scratch) / "work")
        sets: list[tuple[str, list[Path]]] = []
        if args.files:
            sets.append(("files", _file_paths(args.files)))
        for name, spec in FORMATS.items():
            if not args.files and (not args.only or name in args.only):
                folder = args.out_root / name.replace(" ", "_").replace(".", "")
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                sets.append((name, spec.write(folder, args.runs)))
        values = {}
        for name, paths in sets:
            cpu: dict[str, list[float]] = {"base": [], "work": []}
            own: dict[str, list[float]] = {"base": [], "work": []}  # read / floor, per round
            for _ in range(args.rounds):
                for side, tree in (("base", base), ("work", work)):
                    found = _ab_round(tree, paths)
                    cpu[side].append(found["read"][0])
                    own[side].append(found["read"][0] / found["floor"][0])
            ratio = statistics.median(w / b for w, b in zip(cpu["work"], cpu["base"], strict=True))
            base_floor, work_floor = (statistics.median(own[side]) for side in ("base", "work"))
            base_s, work_s = (statistics.median(cpu[side]) for side in ("base", "work"))
            print(f"{name}: work / base, read CPU (median of rounds): {ratio:.3f}x; read / "
                  f"orjson: base {base_floor:.2f}x, work {work_floor:.2f}x; read CPU median: "
                  f"base {base_s:.3f} s, work {work_s:.3f} s")
            values[name] = {"work_base": ratio, "base_floor": base_floor,
                            "work_floor": work_floor, "base_s": base_s, "work_s": work_s}
            if name != "files":
                shutil.rmtree(paths[0].parent, ignore_errors=True)
    if args.write:
        append("formats", {
            "bench": "formats-ab", "date": now(), "commit": git_commit(),
            "command": command_line(), "environment": environment(), "values": values,
        })
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out-root", type=Path, default=Path("/dev/shm/assay-formats"))
    parser.add_argument("--only", nargs="*", help="format names to run (default: all)")
    parser.add_argument("--files", nargs="+", type=Path, metavar="PATH",
                        help="measure these real files (or the files in these folders)")
    parser.add_argument("--base", metavar="REV",
                        help="A/B: read at this commit against the working tree (or --work)")
    parser.add_argument("--work", metavar="REV", help="with --base: this commit, not the tree")
    parser.add_argument("--write", action="store_true", help="append to results/formats.jsonl")
    args = parser.parse_args(argv)
    if args.base:
        return run_ab(args)
    return run_files(args) if args.files else run_formats(args)


if __name__ == "__main__":
    sys.exit(main())
