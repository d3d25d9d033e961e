"""loadgen's option table and what is written from it: the committed copy
(results/schema/loadgen-options.json) is what loadgen prints, docs/loadgen-cli.md names
every option, `run --plan` records what the run records, and, as a property over generated
options and values, the command results.reproduce writes from a document's `parameters`
gives a document with the same `parameters` (issue 48, item 5). Every run here is a plan
(`run --plan`: no I/O) but those that check the plan against the run. loadgen is built
(make loadgen) when the tree has no binary yet."""

import json
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from results import reproduce
from tests.loadgen.test_interrupted_run import ROOT, loadgen  # noqa: F401 - the fixture

DOC = ROOT / "docs" / "loadgen-cli.md"
WSAT = "wsat-4k-qd32"
MAX_SPARE = 8  # LG_MAX_SPARE
# The recorded options whose values the generator draws by hand: the selection of tests
# and what goes with it, a value read by a function of its own, the target's size.
BY_HAND = {
    "suite", "tests", "qd-max", "time", "round", "rw", "rwmixread", "bs", "qd", "span",
    "pattern", "spare-area", "engine", "size", "rate", "load",
}  # fmt: skip


def run(binary: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def plan(binary: Path, argv: list[str], cwd: Path) -> dict:
    """What `loadgen run ARGV --plan` says the run would record."""
    done = run(binary, "run", *argv, "--plan", cwd=cwd)
    assert done.returncode == 0, (argv, done.stderr)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def directory() -> Iterator[Path]:
    """On a disk: a file on tmpfs is refused under O_DIRECT, which measures memory there."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as name:
        yield Path(name)


@pytest.fixture(scope="module")
def catalog(loadgen) -> dict:  # noqa: F811
    done = run(loadgen, "list", "--json", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def engines(loadgen, directory) -> list[str]:  # noqa: F811
    """The engines this kernel runs: psync always, io_uring when it offers it."""
    probe = ["run", "--target", "t.bin", "--size", "1M", "--tests", "randread-4k-qd3", "--plan"]
    offered = run(loadgen, *probe, "--engine", "io_uring", cwd=directory).returncode == 0
    return ["psync", "io_uring"] if offered else ["psync"]


@pytest.fixture(scope="module")
def table(loadgen) -> dict:  # noqa: F811
    done = run(loadgen, "options", "--json", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_committed_table_is_loadgens(table):
    committed = json.loads(reproduce.OPTIONS.read_text())
    assert committed == table, "results/schema/loadgen-options.json is stale: make loadgen-options"


def test_the_cli_document_names_every_option_under_one_of_its_commands(table):
    """docs/loadgen-cli.md: the text under `loadgen COMMAND` (up to the next command) names
    each option of that command, or of another command that takes it too."""
    text = DOC.read_text()
    sections: dict[str, str] = {}
    for match in re.finditer(r"^loadgen (\S+)(.*?)(?=^loadgen |\Z)", text, re.M | re.S):
        sections[match.group(1)] = sections.get(match.group(1), "") + match.group(2)
    for option in table["options"]:
        flag = re.compile(rf"(?<![\w-])--{re.escape(option['name'])}(?![\w-])")
        where = [c for c in option["commands"] if flag.search(sections.get(c, ""))]
        if option["name"] == "help":
            where = ["--help"] if "--help" in sections else []
        assert where, f"--{option['name']} ({option['commands']}) is not in {DOC.name}"


def test_the_man_page_has_every_option(loadgen, table):  # noqa: F811
    done = run(loadgen, "options", "--man", cwd=ROOT)
    assert done.returncode == 0 and done.stdout.startswith('.\\"'), done.stderr
    for option in table["options"]:
        assert "\\fB\\-\\-" + option["name"].replace("-", "\\-") + "\\fR" in done.stdout


def test_every_recorded_parameter_is_the_schemas():
    """Each key the table says parameters record is one the result document may hold."""
    schema = json.loads((reproduce.OPTIONS.parent / "result-document.schema.json").read_text())
    allowed = schema["properties"]["parameters"]["properties"]
    for option in reproduce.recorded_options():
        assert option["parameter"] in allowed, option["name"]
        for key in option["follows"]:
            assert key in allowed, (option["name"], key)


def test_every_recorded_option_is_generated(table):
    """The property below draws each recorded option: from its row, or by hand (BY_HAND);
    a new recorded option whose row cannot say its values fails here until it is drawn."""
    recorded = [o for o in table["options"] if o.get("parameter")]
    assert {o["name"] for o in recorded} >= BY_HAND
    for option in filter(_generic, recorded):
        assert option["type"] in ("flag", "choice", "integer", "size", "number"), option["name"]


@pytest.mark.parametrize(
    "options",
    [
        ["--tests", "randread-4k-qd3,randwrite-4k-qd3-8g", "--duration-scale", "0.003",
         "--pattern", "compressible", "--precondition", "none"],
        ["--tests", WSAT, "--time", "0.6", "--round", "0.2", "--jobs", "2"],
        ["--rw", "randrw", "--rwmixread", "70", "--bs", "8k", "--qd", "4", "--span", "16M",
         "--time", "0.5", "--pattern", "incompressible", "--seed", "5"],
    ],
)  # fmt: skip
def test_the_plan_records_what_the_run_records(loadgen, directory, options):  # noqa: F811
    for old in directory.iterdir():
        old.unlink()
    argv = ["--target", "t.bin", "--size", "32M", "--seed", "3", *options]
    planned = plan(loadgen, argv, directory)
    assert not (directory / "t.bin").exists(), "a plan creates nothing"
    done = run(loadgen, "run", *argv, "--output", "doc.json", "--quiet", cwd=directory)
    assert done.returncode == 0, done.stderr
    document = json.loads((directory / "doc.json").read_text())
    assert planned["parameters"] == document["parameters"]
    assert planned["target"]["capacity_bytes"] == document["target"]["capacity_bytes"]


# The options that select the tests, recorded by every loadgen that wrote parameters.
SELECTION = {"suite", "tests", "rw"}
# The options of the ad-hoc test (--rw): their defaults are read with one.
AD_HOC = {"rwmixread", "bs", "qd"}
# What parameters record that no option sets: the same in every document.
CONSTANT = {"compressible_ratio"}


def test_each_default_is_what_a_run_takes_without_the_option(loadgen, directory, table):  # noqa: F811
    """A default is declared once, in the option's row (its `default`, read as a given
    value is): the run given it records what the run without it records, which is the
    row's recorded_default where it has one."""
    defaults = [o for o in table["options"] if "default" in o and "run" in o["commands"]]
    assert {o["name"] for o in defaults} >= {"qd-max", "pattern", "spare-area", "jobs"}
    for option in defaults:
        base = ["--target", "t.bin", "--size", "1M", "--seed", "1"]
        if option["name"] in AD_HOC:
            base += ["--rw", "randrw", "--time", "1"]
        else:
            base += ["--tests", "randread-4k-qd3"]
        without = plan(loadgen, base, directory)["parameters"]
        given = plan(loadgen, [*base, f"--{option['name']}", option["default"]], directory)
        assert given["parameters"] == without, option["name"]
        if "recorded_default" in option:
            assert without[option["parameter"]] == option["recorded_default"], option["name"]


