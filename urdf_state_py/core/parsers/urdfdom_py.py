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
urdf_parser_py (PyPI ``urdfdom-py``), the ROS Python URDF library, as a first-class input.

Read this first: two ways in, one set of rules.

* :func:`model_from_urdf_parser_py` (also ``urdf_state_py.model_from_urdf_parser_py``):
  a ``urdf_parser_py.urdf.Robot`` a program already holds becomes a
  :class:`~urdf_state_py.core.model.Model`, checked by the built-in ``urdf``
  reader's rules (see :mod:`.urdf_xml`): non-empty names, known joint types,
  ``<limit>`` required on revolute and prismatic joints (urdfdom-py does not
  require it), bounds kept only on those, the axis read only where URDF has
  one, mimic defaults, finite numbers; then the model's structural checks (one
  tree, unique names, mimic targets and cycles; urdfdom-py checks none of
  them). Only kinematics is read, so no ``urdf_parser_py`` import is needed.
* :class:`UrdfParserPyParser`, the parser plugin ``urdf_parser_py``, registered
  through the entry-point group ``urdf_state_py.parsers`` like any third-party
  plugin (see ``setup.py``): the text first goes through the same safe XML gate
  as the built-in reader (:func:`._xml.read_tree`: no entity declarations, no
  external references, the encoding and prolog repaired), and urdfdom-py reads
  the gate's re-serialisation of it, so it never sees a DTD or an entity. Under
  ``parser:=auto`` it never wins: it scores one past the ``urdf`` parser.

urdfdom-py reports oddities (unknown tags and attributes, a material with
neither colour nor texture) through a module-level hook that prints to
stderr. The plugin collects them instead: ignored by default (as by the
built-in reader), errors with the option ``strict``.

