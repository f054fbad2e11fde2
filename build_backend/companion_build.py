"""The project's build backend: setuptools, run on a copy of the sources in a temporary folder.

setuptools writes ``companion.egg-info/`` into the folder it builds in (even when a front end only asks which
packages the build needs), and ``build/``, whose ``build/lib`` keeps files from earlier builds. Here every hook
that would write into the tree (``pip install .``, ``pip wheel .``, ``python -m build``, and the questions
``pip install -e .`` asks first) copies :data:`SOURCES` into a temporary folder and runs setuptools there, so the
checkout is left as it was and every wheel holds the sources as they are now. The editable wheel itself is built in
place, as it must be (it points at the checkout); setuptools writes nothing into the tree for it.

``pyproject.toml`` names this module (``[build-system] build-backend``, ``backend-path``); ``MANIFEST.in`` puts it
in the sdist, so that a wheel can be built from the sdist too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - hooks passed on unchanged
    build_editable,
    prepare_metadata_for_build_editable,
)

#: what a build reads: the project's metadata, the package and this backend (an sdist adds PKG-INFO and its
#: egg-info, which setuptools writes again in the copy)
SOURCES = ("pyproject.toml", "README.md", "MANIFEST.in", "companion", "build_backend")


@contextmanager
def _in_a_copy() -> Iterator[Path]:
    here = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="companion-build-") as tmp:
        copy = Path(tmp) / "src"
        copy.mkdir()
        for name in SOURCES:
            source = here / name
            if source.is_dir():
                shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif source.is_file():
                shutil.copy2(source, copy / name)
        os.chdir(copy)
        try:
            yield copy
        finally:
            os.chdir(here)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_directory = os.path.abspath(wheel_directory)
    metadata_directory = os.path.abspath(metadata_directory) if metadata_directory else None
    with _in_a_copy():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    sdist_directory = os.path.abspath(sdist_directory)
    with _in_a_copy():
        return _setuptools.build_sdist(sdist_directory, config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    metadata_directory = os.path.abspath(metadata_directory)
    with _in_a_copy():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def get_requires_for_build_wheel(config_settings=None):
    with _in_a_copy():
        return _setuptools.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    with _in_a_copy():
        return _setuptools.get_requires_for_build_sdist(config_settings)


def get_requires_for_build_editable(config_settings=None):
    with _in_a_copy():
        return _setuptools.get_requires_for_build_editable(config_settings)
