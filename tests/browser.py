"""A real browser for the tests of the web pages: headless Chromium driven by Selenium.

Chromium and its driver come from the distribution's packages (``make test`` installs them when
missing); Selenium is told where they are, so it never tries to download a browser. Every page
test saves what the browser showed under ``build/screenshots/`` so that a person can look at it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

SCREENSHOTS = Path(__file__).resolve().parents[1] / "build" / "screenshots"

# what a sandboxed machine with no network and no display needs: no first-run dialogs, no
# background connections (they are refused here, many at a time), no GPU, no sandbox as root
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-quic", "--hide-scrollbars", "--force-device-scale-factor=1")


def chromium_paths() -> tuple[str, str]:
    """The distribution's chromium and chromedriver; a clear failure when they are missing."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        raise RuntimeError("chromium and chromedriver are needed for the page tests: run "
                           "`make test` (it installs them) or apt-get install chromium "
                           "chromium-driver")
    return binary, driver


def open_browser(profile: Path, width: int = 1920, height: int = 1080,
                 flags: tuple[str, ...] = ()) -> WebDriver:
    """``flags``: more of Chromium's, for one test."""
    binary, driver = chromium_paths()
    opts = Options()
    opts.binary_location = binary
    for flag in (*FLAGS, *flags):
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.add_argument(f"--window-size={width},{height}")
    browser = webdriver.Chrome(options=opts, service=Service(executable_path=driver))
    browser.set_page_load_timeout(20)
    # the window's size includes the browser's own frame; the page must get the whole size
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    return browser


def screenshot(browser: WebDriver, name: str) -> Path:
    """Save what the browser shows as ``build/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    return path


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A fresh headless Chromium at 1920x1080 (an OBS browser source's size)."""
    b = open_browser(tmp_path / "chromium-profile")
    try:
        yield b
    finally:
        b.quit()