Where urdfdom-py 1.2 and the built-in reader disagree (README, "urdf_parser_py"):
urdfdom-py rejects a ``<material>`` without ``name`` (Unitree H1_2), PR2's
old-style ``<transmission>`` without a hardware interface, a ``<geometry>``
with two shapes (pybullet's racecar), and undeclared namespace prefixes
(``<xacro:...>`` leftovers); it accepts any number syntax Python's ``float``
does (``1_0``), and ``<limit>``-less revolute joints (rejected here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import logging
import numbers
import threading
from typing import Any
from xml.etree import ElementTree

from ._xml import read_tree
from .base import Parser, ParserOption
from .urdf_xml import UrdfXmlParser
from ..errors import DescriptionError
from ..model import Joint, JointType, Limits, Link, Mimic, Model, Origin, SafetyController

__all__ = ['UrdfParserPyParser', 'model_from_urdf_parser_py']

_JOINT_TYPES = {t.value: t for t in JointType}
_AXIS_TYPES = {JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.PLANAR}
_BOUNDED_TYPES = {JointType.REVOLUTE, JointType.PRISMATIC}
_INSTALL_HINT = ('pip install urdfdom-py, or install the ROS package urdfdom_py '
                 '(apt: ros-$ROS_DISTRO-urdfdom-py)')
_MAX_LISTED_WARNINGS = 3

# urdfdom-py's warning hook (xml_reflection.core.on_error) is one global per process.
_HOOK_LOCK = threading.Lock()
_logger = logging.getLogger(__name__)


# -- Robot -> Model -----------------------------------------------------------

def model_from_urdf_parser_py(robot: Any) -> Model:
    """
    Return the :class:`Model` of a ``urdf_parser_py.urdf.Robot`` (the built-in reader's rules).

    Raises :class:`DescriptionError` naming the element at fault, as the
    built-in reader does for the same problem in XML.
    """
    if not all(hasattr(robot, field) for field in ('name', 'links', 'joints')):
        raise DescriptionError(f'expected a urdf_parser_py.urdf.Robot (with name, links and '
                               f'joints), got {type(robot).__name__}')
    name = _name(robot.name, '<robot>')
    links = tuple(Link(_name(link.name, f'link #{index + 1}'))
                  for index, link in enumerate(robot.links))
    joints = tuple(_joint(joint, index) for index, joint in enumerate(robot.joints))
    return Model(name, links, joints)


def _joint(joint: Any, index: int) -> Joint:
    name = _name(joint.name, f'joint #{index + 1}')
    what = f"joint '{name}'"
    joint_type = _JOINT_TYPES.get(joint.type)
    if joint_type is None:
        raise DescriptionError(f"{what} has unknown type '{joint.type}' "
                               f"(known: {', '.join(_JOINT_TYPES)})")
    axis = (1.0, 0.0, 0.0)
    if joint_type in _AXIS_TYPES and joint.axis is not None:
        axis = _vector(joint.axis, f'{what} axis xyz')
    limit = joint.limit
    if limit is None and joint_type in _BOUNDED_TYPES:
        raise DescriptionError(f'{what} is {joint_type.value} but has no <limit> element '
                               f'(required for revolute and prismatic joints)')
    limits = None
    if limit is not None:
        where = f'{what} <limit>'
        bounded = joint_type in _BOUNDED_TYPES
        limits = Limits(lower=_number(limit.lower, f'{where} lower', 0.0) if bounded else None,
                        upper=_number(limit.upper, f'{where} upper', 0.0) if bounded else None,
                        effort=_number(limit.effort, f'{where} effort'),
                        velocity=_number(limit.velocity, f'{where} velocity'))
    safety = joint.safety_controller
    if safety is not None:
        where = f'{what} <safety_controller>'
        safety = SafetyController(
            soft_lower_limit=_number(safety.soft_lower_limit, f'{where} soft_lower_limit', 0.0),
            soft_upper_limit=_number(safety.soft_upper_limit, f'{where} soft_upper_limit', 0.0),
            k_position=_number(safety.k_position, f'{where} k_position', 0.0),
            k_velocity=_number(safety.k_velocity, f'{where} k_velocity'))
    mimic = joint.mimic
    if mimic is not None:
        where = f'{what} <mimic>'
        if not mimic.joint:
            raise DescriptionError(f"{where} has no 'joint' attribute")
        mimic = Mimic(mimic.joint,
                      multiplier=_number(mimic.multiplier, f'{where} multiplier', 1.0),
                      offset=_number(mimic.offset, f'{where} offset', 0.0))
    return Joint(name=name, type=joint_type,
                 parent=_name(joint.parent, f'{what}: <parent> link'),
                 child=_name(joint.child, f'{what}: <child> link'),
                 origin=_origin(joint.origin, what), axis=axis, limits=limits, safety=safety,
                 mimic=mimic)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise DescriptionError(f'{what} has no name' if value is None
                               else f'{what} has an empty or invalid name ({value!r})')
    return value


def _origin(pose: Any, what: str) -> Origin:
    if pose is None:
        return Origin()
    xyz, rpy = pose.xyz, pose.rpy
    return Origin(
        xyz=(0.0, 0.0, 0.0) if xyz is None else _vector(xyz, f'{what} origin xyz'),
        rpy=(0.0, 0.0, 0.0) if rpy is None else _vector(rpy, f'{what} origin rpy'))


def _vector(values: Any, what: str) -> tuple[float, float, float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != 3:
        raise DescriptionError(f'{what} must be 3 numbers, got {values!r}')
    x, y, z = (_number(v, what) for v in values)
    return (x, y, z)


def _number(value: Any, what: str, default: float | None = None) -> float:
    """``value`` as a float; None takes ``default`` (None: the value is required)."""
    if value is None:
        if default is None:
            raise DescriptionError(f'{what} is not set')
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise DescriptionError(f'{what}: {value!r} is not a number')
    return float(value)


# -- the parser plugin ----------------------------------------------------------

class UrdfParserPyParser(Parser):
    """URDF read by urdfdom-py (``urdf_parser_py``), then checked by the model's rules."""

    name = 'urdf_parser_py'
    options = (ParserOption('strict', False,
                            "urdfdom-py's warnings (unknown tags or attributes, a material "
                            'without colour or texture) are errors'),)
    _urdf = UrdfXmlParser()

    def might_handle(self, data: str) -> int:
        """One past the ``urdf`` parser's answer: it reads the same documents, and never wins."""
        score = self._urdf.might_handle(data)
        return min(score + 1, len(data))

    def parse(self, data: str | bytes, options: Mapping[str, Any] | None = None) -> Model:
        """Gate the text, read it with urdfdom-py, convert: :func:`model_from_urdf_parser_py`."""
        strict = self.resolve_options(options)['strict']
        root = read_tree(data)   # the built-in reader's safe XML gate
        if root.tag != 'robot':
            raise DescriptionError(f'root element is <{root.tag}>, expected <robot>')
        return model_from_urdf_parser_py(read_robot(ElementTree.tostring(root), strict))


def read_robot(xml: bytes, strict: bool = False) -> Any:
    """
    ``urdf_parser_py.urdf.Robot.from_xml_string(xml)`` with its warnings captured.

    ``xml`` must already have passed the safe gate. Any failure, and with
    ``strict`` any warning, is a one-line :class:`DescriptionError`.
    """
    try:
        from urdf_parser_py import urdf  # noqa: PLC0415 (optional dependency)
        from urdf_parser_py.xml_reflection import core  # noqa: PLC0415
    except ImportError as exc:
        raise DescriptionError(f'urdfdom-py is not available ({exc}): {_INSTALL_HINT}') from None
    warnings: list[str] = []
    with _HOOK_LOCK:
        saved = core.on_error
        core.on_error = warnings.append
        try:
            robot = urdf.Robot.from_xml_string(xml)
        except Exception as exc:  # noqa: BLE001 (ParseError, AssertionError, lxml, ValueError)
            raise DescriptionError(f'urdfdom-py: {_one_line(exc)}') from None
        finally:
            core.on_error = saved
    if warnings:
        listed = '; '.join(warnings[:_MAX_LISTED_WARNINGS])
        more = len(warnings) - _MAX_LISTED_WARNINGS
        summary = listed + (f' (and {more} more)' if more > 0 else '')
        if strict:
            raise DescriptionError(f'urdfdom-py warned (option strict): {summary}')
        _logger.debug('urdfdom-py warnings: %s', summary)
    return robot


def _one_line(exc: BaseException) -> str:
    text = ' '.join(str(exc).split())
    if type(exc).__name__ == 'ParseError':
        return text
    return f'{type(exc).__name__}: {text}' if text else type(exc).__name__
