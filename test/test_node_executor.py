"""main()'s executor choice: EventsExecutor where rclpy has it, the default otherwise."""

import importlib.util

import pytest
import rclpy
from rclpy.executors import SingleThreadedExecutor

from urdf_state_py.node import make_executor

HAS_EVENTS = importlib.util.find_spec('rclpy.experimental') is not None and hasattr(
    importlib.import_module('rclpy.experimental'), 'EventsExecutor')


@pytest.fixture
def context():
    rclpy.init()
    yield
    rclpy.try_shutdown()


def test_auto_picks_events_executor_where_it_exists(context):
    executor = make_executor('auto')
    expected = 'EventsExecutor' if HAS_EVENTS else 'SingleThreadedExecutor'
    assert type(executor).__name__ == expected


def test_single_is_the_default_executor(context, monkeypatch):
    monkeypatch.setenv('URDF_STATE_EXECUTOR', 'single')
    assert type(make_executor()) is SingleThreadedExecutor


def test_unknown_kind_is_rejected_by_name(context):
    with pytest.raises(ValueError, match="'fast'"):
        make_executor('fast')