def test_each_help_names_its_default(table):
    """--help, the man page and docs/loadgen-cli.md say each default as the row holds it."""
    for option in table["options"]:
        if "default" in option:
            help_text = option["help"].replace("\n", " ")
            assert "default" in help_text and option["default"] in help_text, option["name"]


# Generated command lines: a catalog run (a suite or tests) or an ad-hoc test, with any of
# the options loadgen records, each with a value it takes.
def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def _size(num_bytes: int) -> st.SearchStrategy[str]:
    """A size as a user may write it: in bytes, or in a binary unit that divides it."""
    texts = [str(num_bytes)]
    for suffix, shift in (("k", 10), ("M", 20), ("G", 30), ("T", 40)):
        if num_bytes % (1 << shift) == 0:
            texts.append(f"{num_bytes >> shift}{suffix}")
    return st.sampled_from(texts)


def _optional(strategy: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), strategy)


def _number(value: float) -> str:
    return repr(value)


def _value(option: dict) -> st.SearchStrategy[list[str]]:
    """The option with a value its row allows (a flag alone), from the row itself."""
    flag = "--" + option["name"]
    kind = option["type"]
    if kind == "flag":
        return st.just([flag])
    if kind == "choice":
        values = st.sampled_from(option["choices"])
    elif kind == "integer":
        values = st.integers(option["minimum"], option["maximum"]).map(str)
    elif kind == "size":
        values = st.integers(option["minimum"], option["maximum"]).flatmap(_size)
    else:  # a number; strtod refuses a subnormal one (ERANGE), as loadgen says
        values = _floats(max(option.get("minimum", 0), 1e-6), option["maximum"]).map(_number)
    return values.map(lambda v: [flag, v])


def _generic(option: dict) -> bool:
    """Whether the option's values are drawn from its row alone (_value)."""
    return option["name"] not in BY_HAND


