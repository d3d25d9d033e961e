"""The loadgen command that repeats a stored run, written from its document's `parameters`
(every setting the run used) and `target`: the same tests, suite version, data patterns,
durations, passes, spare-area levels, seed, engine, workers and preconditioning, on a drive
the reader names. The run page shows it to copy (docs/methodology.md, "Reproducing a run")."""

from __future__ import annotations

import shlex
from typing import Any

from results import units

# What the reader replaces: the device to test (all its data is destroyed), or the file.
DEVICE = "/dev/DRIVE"
FILE = "bench-target.dat"
ALL_PATTERNS = {"compressible", "incompressible"}


def loadgen_command(document: dict[str, Any]) -> str | None:
    """The shell command (each argument quoted) that runs this document's tests again with
    its settings, on DEVICE for a block device (confirmed with --destroy-data) or FILE of
    the run's size for a file; None for a document loadgen did not write. An ad-hoc test
    (parameters.ad_hoc) gives its command line as loadgen recorded it."""
    tool = document.get("tool") or {}
    if tool.get("name") != "loadgen":
        return None
    p = document.get("parameters") or {}
    if p.get("ad_hoc"):
        return tool.get("command_line") or None
    target = document.get("target") or {}
    if target.get("kind") == "block":
        args = ["--target", DEVICE, f"--destroy-data={DEVICE}"]
    else:
        size = p.get("target_size_bytes") or target.get("capacity_bytes")
        args = ["--target", FILE, *(["--size", _size(size)] if size else [])]
    if p.get("suite"):
        args += ["--suite", f"{p['suite']['name']}:{p['suite']['version']}"]
    elif p.get("tests"):
        args += ["--tests", ",".join(p["tests"])]
    else:
        return None
    patterns = p.get("patterns") or []
    if patterns and set(patterns) != ALL_PATTERNS:
        args += ["--pattern", patterns[0]]
    if p.get("quick"):
        args.append("--quick")
    elif p.get("duration_scale", 1) != 1:
        args += ["--duration-scale", f"{p['duration_scale']:g}"]
    if "repeat" in p:
        args += ["--repeat", str(p["repeat"])]
    if p.get("spare_area_percent"):
        args += ["--spare-area", ",".join(f"{v:g}" for v in p["spare_area_percent"])]
    if "seed" in p:
        args += ["--seed", str(p["seed"])]
    if p.get("engine"):
        args += ["--engine", p["engine"]]
    if p.get("jobs", 1) > 1:
        args += ["--jobs", str(p["jobs"])]
    if p.get("direct") is False:
        args.append("--buffered")
    if p.get("precondition"):
        args += ["--precondition", p["precondition"]]
    return shlex.join(["loadgen", "run", *args])


def _size(num_bytes: int) -> str:
    """A size as loadgen's --size reads it: whole binary units where they divide it."""
    text = units.size(num_bytes)  # "8 GiB", "512 B"
    number, unit = text.split()
    return number + {"GiB": "G", "MiB": "M", "KiB": "K", "B": ""}[unit]
