"""The executor flags of `assay run` and `assay bench`: where the agents run."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.live.executors import Executor

RAY_FLAGS = ("ray_address", "ray_workers", "ray_num_cpus", "ray_num_gpus")


def add_executor_arguments(parser: argparse.ArgumentParser, unit: str) -> None:
    """Add `--executor` and the `--ray-*` flags; `unit` names what runs ("runs", "task
    repetitions") in their help."""
    from assay.cli._types import whole

    group = parser.add_argument_group("where the agents run")
    group.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local: in this process (default); ray: on the workers of a Ray cluster (needs "
        f"the ray package), each running --concurrency {unit} at a time",
    )
    group.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster, as `ray start --head` prints it (e.g. 127.0.0.1:6379); "
        "default: the one this machine runs, else a local one started for the run",
    )
    group.add_argument(
        "--ray-workers",
        type=whole(1),
        metavar="N",
        help="Ray workers (default: as many as the cluster's free CPUs allow)",
    )
    group.add_argument(
        "--ray-num-cpus", type=_amount, metavar="X",
        help="CPUs each Ray worker reserves (default 1)",
    )
    group.add_argument(
        "--ray-num-gpus", type=_amount, metavar="X",
        help="GPUs each Ray worker reserves (default 0)",
    )


def executor_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Executor | None:
    """The executor the flags ask for; None for the local one. A `--ray-*` flag without
    `--executor ray`, or Ray not installed, is a usage error (exits)."""
    given = [name for name in RAY_FLAGS if getattr(args, name) is not None]
    if args.executor != "ray":
        if given:
            flag = "--" + given[0].replace("_", "-")
            parser.error(f"{flag} needs --executor ray")
        return None
    from assay.live.executors.ray import RayExecutor, ray_missing

    missing = ray_missing()
    if missing is not None:
        parser.error(f"--executor ray: {missing}")
    options: dict[str, Any] = {"address": args.ray_address, "workers": args.ray_workers}
    if args.ray_num_cpus is not None:
        options["num_cpus"] = args.ray_num_cpus
    if args.ray_num_gpus is not None:
        options["num_gpus"] = args.ray_num_gpus
    return RayExecutor(**options)


def _amount(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of at least 0, got {text}")
    return value
