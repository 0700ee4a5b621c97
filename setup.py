"""Build the C core and its Cython binding into skitgubbe._engine.

Everything else lives in pyproject.toml; this file exists because the
extension's sources span two trees (src/_core in C, src/skitgubbe in Cython).
"""

from __future__ import annotations

import os
import sys
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup

core_sources = sorted(glob("src/_core/*.c"))
# MSVC (Windows) takes setuptools' own flags (/O2 /W3 ...): the core is the C99 it
# supports, and these flags are GCC's and Clang's.
compile_args: list[str] = []
if sys.platform != "win32":
    compile_args = ["-std=c99", "-O3", "-Wall", "-Wextra"]
    if os.environ.get("SKITGUBBE_NATIVE"):  # for this machine's processor only
        compile_args.append("-march=native")

extension = Extension(
    "skitgubbe._engine",
    sources=["src/skitgubbe/_engine.pyx", *core_sources],
    include_dirs=["src/_core"],
    extra_compile_args=compile_args,
    libraries=[] if sys.platform == "win32" else ["m"],
    # A change to any of these rebuilds the extension: the core's headers, and the
    # binding's declarations and include files (_engine.pyx includes src/skitgubbe/_binding/).
    depends=sorted(
        glob("src/_core/*.h")
        + glob("src/skitgubbe/include/*.h")
        + ["src/skitgubbe/_engine.pxd"]
        + glob("src/skitgubbe/_binding/*.pxi")
    ),
)

setup(
    ext_modules=cythonize(
        [extension],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "embedsignature": True,
            "auto_pickle": False,
            "autotestdict": False,
        },
    ),
)