@st.composite
def common_options(draw, engines: list[str]) -> list[str]:
    """The recorded options every run takes: those of a value its row describes, each
    given or not; the data patterns, spare-area levels and engine; a new file's size."""
    args: list[str] = []
    for option in reproduce.recorded_options():
        if _generic(option):
            args += draw(_optional(_value(option)))
    for flag, values in (
        ("--pattern", st.sampled_from(
            ["compressible", "incompressible", "both", "compressible,incompressible"])),
        ("--spare-area", st.lists(st.integers(0, 90), min_size=1, max_size=MAX_SPARE)
            .map(lambda levels: ",".join(map(str, levels)))),
        ("--engine", st.sampled_from(engines)),
    ):  # fmt: skip
        args += draw(_optional(values.map(lambda v, f=flag: [f, v])))
    size = draw(st.integers(4096, 2**44))
    args += ["--size", draw(_size(size))]
    return args


@st.composite
def catalog_options(draw, catalog: dict) -> list[str]:
    """A suite (by name alone when it is the latest version) or tests, and --qd-max; a
    sweep's depths beyond it are left out of a suite and not named in --tests, which
    refuses them; --time and --round when the write saturation WSAT is run."""
    qd_max = draw(st.one_of(st.none(), st.integers(1, 1024)))
    args = [] if qd_max is None else ["--qd-max", str(qd_max)]
    tests = {t["id"]: t for t in catalog["tests"]}
    deepest = 32 if qd_max is None else qd_max
    runnable = [i for i, t in tests.items() if not (t.get("family") and t["queue_depth"] > deepest)]
    if draw(st.booleans()):
        suite = draw(st.sampled_from(catalog["suites"]))
        latest = max(s["version"] for s in catalog["suites"] if s["name"] == suite["name"])
        names = [f"{suite['name']}:{suite['version']}"]
        names += [suite["name"]] if suite["version"] == latest else []
        args += ["--suite", draw(st.sampled_from(names))]
        ids = [i for i in suite["tests"] if i in runnable]
    else:
        ids = draw(st.lists(st.sampled_from(runnable), min_size=1, max_size=6, unique=True))
        args += ["--tests", ",".join(ids)]
    if WSAT in ids:
        args += draw(_optional(_floats(1e-3, 1e6).map(lambda v: ["--time", _number(v)])))
        args += draw(_optional(_floats(0.01, 3600).map(lambda v: ["--round", _number(v)])))
    return args


@st.composite
def adhoc_options(draw) -> list[str]:
    rw = draw(st.sampled_from(["randread", "randwrite", "read", "write", "randrw", "rw"]))
    bs = draw(st.integers(1, 131072)) * 512
    args = ["--rw", rw, "--time", _number(draw(_floats(1e-3, 1e6)))]
    if rw in ("randrw", "rw"):
        args += draw(_optional(st.integers(0, 100).map(lambda v: ["--rwmixread", str(v)])))
    args += draw(_optional(_size(bs).map(lambda v: ["--bs", v])))
    args += draw(_optional(st.integers(1, 1024).map(lambda v: ["--qd", str(v)])))
    span = draw(st.integers(bs, 2**44))
    args += draw(_optional(_size(span).map(lambda v: ["--span", v])))
    # Paced at a rate, or at fractions of its maximum: one or the other.
    loads = st.lists(st.integers(1, 100), min_size=1, max_size=16, unique=True)
    args += draw(
        st.one_of(
            st.just([]),
            st.integers(1, 10**8).map(lambda v: ["--rate", str(v)]),
            loads.map(lambda v: ["--load", ",".join(map(str, v))]),
        )
    )
    return args


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_page_command_records_the_same_parameters(
    loadgen,  # noqa: F811
    catalog,
    engines,
    directory,
    data,
):
    """For generated options of every kind loadgen records, the command results.reproduce
    writes from the plan's document, run as it is, records the same parameters."""
    selection = data.draw(st.one_of(catalog_options(catalog), adhoc_options()), "selection")
    options = ["--target", "first.bin", *selection, *data.draw(common_options(engines), "options")]
    first = plan(loadgen, options, directory)
    written_back = {o["parameter"] for o in reproduce.recorded_options()}
    written_back |= {k for o in reproduce.recorded_options() for k in o["follows"]}
    assert set(first["parameters"]) <= written_back | CONSTANT, "a key no option writes back"
    command = reproduce.loadgen_command(first)
    assert command is not None
    argv = shlex.split(command)
    assert argv[:4] == ["loadgen", "run", "--target", reproduce.FILE]
    again = plan(loadgen, argv[2:], directory)
    assert again["parameters"] == first["parameters"], command

    # A loadgen that did not record some of the options given yet (--qd-max and --round
    # before schema version 4): the command takes them from the recorded command line.
    given = reproduce.given_options(first["tool"]["command_line"])
    unrecorded = [
        o["parameter"]
        for o in reproduce.recorded_options()
        if o["name"] in given
        and o["name"] not in SELECTION
        and o["parameter"] in first["parameters"]
    ]
    dropped = data.draw(
        st.lists(st.sampled_from(unrecorded), unique=True) if unrecorded else st.just([]), "dropped"
    )
    older = {
        **first,
        "parameters": {k: v for k, v in first["parameters"].items() if k not in dropped},
    }
    command = reproduce.loadgen_command(older)
    again = plan(loadgen, shlex.split(command)[2:], directory)
    assert again["parameters"] == first["parameters"], (dropped, command)


