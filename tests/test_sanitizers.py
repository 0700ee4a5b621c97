"""The C core under AddressSanitizer and UndefinedBehaviorSanitizer, and strict C99.

tests/c/core_check.c plays thousands of random games through the C API and
checks its invariants, and tampers with every byte of real states: each must be
refused by sg_state_check (naming a field) or be a state the whole API handles
(issue 23: a tampered pickle wrote past the heap), the endgame solver included.
tests/c/solve_check.c checks the solver against its brute force. Here both are
compiled with the sanitizers (any report aborts the run) and the core is compiled as pedantic C99
with every warning an error. A machine without a C compiler skips these tests, except in CI (the
CI variable is set), where that is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "_core"
SOURCES = sorted(str(p) for p in CORE.glob("*.c"))
STRICT = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror"]


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        if os.environ.get("CI"):
            pytest.fail("no C compiler: CI must run the sanitizer tests")
        pytest.skip("no C compiler on this machine")
    return cc


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="sanitizers need gcc or clang")
def test_core_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path: Path) -> None:
    exe = tmp_path / "core_check"
    build = run(
        [
            compiler(),
            *STRICT,
            "-O1",
            "-g",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            f"-I{CORE}",
            *SOURCES,
            str(ROOT / "tests" / "c" / "core_check.c"),
            "-o",
            str(exe),
            "-lm",
        ]
    )
    assert build.returncode == 0, build.stderr
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "abort_on_error=0:halt_on_error=1:detect_leaks=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    result = run([str(exe), "2000", "7"], env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "runtime error" not in result.stderr and "Sanitizer" not in result.stderr
    assert result.stdout.startswith("core_check: ok")
    # The tampering ran: states were refused, and states that passed were played.
    tampered = re.search(r"(\d+) tampered states refused, (\d+) passed", result.stdout)
    assert tampered and int(tampered[1]) > 0 and int(tampered[2]) > 0, result.stdout


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="sanitizers need gcc or clang")
def test_the_solver_and_its_brute_force_are_clean_under_the_sanitizers(tmp_path: Path) -> None:
    exe = tmp_path / "solve_check"
    build = run(
        [
            compiler(),
            *STRICT,
            "-O1",
            "-g",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            f"-I{CORE}",
            *SOURCES,
            str(ROOT / "tests" / "c" / "solve_check.c"),
            "-o",
            str(exe),
            "-lm",
        ]
    )
    assert build.returncode == 0, build.stderr
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "abort_on_error=0:halt_on_error=1:detect_leaks=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    result = run([str(exe), "150", "9"], env=env, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "runtime error" not in result.stderr and "Sanitizer" not in result.stderr
    assert result.stdout.startswith("solve_check: ok, 150 positions agree")


@pytest.mark.slow
def test_core_compiles_as_strict_c99_without_warnings(tmp_path: Path) -> None:
    for source in SOURCES:
        build = run([compiler(), *STRICT, "-O2", "-c", source, "-o", str(tmp_path / "x.o")])
        assert build.returncode == 0, f"{source}:\n{build.stderr}"


def test_the_public_header_needs_nothing_but_itself(tmp_path: Path) -> None:
    probe = tmp_path / "probe.c"
    probe.write_text('#include "skitgubbe.h"\nint main(void) { return SG_NCARDS != 52; }\n')
    build = run(
        [compiler(), *STRICT, f"-I{CORE}", str(probe), "-o", str(tmp_path / "probe"), "-lm"]
    )
    assert build.returncode == 0, build.stderr
    assert run([str(tmp_path / "probe")]).returncode == 0


def test_every_enum_constant_is_named_after_its_enum(tmp_path: Path) -> None:
    # The naming scheme of the public header: enum sg_<type> { SG_<TYPE>_<VALUE>, ... },
    # checked on the preprocessed header so that generated enums count too.
    probe = tmp_path / "probe.c"
    probe.write_text('#include "skitgubbe.h"\n')
    done = run([compiler(), "-E", "-P", f"-I{CORE}", str(probe)])
    assert done.returncode == 0, done.stderr
    enums = re.findall(r"enum\s+sg_(\w+)\s*\{([^}]*)\}", done.stdout)
    assert len(enums) >= 10
    for tag, body in enums:
        prefix = f"SG_{tag.upper()}_"
        names = re.findall(r"([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", body.strip())
        assert names, tag
        for name in names:
            assert name.startswith(prefix), f"enum sg_{tag}: {name} should start with {prefix}"
