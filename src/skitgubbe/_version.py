"""The package's version (private module): one place, read by the build and the package.

Modules that print or send the version import it from here rather than from
the package root, which imports most of the package.

>>> import skitgubbe
>>> __version__ == skitgubbe.__version__
True
"""

__version__ = "0.1.0"
