"""Session-wide safety net: keep all DDS traffic of the test run on loopback.

This module is imported by pytest before any test module, hence before
anything imports rclpy, so running ``pytest`` directly (outside ``./dev.sh``)
is safe as well.
"""
import os
import random
from pathlib import Path

import pytest

os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
if os.environ.get('ROS_DISTRO') == 'humble':
    # Humble predates ROS_AUTOMATIC_DISCOVERY_RANGE.
    os.environ['ROS_LOCALHOST_ONLY'] = '1'
if not os.environ.get('ROS_DOMAIN_ID'):
    # Own domain so parallel runs on this host do not see each other.
    os.environ['ROS_DOMAIN_ID'] = str(random.randint(1, 100))

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='session')
def repo_root():
    """Path of the repository (= ROS package) root."""
    return REPO_ROOT


@pytest.fixture(scope='session')
def robots_dir():
    """Path to the shared robot corpus (``../shared/robots`` next to the repo).

    Override with the environment variable ``URDF_STATE_ROBOTS``.
    """
    override = os.environ.get('URDF_STATE_ROBOTS')
    path = Path(override) if override else (
        Path(__file__).resolve().parents[2] / 'shared' / 'robots')
    if not path.is_dir():
        pytest.skip(f'robot corpus not found at {path} '
                    '(set URDF_STATE_ROBOTS to its location)')
    return path


@pytest.fixture(scope='module')
def probe():
    """The test side of the node tests (see ``test_node_harness.Probe``), one per module.

    The harness is imported here, not at the top, so that the ROS-free test
    modules stay importable (and runnable) without rclpy; without it, the
    tests using this fixture are skipped.
    """
    from test_node_harness import Probe
    p = Probe()
    yield p
    p.close()
