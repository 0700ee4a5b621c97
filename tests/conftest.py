"""Fixtures for the browser tests (tests/browser_support.py has their helpers): Debian's
Chromium through Playwright, and a real ``skitgubbe serve`` on 127.0.0.1. Playwright is
imported only by a test that asks for ``browser``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import free_port, start_server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium: CI must run the browser tests (apt-get install chromium)")
        pytest.skip("no chromium on this machine")
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    process = start_server(tmp_path / "server.db", port)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(15)
    finally:
        process.kill()