def test_a_block_device_command_names_the_reader_drive_and_no_size():
    document = {
        "tool": {"name": "loadgen"},
        "target": {"kind": "block"},
        "parameters": {"tests": ["randread-4k-qd3"], "target_size_bytes": 2**30, "seed": 1},
    }
    argv = shlex.split(reproduce.loadgen_command(document))
    assert argv[:5] == ["loadgen", "run", "--target", "/dev/DRIVE", "--destroy-data=/dev/DRIVE"]
    assert "--size" not in argv and argv[-2:] == ["--seed", "1"]


# Recorded command lines: the options that say where the run went and what it was, none of
# which parameters record (each with its value but the flags).
ELSEWHERE = {"--target", "--output", "--size", "--upload", "--token-file", "--compare",
             "--drive", "--bench", "--firmware", "--drive-state"}  # fmt: skip
ELSEWHERE_FLAGS = {"--force", "--quiet", "--plan"}
DEMO = sorted((ROOT / "demo" / "measured").glob("*.json"))


def _on_a_file(argv: list[str], size: int) -> list[str]:
    """A run's options (after `run`) on a file of this size instead of its target."""
    kept, words = [], iter(argv)
    for word in words:
        if word in ELSEWHERE:
            next(words)
        elif not (word in ELSEWHERE_FLAGS or word.startswith("--destroy-data")):
            kept.append(word)
    return ["--target", "t.bin", "--size", str(size), *kept]


@pytest.mark.parametrize("path", DEMO, ids=lambda p: p.stem)
def test_a_demo_runs_command_records_what_its_own_command_line_records(
    loadgen,  # noqa: F811
    directory,
    engines,
    path,  # noqa: F811
):
    """Run 24 (workloads-file: --qd-max 128, schema version 2) and run 25 (wsat-zram:
    --round 1, version 4) were recorded before loadgen recorded those options: the page's
    command still gives them, as each run's recorded command line does."""
    document = json.loads(path.read_text())
    size = document["parameters"]["target_size_bytes"]
    recorded = shlex.split(document["tool"]["command_line"])
    assert recorded[1] == "run"
    command = shlex.split(reproduce.loadgen_command(document))
    argvs = [_on_a_file(recorded[2:], size), _on_a_file(command[2:], size)]
    if "io_uring" not in engines:  # the same engine in both, the kernel's
        argvs = [[w.replace("io_uring", "psync") for w in argv] for argv in argvs]
    own, page = (plan(loadgen, argv, directory)["parameters"] for argv in argvs)
    assert page == own, command
    for key, value in document["parameters"].items():
        assert page[key] == value, key


def test_the_command_line_is_read_as_loadgen_reads_it(loadgen, directory):  # noqa: F811
    """--name VALUE, --name=VALUE, a unique prefix, a flag, the last one given winning: what
    given_options reads is what loadgen's plan records."""
    argv = [
        "--target", "t.bin", "--size=1M", "--tests", WSAT, "--rou=5", "--round", "2",
        "--qd-m", "64", "--quic", "--time=30", "--jobs", "3",
    ]  # fmt: skip
    given = reproduce.given_options(shlex.join(["loadgen", "run", *argv]))
    assert given == {
        "target": "t.bin", "size": "1M", "tests": WSAT, "round": "2", "qd-max": "64",
        "quick": None, "time": "30", "jobs": "3",
    }  # fmt: skip
    recorded = plan(loadgen, argv, directory)["parameters"]
    assert (recorded["round_s"], recorded["qd_max"], recorded["quick"]) == (2, 64, True)
    assert (recorded["time_s"], recorded["jobs"]) == (30, 3)
    # Not a run's line, one shlex cannot split, an ambiguous prefix (--re: --repeat, ...).
    for line in ("loadgen upload --url x d.json", "loadgen run --round '1", "loadgen run --re 2"):
        assert reproduce.given_options(line) == {}
