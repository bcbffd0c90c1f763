"""Under a flood of JointStates the node stays responsive and bounded (generous bounds).

The node runs through its real entry point in its own process, three driver
processes publish ~21,000 JointStates per second together for a few seconds
(as many as this machine lets them), and GetParameters is asked all along.
Before the hot path, with the EventsExecutor, answers climbed to 10 s timeouts
and RSS grew without bound; the limits here are loose on purpose (a loaded CI
machine), and speed itself is the benchmark's business.
"""
import pytest

pytest.importorskip('rclpy')
pytest.importorskip('psutil')

from robot_files import H1_2  # noqa: E402
from urdf_state_py.tools.bench.common import loopback_env  # noqa: E402
from urdf_state_py.tools.bench.flood import run_flood  # noqa: E402


@pytest.mark.parametrize('executor', ['auto', 'single'])
def test_parameters_answer_and_tf_flows_during_a_flood(executor, tmp_path):
    urdf = H1_2.read_text()
    result = run_flood(urdf, executor, loopback_env(), tmp_path, seconds=4.0, publishers=3,
                       rate=21000.0, after=2.0, timeout=5.0, tag=f'flood_{executor}')
    assert result['asked'] >= 3, result
    assert result['timeouts'] == 0, result
    assert result['answer_max_s'] < 3.0, result
    assert result['out_hz'] > 0, result                  # /tf kept flowing
    assert result['recovery_s'] is not None and result['recovery_s'] < 3.0, result
    assert result['rss_max_mb'] - result['rss_start_mb'] < 60.0, result
