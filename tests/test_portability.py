"""The wheels' other platforms, checked from this one.

The Windows wheels are built with MSVC and run where ``long`` has 32 bits; the
Linux tests never see either. Here the C core is compiled for 64-bit Windows
(LLP64, with the MinGW-w64 headers) with every warning an error, the bit scans'
MSVC branch is compiled as MSVC sees it (``_MSC_VER`` and no GCC builtins), the
bit scans' plain-C branch is checked against references, and the package is
imported with the POSIX-only modules missing, as on Windows.

These need clang (and, for the Windows build, Debian's ``mingw-w64-x86-64-dev``):
a machine without them skips, except in CI (the CI variable is set), where that
is a failure. ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "src" / "_core"
SOURCES = sorted(CORE.glob("*.c"))
STRICT = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror"]
MINGW_INCLUDE = Path("/usr/x86_64-w64-mingw32/include")


def need(what: str, found: object) -> None:
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing: CI must run the portability tests")
        pytest.skip(f"{what} is not on this machine")


def clang() -> str:
    path = shutil.which("clang")
    need("clang", path)
    assert path is not None
    return path


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_the_core_compiles_for_64_bit_windows_without_warnings(source: Path) -> None:
    """LLP64: a ``long`` where 64 bits were meant is a -Wconversion error here."""
    need(f"the MinGW-w64 headers ({MINGW_INCLUDE})", MINGW_INCLUDE.is_dir())
    build = run(
        [
            clang(),
            "--target=x86_64-w64-mingw32",
            *STRICT,
            "-fsyntax-only",
            "-isystem",
            str(MINGW_INCLUDE),
            f"-I{CORE}",
            str(source),
        ]
    )
    assert build.returncode == 0, f"{source.name}:\n{build.stderr}"


@pytest.mark.parametrize("target", ["x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc"])
def test_the_bit_scans_compile_as_msvc_sees_them(target: str, tmp_path: Path) -> None:
    """``-U__clang__`` leaves only what MSVC defines (``_MSC_VER``, ``_M_X64`` or
    ``_M_ARM64``), so bits.h takes its intrinsics branch; a stub C library stands
    in for the three headers that clang's ``<intrin.h>`` pulls from MSVC's."""
    crt = tmp_path / "crt"
    crt.mkdir()
    (crt / "stdlib.h").write_text("")
    (crt / "malloc.h").write_text("")
    (crt / "setjmp.h").write_text("typedef int jmp_buf[16];\n")
    probe = tmp_path / "probe.c"
    probe.write_text(
        '#include "bits.h"\n'
        "int probe(uint64_t x);\n"
        "int probe(uint64_t x) { return sg_popcount(x) + sg_lowest(x) + sg_highest(x); }\n"
    )
    base = [clang(), f"--target={target}", "-U__clang__", "-isystem", str(crt), f"-I{CORE}"]
    build = run([*base, *STRICT, "-fsyntax-only", str(probe)])
    assert build.returncode == 0, build.stderr
    expanded = run([*base, "-E", str(probe)])
    assert expanded.returncode == 0, expanded.stderr
    # The intrinsics branch (only bits.h calls them so), not the builtins' nor the plain C's.
    assert "_BitScanForward64(&index" in expanded.stdout


@pytest.mark.parametrize("flags", [[], ["-DSG_PORTABLE_BITS"]], ids=["builtins", "plain-c"])
def test_the_bit_scans_agree_with_references(flags: list[str], tmp_path: Path) -> None:
    exe = tmp_path / "bits_check"
    build = run(
        [
            clang(),
            *STRICT,
            "-O2",
            *flags,
            f"-I{CORE}",
            str(ROOT / "tests" / "c" / "bits_check.c"),
            "-o",
            str(exe),
        ]
    )
    assert build.returncode == 0, build.stderr
    result = run([str(exe)])
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "bits_check: ok"


POSIX_ONLY = ["resource", "fcntl", "pwd", "grp", "termios", "pty", "tty"]


def test_every_module_imports_without_the_posix_only_modules() -> None:
    """As on Windows: what needs POSIX is looked up when used, never at import."""
    code = (
        "import sys, pkgutil, importlib\n"
        f"for name in {POSIX_ONLY!r}:\n"
        "    sys.modules[name] = None  # import raises ImportError\n"
        "import skitgubbe\n"
        "names = [m.name for m in pkgutil.walk_packages(skitgubbe.__path__, 'skitgubbe.')]\n"
        "for name in names:\n"
        "    if name.endswith('__main__'):\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError as error:\n"
        "        if error.name in " + repr(POSIX_ONLY) + ":\n"
        "            raise\n"
        "        # an optional dependency (numpy, pyspiel, ...) not installed here\n"
        "print(len(names))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 30  # every module was found, not none
