"""The loadgen command that repeats a stored run, written from its document's `parameters`
(every setting the run used) by loadgen's own option table: `loadgen options --json`,
committed as `schema/loadgen-options.json`, says for each option the `parameters` key it is
recorded as and how that value is written back as an argument. The same tests, suite
version, data patterns, durations, passes, spare-area levels, seed, engine, workers and
preconditioning, the ad-hoc test's settings, on a drive the reader names. A document of a
loadgen that did not record an option yet (--qd-max, --round, --time before schema version
4) gives it as its recorded command line (tool.command_line) gave it, read as loadgen's
getopt_long reads it. The run page shows it to copy (docs/methodology.md, "Reproducing a
run")."""

from __future__ import annotations

import functools
import json
import shlex
from pathlib import Path
from typing import Any

# What the reader replaces: the device to test (all its data is destroyed), or the file.
DEVICE = "/dev/DRIVE"
FILE = "bench-target.dat"
OPTIONS = Path(__file__).resolve().parent / "schema" / "loadgen-options.json"
# The key of --size: a file's size is the run's; a device's is the device's own.
TARGET_SIZE = "target_size_bytes"
BINARY_UNITS = (("T", 40), ("G", 30), ("M", 20), ("K", 10))


@functools.cache
def run_options() -> tuple[dict[str, Any], ...]:
    """Every option of loadgen run, in loadgen's order."""
    table = json.loads(OPTIONS.read_text())
    return tuple(o for o in table["options"] if "run" in o["commands"])


@functools.cache
def recorded_options() -> tuple[dict[str, Any], ...]:
    """loadgen run's options that `parameters` records, in loadgen's order."""
    table = json.loads(OPTIONS.read_text())
    return tuple(o for o in table["options"] if o.get("parameter") and "run" in o["commands"])


def loadgen_command(document: dict[str, Any]) -> str | None:
    """The shell command (each argument quoted) that runs this document's tests again with
    its settings, on DEVICE for a block device (confirmed with --destroy-data) or FILE of
    the run's size for a file; None for a document loadgen did not write. An ad-hoc test
    recorded before loadgen recorded its settings (no parameters.rw) gives its command line
    as loadgen recorded it."""
    tool = document.get("tool") or {}
    if tool.get("name") != "loadgen":
        return None
    p = document.get("parameters") or {}
    if p.get("ad_hoc") and "rw" not in p:
        return tool.get("command_line") or None
    if not (p.get("suite") or p.get("tests")):
        return None
    block = (document.get("target") or {}).get("kind") == "block"
    given = given_options(tool.get("command_line") or "")
    args = ["--target", DEVICE, f"--destroy-data={DEVICE}"] if block else ["--target", FILE]
    for option in recorded_options():  # the target's size with the target
        if option["parameter"] == TARGET_SIZE and not block:
            args += _argument(option, p, given)
    for option in recorded_options():
        if option["parameter"] != TARGET_SIZE:
            args += _argument(option, p, given)
    return shlex.join(["loadgen", "run", *args])


def given_options(command_line: str) -> dict[str, str | None]:
    """The options of `loadgen run` a recorded command line gave, by name, each with its
    value (None for a flag), as loadgen's getopt_long reads them: `--name VALUE`,
    `--name=VALUE`, or a prefix of one name alone; the last one given wins, as it does
    in loadgen. Nothing for a line that is not a run's, or not one shlex can split."""
    try:
        argv = shlex.split(command_line)
    except ValueError:
        return {}
    if len(argv) < 2 or argv[1] != "run":
        return {}
    options = {o["name"]: o for o in run_options()}
    given: dict[str, str | None] = {}
    words = iter(argv[2:])
    for word in words:
        if word == "--":
            break
        if not word.startswith("--"):
            continue  # a value getopt_long moved aside, or a short option (-h)
        text, equals, value = word[2:].partition("=")
        names = [text] if text in options else [n for n in options if n.startswith(text)]
        if len(names) != 1:
            continue  # loadgen refused it: the run was not made so
        option = options[names[0]]
        if option["type"] == "flag":
            given[option["name"]] = None
        else:
            given[option["name"]] = value if equals else next(words, "")
    return given


def _argument(
    option: dict[str, Any], parameters: dict[str, Any], given: dict[str, str | None]
) -> list[str]:
    """The option's argument(s) that make loadgen record parameters[its key] again: none
    when the key holds what loadgen records without the option, or follows from a key
    the command gives (the tests of a suite); when the key is absent (a loadgen that did
    not record it), the option as the recorded command line gave it, if it did."""
    key, record = option["parameter"], option["record"]
    if any(parameters.get(k) for k in option["follows"]):
        return []
    flag = "--" + option["name"]
    if key not in parameters:
        if option["name"] not in given:
            return []
        value = given[option["name"]]
        if value is None:
            return [flag]
        return [f"{flag}={value}"] if option.get("attached") else [flag, value]
    value = parameters[key]
    if "recorded_default" in option and value == option["recorded_default"]:
        return []
    if record in ("true", "false"):
        return [flag] if value is (record == "true") else []
    if record == "list":
        if not value:
            return []
        text = ",".join(_number_or_text(v) for v in value)
    elif record == "size":
        text = _size(value)
    elif record == "suite":
        text = f"{value['name']}:{value['version']}"
    else:
        text = _number_or_text(value)
    return [f"{flag}={text}"] if option.get("attached") else [flag, text]


def _number_or_text(value: Any) -> str:
    """A recorded value as loadgen reads it: a float in the fewest digits that read back
    as it (repr), anything else as it prints."""
    return repr(value) if isinstance(value, float) else str(value)


def _size(num_bytes: int) -> str:
    """A size as loadgen reads it: whole binary units where they divide it, else bytes."""
    for suffix, shift in BINARY_UNITS:
        if num_bytes and num_bytes % (1 << shift) == 0:
            return f"{num_bytes >> shift}{suffix}"
    return str(num_bytes)
