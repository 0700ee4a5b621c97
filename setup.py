"""Build the C core and its Cython binding into skitgubbe._core.

Everything else lives in pyproject.toml; this file exists because the
extension's sources span two trees (src/_core in C, src/skitgubbe in Cython),
and because the core's public headers (src/_core/include) ship inside the
package (skitgubbe/include, copied by build_py) for users' C policies.
"""

from __future__ import annotations

import os
import sys
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

# The core's public headers: in src/_core/include for the core and the binding, and
# copied into the built package (skitgubbe/include) for skitgubbe.get_include().
public_headers = sorted(glob("src/_core/include/*.h"))


class BuildPy(build_py):
    """build_py, and the core's public headers copied into skitgubbe/include/."""

    def run(self) -> None:
        super().run()
        target = os.path.join(self.build_lib, "skitgubbe", "include")
        self.mkpath(target)
        for header in public_headers:
            self.copy_file(header, os.path.join(target, os.path.basename(header)))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        target = os.path.join(self.build_lib, "skitgubbe", "include")
        headers = [os.path.join(target, os.path.basename(h)) for h in public_headers]
        return [*super().get_outputs(include_bytecode), *headers]


core_sources = sorted(glob("src/_core/*.c"))
# MSVC (Windows) takes setuptools' own flags (/O2 /W3 ...): the core is the C99 it
# supports, and these flags are GCC's and Clang's.
compile_args: list[str] = []
if sys.platform != "win32":
    compile_args = ["-std=c99", "-O3", "-Wall", "-Wextra"]
    if os.environ.get("SKITGUBBE_NATIVE"):  # for this machine's processor only
        compile_args.append("-march=native")

extension = Extension(
    "skitgubbe._core",
    sources=["src/skitgubbe/_core.pyx", *core_sources],
    include_dirs=["src/_core"],
    extra_compile_args=compile_args,
    libraries=[] if sys.platform == "win32" else ["m"],
    # A change to any of these rebuilds the extension: the core's headers, and the
    # binding's declarations and include files (_core.pyx includes src/skitgubbe/_binding/).
    depends=sorted(
        glob("src/_core/*.h")
        + public_headers
        + ["src/skitgubbe/_core.pxd"]
        + glob("src/skitgubbe/_binding/*.pxi")
    ),
)

setup(
    cmdclass={"build_py": BuildPy},
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
