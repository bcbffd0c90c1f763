"""A joint-state source for demos: sweeps every active joint of a model within its limits.

``python -m urdf_state_py.sweep [--model PATH] [--xacro-arg n:=v] [--rate HZ]``

:class:`JointSweeper` publishes ``sensor_msgs/JointState`` on ``joint_states``
(default 50 Hz), stamped with the node clock, for every *active* variable of
the model (mimic joints are left to the state publisher, as a real robot
driver would). Each variable follows a sinusoid with its own phase:

- bounded revolute/prismatic joints: around the middle of their limits, over
  ``amplitude`` (default 0.9) of the half range -- narrowed, when the joint
  drives mimic joints, to the values that keep those within their limits too;
- unbounded revolute (continuous) joints: +-pi; unbounded prismatic: +-0.5 m;
- planar joints (``j/x``, ``j/y``, ``j/theta``): a 0.3 m circle and +-pi yaw;
- floating joints (``j/trans_x`` .. ``j/rot_w``): +-0.2 m along each axis and
  a gentle +-0.3 rad roll/pitch/yaw wobble, published as a unit quaternion.

The model comes from ``--model`` (a URDF or xacro file) or, without it, from
the ``robot_description`` topic (transient local, as robot_state_publisher
publishes it). :class:`SweepPlan` holds the ROS-free part.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ['SweepPlan', 'SweepVariable', 'JointSweeper', 'main']

GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))   # spreads phases evenly
UNBOUNDED_REVOLUTE = math.pi
UNBOUNDED_PRISMATIC = 0.5
PLANAR_RADIUS = 0.3
FLOATING_TRANSLATION = 0.2
FLOATING_ANGLE = 0.3


@dataclass(frozen=True)
class SweepVariable:
    """value(t) = center + amplitude * sin(2*pi*frequency*t + phase)."""

    name: str
    center: float
    amplitude: float
    phase: float

    def value(self, t: float, frequency: float) -> float:
        return self.center + self.amplitude * math.sin(2.0 * math.pi * frequency * t + self.phase)


@dataclass(frozen=True)
class _Floating:
    """A floating joint: translation sinusoids and an rpy wobble turned into a quaternion."""

    prefix: str
    phase: float

    def values(self, t: float, frequency: float) -> list[float]:
        w = 2.0 * math.pi * frequency * t + self.phase
        tx = FLOATING_TRANSLATION * math.sin(w)
        ty = FLOATING_TRANSLATION * math.sin(w + 2.0 * math.pi / 3)
        tz = FLOATING_TRANSLATION * math.sin(w + 4.0 * math.pi / 3)
        roll = FLOATING_ANGLE * math.sin(w + 0.5)
        pitch = FLOATING_ANGLE * math.sin(w + 1.5)
        yaw = FLOATING_ANGLE * math.sin(w + 2.5)
        cr, sr = math.cos(roll / 2), math.sin(roll / 2)
        cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
        cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
        qx = sr * cp * cy - cr * sp * sy
        qy = cr * sp * cy + sr * cp * sy
        qz = cr * cp * sy - sr * sp * cy
        qw = cr * cp * cy + sr * sp * sy
        return [tx, ty, tz, qx, qy, qz, qw]


class SweepPlan:
    """Which variables to publish and how each one moves; no ROS involved.

    ``names`` are the active (non-mimic) variables of ``model`` in its
    topological order (MoveIt names for planar/floating joints);
    :meth:`positions` gives their values at time ``t`` (seconds).
    """

    def __init__(self, model, *, frequency: float = 0.2, amplitude: float = 0.9) -> None:
        if not 0.0 <= amplitude <= 1.0:
            raise ValueError(f'amplitude must be within [0, 1], got {amplitude}')
        self.frequency = float(frequency)
        self.names: list[str] = []
        self._parts: list[SweepVariable | _Floating] = []
        index = 0
        follower_bounds = _follower_bounds(model)
        for joint in model.joints:
            if not joint.is_movable or joint.is_mimic:
                continue
            phase = (index * GOLDEN_ANGLE) % (2.0 * math.pi)
            index += 1
            kind = getattr(joint.type, 'value', joint.type)
            names = list(joint.variable_names)
            if kind == 'floating':
                self.names.extend(names)
                self._parts.append(_Floating(joint.name, phase))
                continue
            if kind == 'planar':
                x, y, theta = names
                self.names.extend(names)
                self._parts.append(SweepVariable(x, 0.0, PLANAR_RADIUS, phase + math.pi / 2))
                self._parts.append(SweepVariable(y, 0.0, PLANAR_RADIUS, phase))
                self._parts.append(SweepVariable(theta, 0.0, math.pi * amplitude, phase))
                continue
            (name,) = names
            lower, upper = joint.variable_bounds()[name]
            # Keep the mimic joints that follow this one within their own limits too.
            f_lower, f_upper = follower_bounds.get(joint.name, (lower, upper))
            if max(lower, f_lower) <= min(upper, f_upper):
                lower, upper = max(lower, f_lower), min(upper, f_upper)
            if math.isfinite(lower) and math.isfinite(upper):
                center = 0.5 * (lower + upper)
                amp = 0.5 * (upper - lower) * amplitude
            else:
                center = 0.0
                amp = UNBOUNDED_PRISMATIC if kind == 'prismatic' else UNBOUNDED_REVOLUTE
                if math.isfinite(lower):        # half-bounded: stay on the allowed side
                    center = lower + amp
                elif math.isfinite(upper):
                    center = upper - amp
            self.names.append(name)
            self._parts.append(SweepVariable(name, center, amp, phase))

    def positions(self, t: float) -> list[float]:
        """Values of :attr:`names` at time ``t``."""
        out: list[float] = []
        for part in self._parts:
            if isinstance(part, _Floating):
                out.extend(part.values(t, self.frequency))
            else:
                out.append(part.value(t, self.frequency))
        return out


def _follower_bounds(model) -> dict[str, tuple[float, float]]:
    """Per driving joint: the values that keep its bounded mimic followers within limits.

    A follower ``f = multiplier * x + offset`` bounded by [lo, hi] allows ``x``
    in [(lo - offset) / m, (hi - offset) / m] (swapped for m < 0); the
    intersection over all direct followers is returned (-inf/inf when free).
    """
    out: dict[str, tuple[float, float]] = {}
    for joint in model.joints:
        mimic = getattr(joint, 'mimic', None)
        if not joint.is_mimic or mimic is None or mimic.multiplier == 0.0:
            continue
        (name,) = joint.variable_names
        lo, hi = joint.variable_bounds()[name]
        a = (lo - mimic.offset) / mimic.multiplier
        b = (hi - mimic.offset) / mimic.multiplier
        a, b = min(a, b), max(a, b)
        cur = out.get(mimic.joint, (-math.inf, math.inf))
        out[mimic.joint] = (max(cur[0], a), min(cur[1], b))
    return out


# --------------------------------------------------------------------------- loading

def load_model_any(*, path: str | None = None, text: str | None = None,
                   xacro_args: Sequence[str] = ()):
    """Load a model from a file or from description text, with xacro ``name:=value`` args."""
    from . import parsers
    if path is not None:
        return _call_with_xacro(parsers.load_model_file, path, xacro_args)
    return _call_with_xacro(parsers.load_model, text, xacro_args)


def _call_with_xacro(loader, source, xacro_args: Sequence[str]):
    xacro_args = [a for a in xacro_args if a]
    if not xacro_args:
        return loader(source)          # parser chosen automatically
    # xacro arguments only mean something to the xacro parser (which also reads plain URDF).
    return loader(source, parser='xacro', options={'args': list(xacro_args)})


# --------------------------------------------------------------------------- ROS

def _make_node_class():
    from rclpy.node import Node
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    class JointSweeper(Node):
        """Publishes a sweeping JointState for every active variable of a model.

        Parameters: ``rate`` (Hz, 50.0), ``sweep_frequency`` (Hz of one full
        sweep, 0.2), ``amplitude`` (fraction of each joint's half range, 0.9).
        ``model``: a model object, or None to wait for ``robot_description``.
        """

        def __init__(self, model=None, *, node_name: str = 'joint_sweeper',
                     rate: float | None = None, sweep_frequency: float | None = None,
                     amplitude: float | None = None, **kwargs) -> None:
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
            self._pub = self.create_publisher(JointState, 'joint_states', 10)
            if model is not None:
                self.set_model(model)
            else:
                qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                                 durability=DurabilityPolicy.TRANSIENT_LOCAL)
                self.create_subscription(String, 'robot_description', self._on_description, qos)
                self.get_logger().info('waiting for the robot_description topic')
            self._timer = self.create_timer(1.0 / self.rate, self._tick)

        def set_model(self, model) -> None:
            self.plan = SweepPlan(model, frequency=self.sweep_frequency, amplitude=self.amplitude)
            self.get_logger().info(
                f"sweeping {len(self.plan.names)} variables of robot '{model.name}' "
                f'at {self.rate:g} Hz')

        def _on_description(self, msg) -> None:
            try:
                model = load_model_any(text=msg.data)
            except Exception as exc:  # noqa: BLE001 - a bad description is logged, not fatal
                self.get_logger().error(f'cannot parse robot_description: {exc}')
                return
            self.set_model(model)

        def _tick(self) -> None:
            if self.plan is None:
                return
            now = self.get_clock().now()
            t = (now - self._t0).nanoseconds * 1e-9
            msg = JointState()
            msg.header.stamp = now.to_msg()
            msg.name = list(self.plan.names)
            msg.position = self.plan.positions(t)
            self._pub.publish(msg)
            self.published += 1

    return JointSweeper


def __getattr__(name):  # lazy: importing this module must not need rclpy
    if name == 'JointSweeper':
        cls = _make_node_class()
        globals()['JointSweeper'] = cls
        return cls
    raise AttributeError(name)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='python -m urdf_state_py.sweep',
                                description='Publish sweeping joint states for a robot model.')
    p.add_argument('--model', help='URDF or xacro file (default: read the robot_description topic)')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument for --model (repeatable)')
    p.add_argument('--rate', type=float, default=None, help='publish rate in Hz (default 50)')
    p.add_argument('--sweep-frequency', type=float, default=None,
                   help='full sweeps per second (default 0.2)')
    p.add_argument('--amplitude', type=float, default=None,
                   help='fraction of each joint range to sweep (default 0.9)')
    return p


def main(argv: Sequence[str] | None = None) -> int:
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.utilities import remove_ros_args

    from .ros_env import ensure_loopback

    raw = list(sys.argv if argv is None else ['sweep', *argv])
    args = build_parser().parse_args(remove_ros_args(raw)[1:])
    model = None
    if args.model:
        try:
            model = load_model_any(path=args.model, xacro_args=args.xacro_arg)
        except Exception as exc:  # noqa: BLE001 - shown without a traceback
            print(f'sweep: cannot load {args.model}: {exc}', file=sys.stderr)
            return 2
    ensure_loopback()
    rclpy.init(args=raw)
    node = None
    try:
        node = _make_node_class()(model, rate=args.rate, sweep_frequency=args.sweep_frequency,
                                  amplitude=args.amplitude)
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
