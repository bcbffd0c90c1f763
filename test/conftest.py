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
Session-wide safety net: keep all DDS traffic of the test run on loopback.

This module is imported by pytest before any test module, hence before
anything imports rclpy, so running ``pytest`` directly (outside ``./dev.sh``)
is safe as well.
"""
import importlib.metadata
import os
import random
import sys

import pytest
from robot_files import CORPUS, HAS_CORPUS, REPO_ROOT

# The benchmark (bench/, not installed) for the tests that drive it, also in their child
# processes; after everything else, so that it shadows nothing (./dev.sh sets it too).
BENCH = str(REPO_ROOT / 'bench')
if BENCH not in sys.path:
    sys.path.append(BENCH)
if BENCH not in os.environ.get('PYTHONPATH', '').split(os.pathsep):
    os.environ['PYTHONPATH'] = os.pathsep.join(filter(None, [os.environ.get('PYTHONPATH'), BENCH]))

os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
if os.environ.get('ROS_DISTRO') == 'humble':
    # Humble predates ROS_AUTOMATIC_DISCOVERY_RANGE.
    os.environ['ROS_LOCALHOST_ONLY'] = '1'
if not os.environ.get('ROS_DOMAIN_ID'):
    # Own domain so parallel runs on this host do not see each other.
    os.environ['ROS_DOMAIN_ID'] = str(random.randint(1, 100))


def pytest_configure(config):
    """
    Register the ``ros`` marker.

    ``pytest -m "not ros"`` selects the tests that need no ROS
    (what CI runs on Python 3.10 with Ubuntu 22.04's numpy, where no rclpy is installed).
    """
    config.addinivalue_line('markers', 'ros: needs rclpy (and DDS, messages or launch) to run')
    config.addinivalue_line('markers', 'browser: drives headless Chromium (given to every test '
                                       'that uses a ``browser`` fixture)')
    # ament_lint's pytest plugin registers these in a ROS 2 distro; not in the wheels venv
    for marker in ('linter', 'flake8', 'pep257', 'copyright'):
        config.addinivalue_line('markers', f'{marker}: an ament linter test')


def pytest_collection_modifyitems(items):
    """Mark ``browser`` the tests that use a ``browser`` fixture (.ci/run runs them once)."""
    for item in items:
        if 'browser' in getattr(item, 'fixturenames', ()):
            item.add_marker(pytest.mark.browser)


def pytest_report_header(config):
    """Which ROS 2 the run uses and whether the corpus is there (its tests skip without it)."""
    try:
        rclpy = f"rclpy {importlib.metadata.version('ros-rclpy')} (PyPI wheels)"
    except importlib.metadata.PackageNotFoundError:
        rclpy = 'rclpy from a sourced distro' if os.environ.get('ROS_DISTRO') else 'no rclpy'
    distro = os.environ.get('ROS_DISTRO') or os.environ.get('URDF_STATE_DISTRO') or '?'
    corpus = f'present at {CORPUS}' if HAS_CORPUS else \
        f'absent ({CORPUS}): the tests that need it skip, the fixtures in test/ still run'
    return [f'ROS 2 {distro}: {rclpy}, Python {sys.version.split()[0]}, '
            f'ROS_DOMAIN_ID={os.environ["ROS_DOMAIN_ID"]}',
            f'robot corpus: {corpus}']


@pytest.fixture(scope='session')
def repo_root():
    """Path of the repository (= ROS package) root."""
    return REPO_ROOT


@pytest.fixture(scope='module')
def probe():
    """
    Return the test side of the node tests (see ``node_harness.Probe``), one per module.

    The harness is imported here, not at the top, so that the ROS-free test
    modules stay importable (and runnable) without rclpy; without it, the
    tests using this fixture are skipped.
    """
    from node_harness import Probe
    p = Probe()
    yield p
    p.close()
