# Copyright 2026 urdf_state_py maintainers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The test side of the 3D view: headless Chromium, the view server as a process, FK to compare.

* :func:`chromium_or_skip`: Debian's chromium + chromium-driver driven by
  selenium (the driver's path given, so selenium-manager never runs: it
  would download a driver). Missing, the browser tests skip with the reason,
  or fail when ``URDF_STATE_REQUIRE_BROWSER=1`` (``.ci/run`` sets it).
* :class:`Browser`: one page; ``wait(js)`` polls a JavaScript expression
  until true (deadlines generous, never a fixed sleep); ``requests()`` is
  every URL the browser asked for (DevTools ``Network.requestWillBeSent``
  from the performance log).
* :class:`ViewProcess`: ``python -m urdf_state_py view --port 0 ...`` with
  the test's loopback environment; its URL read from its first line.
"""
from __future__ import annotations

import io
import os
from pathlib import Path
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
# CI: 2 loaded cores, software WebGL (a COLLADA robot took minutes with the machine at load 10);
# a verdict never depends on speed, only a hang fails
DEADLINE = 180.0
BROWSER_FLAGS = ('--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                 '--disable-background-networking', '--disable-component-update',
                 '--disable-sync', '--disable-default-apps', '--use-gl=angle',
                 '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
                 '--window-size=960,600')


def _executable(*names: str) -> str | None:
    return next((path for path in map(shutil.which, names) if path), None)


def chromium_or_skip() -> tuple[str, str]:
    """(chromium, chromedriver) paths; skip (or fail under .ci/run) when they are not here."""
    try:
        import selenium  # noqa: F401 - only whether it is installed
    except ImportError:
        missing = 'selenium is not installed (./dev.sh setup installs it)'
    else:
        browser = _executable('chromium', 'chromium-browser')
        driver = _executable('chromedriver')
        if browser and driver:
            return browser, driver
        missing = 'no chromium/chromedriver on PATH (apt-get install chromium chromium-driver)'
    if os.environ.get('URDF_STATE_REQUIRE_BROWSER') == '1':
        pytest.fail(f'URDF_STATE_REQUIRE_BROWSER=1 but {missing}')
    pytest.skip(missing)


class Browser:
    """Headless Chromium on one page, with every request it makes recorded."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        browser, driver = chromium_or_skip()
        self._profile = tempfile.mkdtemp(prefix='view_chromium_')
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for flag in BROWSER_FLAGS:
            options.add_argument(flag)
        options.add_argument(f'--user-data-dir={self._profile}')
        options.set_capability('goog:loggingPrefs', {'performance': 'ALL', 'browser': 'ALL'})
        os.environ['SE_AVOID_STATS'] = 'true'
        self.driver = webdriver.Chrome(service=Service(driver), options=options)
        self.driver.set_script_timeout(30)
        self._requests: list[str] = []

    def open(self, url: str) -> None:  # noqa: A003 - a method: the builtin stays reachable
        self.driver.get(url)

    def js(self, script: str):
        return self.driver.execute_script(script)

    def poll(self, script: str):
        """:meth:`js`, or None while the page is too busy to answer (parsing meshes)."""
        from selenium.common.exceptions import TimeoutException
        try:
            return self.js(script)
        except TimeoutException:
            return None

    def wait(self, expression: str, timeout: float = DEADLINE, what: str = ''):
        """
        Poll ``return <expression>`` until truthy.

        Fails naming ``what`` and the page's status.
        """
        deadline = time.monotonic() + timeout
        while True:
            value = self.poll(f'return {expression};')
            if value:
                return value
            if time.monotonic() > deadline:
                status = self.poll('return window.urdfView ? window.urdfView.status() : null;')
                pytest.fail(f'timed out after {timeout} s waiting for {what or expression}; '
                            f'page status: {status}')
            time.sleep(0.1)

    def requests(self) -> list[str]:
        """Every URL requested so far (the performance log, read incrementally)."""
        import json
        for entry in self.driver.get_log('performance'):
            message = json.loads(entry['message'])['message']
            if message.get('method') == 'Network.requestWillBeSent':
                self._requests.append(message['params']['request']['url'])
        return list(self._requests)

    def screenshot(self) -> bytes:
        return self.driver.get_screenshot_as_png()

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self._profile, ignore_errors=True)


class ViewProcess:
    """``python -m urdf_state_py view`` as a user runs it; ``log`` holds its stderr."""

    def __init__(self, *args: str, cwd: Path | None = None) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED='1')
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'urdf_state_py', 'view', '--port', '0', *args],
            cwd=cwd or REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._err: list[str] = []
        self._out: list[str] = []
        for stream, sink in ((self.proc.stdout, self._out), (self.proc.stderr, self._err)):
            threading.Thread(target=lambda s=stream, k=sink: k.extend(iter(s.readline, '')),
                             daemon=True).start()
        self.url = self._wait_url()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for line in list(self._out):
                found = re.search(r'open (http://\S+/)', line)
                if found:
                    return found.group(1)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.proc.kill()
        pytest.fail(f'the view printed no URL; stderr: {"".join(self._err)[-2000:]}')

    @property
    def log(self) -> str:
        return ''.join(self._err)

    def stop(self) -> int:
        """Ctrl-C, as a user stops it; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def rendered_pose(elements) -> np.ndarray:
    """Return a 4x4 matrix from three.js's column-major ``matrixWorld.elements``."""
    return np.array(elements, float).reshape(4, 4).T


def pixel_spread(png: bytes) -> float:
    """Return the standard deviation of the screenshot's grey levels (0 for a blank page)."""
    from PIL import Image
    grey = np.asarray(Image.open(io.BytesIO(png)).convert('L'), float)
    return float(grey.std())


def screenshot(browser: Browser, name: str) -> None:
    """Not blank; written to docs/images/ when URDF_STATE_SCREENSHOT is set (the README's)."""
    png = browser.screenshot()
    assert pixel_spread(png) > 8.0, 'the screenshot is (almost) uniform: nothing drawn'
    if os.environ.get('URDF_STATE_SCREENSHOT'):
        target = REPO / 'docs' / 'images' / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)


def start_demo(*args: str) -> tuple[subprocess.Popen, str]:
    """
    Start ``python -m urdf_state_py.tools.demo --port 0 ...`` on a domain of its own.

    A node of other tests may still publish on this one. Returns the process and the URL
    it printed.
    """
    domain = str(int(os.environ['ROS_DOMAIN_ID']) % 100 + 101)
    demo = subprocess.Popen([sys.executable, '-m', 'urdf_state_py.tools.demo', *args, '--port',
                             '0', '--duration', '600'], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, ROS_DOMAIN_ID=domain))
    url = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline and demo.poll() is None:
        found = re.search(r'open (http://127\.0\.0\.1:\d+/)', demo.stdout.readline())
        url = found.group(1) if found else None
    if url is None:
        demo.kill()
        pytest.fail(f'the demo printed no URL: {demo.communicate()[0][-2000:]}')
    return demo, url
