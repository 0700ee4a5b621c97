"""The libFuzzer harness tests/fuzz/fuzz_core.c (see tests/fuzz/README.md).

Always: the harness is built with clang under AddressSanitizer and
UndefinedBehaviorSanitizer and replays the checked-in corpus and every crash
reproducer in tests/fuzz/regressions/; the corpus is what its generator makes.

When CI or SKITGUBBE_FUZZ_SECONDS is set: the fuzzer also runs for a bounded
time (SKITGUBBE_FUZZ_SECONDS, 90 in CI when it is not set; 0 skips the run)
from a copy of the corpus, and fails on any crash, leak or slow input; the
libFuzzer summary (executions, executions per second) is printed. A machine
without clang (or without its libFuzzer runtime) skips these tests, except in
CI, where that is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe import _core

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "_core"
FUZZ = ROOT / "tests" / "fuzz"
CORPUS = FUZZ / "corpus"
REGRESSIONS = FUZZ / "regressions"
SOURCES = sorted(str(p) for p in CORE.glob("*.c"))
FLAGS = [
    "-std=c99",
    "-g",
    "-O1",
    "-fno-omit-frame-pointer",
    "-fsanitize=fuzzer,address,undefined",
    "-fno-sanitize-recover=all",
    f"-I{CORE}",
]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="libFuzzer needs clang on POSIX")


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: CI must build and run the fuzzer")
    pytest.skip(f"{reason} on this machine")


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    clang = os.environ.get("CLANG") or shutil.which("clang")
    if clang is None:
        unavailable("no clang")
    assert clang is not None
    exe = tmp_path_factory.mktemp("fuzz") / "fuzz_core"
    build = run(
        [clang, *FLAGS, *SOURCES, str(FUZZ / "fuzz_core.c"), "-o", str(exe), "-lm"],
        timeout=600,
    )
    if build.returncode != 0 and "fuzzer" in build.stderr and "fuzz_core.c" not in build.stderr:
        unavailable(f"clang cannot link libFuzzer ({build.stderr.strip()[-200:]})")
    assert build.returncode == 0, build.stderr
    return exe


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["ASAN_OPTIONS"] = "detect_leaks=1"
    e["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    return e


def inputs(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))


@pytest.mark.slow
def test_the_corpus_and_every_crash_reproducer_replay_cleanly(fuzzer: Path) -> None:
    files = inputs(CORPUS) + inputs(REGRESSIONS)
    assert len(inputs(CORPUS)) >= 100 and inputs(REGRESSIONS)
    done = run([str(fuzzer), *map(str, files)], env=env(), timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stderr.count("Executed ") == len(files), done.stderr[-2000:]


@pytest.mark.slow
def test_the_corpus_is_what_its_generator_makes(tmp_path: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang")
    if cc is None:
        unavailable("no C compiler")
    assert cc is not None
    exe = tmp_path / "make_corpus"
    build = run(
        [
            cc,
            "-std=c99",
            "-O1",
            f"-I{CORE}",
            *SOURCES,
            str(FUZZ / "make_corpus.c"),
            "-o",
            str(exe),
            "-lm",
        ]
    )
    assert build.returncode == 0, build.stderr
    out = tmp_path / "corpus"
    out.mkdir()
    assert run([str(exe), str(out)]).returncode == 0
    made = {p.name: p.read_bytes() for p in inputs(out)}
    kept = {p.name: p.read_bytes() for p in inputs(CORPUS)}
    assert made == kept, "regenerate tests/fuzz/corpus (tests/fuzz/README.md)"


# Reproducers of the view kind whose view is sound: what failed was the check refusing
# the state that play led to from it (see tests/fuzz/README.md).
SOUND_VIEWS = {"view-play-number-wraps"}


def test_the_damaged_views_among_the_regressions_are_refused() -> None:
    # An input of the view kind is an odd first byte, then the state's bytes (zero-padded).
    size = len(sg.Game.new(seed=1).observation(0).core_view)
    views = {p.name: p.read_bytes() for p in inputs(REGRESSIONS) if p.read_bytes()[0] % 2}
    assert len(views) > len(SOUND_VIEWS) and set(views) >= SOUND_VIEWS
    for name, data in views.items():
        view = (data[1 : 1 + size] + bytes(size))[:size]
        if name in SOUND_VIEWS:
            assert _core.view_check(view) == 0, name
            _core.pimc(view, 2, 1, 1, 50, 1)
        else:
            assert _core.view_check(view) != 0, name


def fuzz_seconds() -> int:
    raw = os.environ.get("SKITGUBBE_FUZZ_SECONDS")
    if raw is None:
        return 90 if os.environ.get("CI") else 0
    return int(raw)


def test_fuzzing_for_a_while_finds_nothing(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    seconds = fuzz_seconds()
    if seconds <= 0:
        pytest.skip("set SKITGUBBE_FUZZ_SECONDS (or CI) to fuzz")
    fuzzer: Path = request.getfixturevalue("fuzzer")  # built only when it will fuzz
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    done = run(
        [
            str(fuzzer),
            f"-max_total_time={seconds}",
            "-timeout=10",
            "-rss_limit_mb=2048",
            "-max_len=1024",
            "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/",
            str(corpus),
        ],
        env=env(),
        timeout=seconds + 300,
    )
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", done.stderr, re.MULTILINE))
    summary = (
        f"fuzz_core: {seconds} s, {stats.get('number_of_executed_units', '?')} executions, "
        f"{stats.get('average_exec_per_sec', '?')} exec/s, "
        f"{stats.get('new_units_added', '?')} new inputs"
    )
    print(summary)
    found = sorted(artifacts.iterdir())
    if done.returncode == 0 and not found:
        return
    report = [line for line in done.stderr.splitlines() if re.search(WHAT_WENT_WRONG, line)]
    reproducers = "\n".join(f"{p.name}: {p.read_bytes().hex()}" for p in found)
    pytest.fail(
        f"{summary}\n" + "\n".join(report[:40]) + f"\nreproducers (hex):\n{reproducers}\n"
        "(tests/fuzz/README.md says how to add one to tests/fuzz/regressions/)\n"
        + done.stderr[-3000:]
    )


# The lines of a libFuzzer log that say what failed.
WHAT_WENT_WRONG = r"ERROR|SUMMARY|assertion failed|runtime error|deadly|timeout|leak|out-of-memory"
