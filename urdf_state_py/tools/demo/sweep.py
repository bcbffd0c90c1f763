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
A joint-state source for demos: sweeps every active joint of a model within its limits.

``python -m urdf_state_py.tools.demo.sweep [--model PATH] [--xacro-arg n:=v] [--rate HZ]``

:class:`JointSweeper` publishes ``sensor_msgs/JointState`` on ``joint_states``
(default 50 Hz), stamped with the node clock, for every *active* variable of
the model; how each one moves is :class:`~urdf_state_py.tools.demo.sweep_plan.SweepPlan`'s
business (ROS-free, in :mod:`urdf_state_py.tools.demo.sweep_plan`).

The model comes from ``--model`` (a URDF or xacro file) or, without it, from
the ``robot_description`` topic (transient local, as robot_state_publisher
publishes it).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import sys

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.utilities import remove_ros_args
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers import load_model
from urdf_state_py.node.process.loopback import ensure_loopback
from urdf_state_py.node.process.spin import spin_until_shutdown

from .sweep_plan import SweepPlan
from ..xacro_args import load_model_file_with_args

__all__ = ['JointSweeper', 'main']


class JointSweeper(Node):
    """
    Publishes a sweeping JointState for every active variable of a model.

    Parameters: ``rate`` (Hz, 50.0), ``sweep_frequency`` (Hz of one full
    sweep, 0.2), ``amplitude`` (fraction of each joint's half range, 0.9).
    ``model``: a model object, or None to wait for ``robot_description``.
    ``topics``: where to publish; the k-th topic's sweep runs ``k`` seconds ahead,
    so that the robots of a fleet do not move as one.
    """

    def __init__(self, model: Model | None = None, *, node_name: str = 'joint_sweeper',
                 rate: float | None = None, sweep_frequency: float | None = None,
                 amplitude: float | None = None, topics: Sequence[str] = ('joint_states',),
                 **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self.rate = float(self.declare_parameter(
            'rate', 50.0 if rate is None else float(rate)).value)
        self.sweep_frequency = float(self.declare_parameter(
            'sweep_frequency', 0.2 if sweep_frequency is None else float(sweep_frequency)).value)
        self.amplitude = float(self.declare_parameter(
            'amplitude', 0.9 if amplitude is None else float(amplitude)).value)
        if self.rate <= 0.0:
            raise ValueError(f'rate must be > 0, got {self.rate}')
        self.plan: SweepPlan | None = None
        self.published = 0
        self._t0 = self.get_clock().now()
        self._pubs = [self.create_publisher(JointState, topic, 10) for topic in topics]
        if model is not None:
            self.set_model(model)
        else:
            qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
            self.create_subscription(String, 'robot_description', self._on_description, qos)
            self.get_logger().info('waiting for the robot_description topic')
        self._timer = self.create_timer(1.0 / self.rate, self._tick)

    def set_model(self, model: Model) -> None:
        """Sweep ``model`` from now on (the given one, or the latest on ``robot_description``)."""
        self.plan = SweepPlan(model, frequency=self.sweep_frequency, amplitude=self.amplitude)
        self.get_logger().info(
            f"sweeping {len(self.plan.names)} variables of robot '{model.name}' "
            f'at {self.rate:g} Hz')

    def _on_description(self, msg: String) -> None:
        try:
            model = load_model(msg.data)
        except Exception as exc:  # a bad description is logged, not fatal
            self.get_logger().error(f'cannot parse robot_description: {exc}')
            return
        self.set_model(model)

    def _tick(self) -> None:
        if self.plan is None:
            return
        now = self.get_clock().now()
        t = (now - self._t0).nanoseconds * 1e-9
        for ahead, pub in enumerate(self._pubs):
            msg = JointState()
            msg.header.stamp = now.to_msg()
            msg.name = list(self.plan.names)
            msg.position = self.plan.positions(t + ahead)
            pub.publish(msg)
        self.published += 1


def build_parser() -> argparse.ArgumentParser:
    """Return the command line of :func:`main` (ROS arguments are removed before it parses)."""
    p = argparse.ArgumentParser(prog='python -m urdf_state_py.tools.demo.sweep',
                                description='Publish sweeping joint states for a robot model.')
    p.add_argument('--model',
                   help='URDF or xacro file (default: read the robot_description topic)')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument for --model (repeatable)')
    p.add_argument('--rate', type=float, default=None, help='publish rate in Hz (default 50)')
    p.add_argument('--sweep-frequency', type=float, default=None,
                   help='full sweeps per second (default 0.2)')
    p.add_argument('--amplitude', type=float, default=None,
                   help='fraction of each joint range to sweep (default 0.9)')
    p.add_argument('--namespace', action='append', default=[], metavar='NS',
                   help='publish on NS/joint_states (repeatable; default: joint_states)')
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """
    Run ``python -m urdf_state_py.tools.demo.sweep``.

    Returns 2 when ``--model`` cannot be loaded.
    """
    raw = list(sys.argv if argv is None else ['sweep', *argv])
    args = build_parser().parse_args(remove_ros_args(raw)[1:])
    model = None
    if args.model:
        try:
            model = load_model_file_with_args(args.model, args.xacro_arg)
        except Exception as exc:  # shown without a traceback
            print(f'sweep: cannot load {args.model}: {exc}', file=sys.stderr)
            return 2
    ensure_loopback()
    spin_until_shutdown(lambda: JointSweeper(model, rate=args.rate,
                                             sweep_frequency=args.sweep_frequency,
                                             amplitude=args.amplitude,
                                             topics=[f"{ns.rstrip('/')}/joint_states"
                                                     for ns in args.namespace]
                                             or ['joint_states']),
                        args=raw)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
