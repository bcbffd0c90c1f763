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
MuJoCo MJCF -> Model and URDF: the built-in ``mjcf`` parser.

Every ``<body>`` written under ``<worldbody>`` becomes a link (the root is
MuJoCo's world body, ``world``), whatever ``<compiler fusestatic>`` says; its
joints become a chain of URDF joints from the parent body, so that the pose of
each body for given ``qpos`` is the one MuJoCo's ``mj_kinematics`` computes.
The rules (names of unnamed bodies and joints, joint types, ``ref``, anchors,
what is refused) are in docs/parsers.md, "The mjcf parser". MuJoCo itself is
not needed. The published ``robot_description`` is the URDF of the model
(:func:`~urdf_state_py.core.urdf_writer.urdf_text`), with the visual geoms.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import math
from typing import Any
from xml.etree.ElementTree import Element

from ._xml import root_span
from .base import Parser, ParserOption
from .mjcf_document import Document, flag, MAIN_CLASS, numbers, read_document
from .mjcf_geoms import Geom, GeomReader
from .mjcf_orientation import axis_angle, compose, IDENTITY, ORIGIN, origin, Pose, unit
from ..errors import DescriptionError
from ..model import Joint, JointType, Limits, Link, Mimic, Model
from ..transforms import quaternion_rotate
from ..urdf_writer import urdf_text, Visual, visual_element

WORLD = 'world'


class MjcfParser(Parser):
    """MuJoCo MJCF documents (root element ``<mujoco>``)."""

    name = 'mjcf'
    options = (
        ParserOption('base_dir', '',
                     'folder that <include file> and mesh paths resolve against (default: the '
                     "current directory; the model file's folder when read from a file)"),
    )

    def might_handle(self, data: str) -> int:
        """Position of the root start tag when it is ``<mujoco ...>``, else ``len(data)``."""
        span = root_span(data, 'mujoco')
        return len(data) if span is None else span[0]

    def parse(self, data: str | bytes, options: Mapping[str, Any] | None = None) -> Model:
        """Return the model of the MJCF document ``data``."""
        return self.read(data, options)[0]

    def parse_published(self, data: str | bytes,
                        options: Mapping[str, Any] | None = None) -> tuple[Model, str]:
        """Return the model and its URDF (with visuals), the text ``robot_description`` carries."""
        model, visuals = self.read(data, options)
        return model, urdf_text(model, {link: [visual_element(v) for v in shown]
                                        for link, shown in visuals.items()})

    def read(self, data: str | bytes, options: Mapping[str, Any] | None = None
             ) -> tuple[Model, dict[str, list[Visual]]]:
        """Return the model and the URDF visuals of each link."""
        opts = self.resolve_options(options)
        document = read_document(data, opts['base_dir'])
        builder = _Builder(document)
        geoms: list[Geom] = []
        for worldbody in document.root.findall('worldbody'):
            builder.children(worldbody, WORLD, ORIGIN, MAIN_CLASS, True, geoms)
        builder.visuals[WORLD] = builder.visual_reader.visuals(geoms, WORLD)
        builder.equalities()
        name = document.root.get('model') or 'MuJoCo Model'
        links = tuple(Link(n) for n in builder.links)
        return Model(name, links, tuple(builder.joints.values())), builder.visuals


class _Builder:
    """The walk over the body tree: links, joints and visuals as they are found."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.compiler = document.compiler
        self.links: dict[str, None] = {WORLD: None}    # ordered, and a fast membership test
        self.joints: dict[str, Joint] = {}
        self.refs: dict[str, float] = {}
        self.visuals: dict[str, list[Visual]] = {}
        self.visual_reader = GeomReader(document)
        self.body_count = 0

    def children(self, element: Element, link: str, frame: Pose, childclass: str,
                 in_world: bool, geoms: list[Geom]) -> None:
        """Read the bodies, frames and geoms inside ``element`` (a body, frame or worldbody)."""
        for child in element:
            if child.tag == 'body':
                self.body(child, link, frame, childclass, in_world)
            elif child.tag == 'frame':
                nested = compose(frame, self.document.pose(child.attrib, f"<frame> in '{link}'"))
                self.children(child, link, nested, child.get('childclass', childclass),
                              in_world, geoms)
            elif child.tag == 'geom':
                geoms.append((child, frame, childclass))

    def body(self, element: Element, parent: str, frame: Pose, childclass: str,
             in_world: bool) -> None:
        """Add the link of body ``element`` and the joints from ``parent`` to it."""
        self.body_count += 1
        name = element.get('name') or f'body_{self.body_count}'
        what = f"body '{name}'"
        if name in self.links:
            raise DescriptionError(f"body name '{name}' is not unique")
        childclass = element.get('childclass', childclass)
        pose = compose(frame, self.document.pose(element.attrib, what))
        joints = self.joints_in(element, ORIGIN, childclass, name)
        self.links[name] = None
        pending = pose
        for index, (joint, frame, joint_class) in enumerate(joints):
            attributes = self.document.attributes(joint, joint_class) \
                if joint.tag == 'joint' else dict(joint.attrib)
            kind = 'free' if joint.tag == 'freejoint' else attributes.get('type', 'hinge')
            joint_name = attributes.get('name') or f'{name}_joint{index}'
            where = f"joint '{joint_name}' of {what}"
            if kind == 'free':
                if len(joints) > 1 or not in_world:
                    raise DescriptionError(f'{where}: a free joint must be the only joint of a '
                                           'body whose parent is the world body')
                self.add(Joint(joint_name, JointType.FLOATING, parent, name))
                parent = name
                continue
            if kind == 'ball':
                raise DescriptionError(f'{where} is a ball joint: not supported (a JointState '
                                       'has no 3-DOF rotation for it)')
            if kind not in ('hinge', 'slide'):
                raise DescriptionError(f"{where} has unknown type '{kind}'")
            last = index == len(joints) - 1
            pending, parent = self.joint(attributes, kind, joint_name, where, frame, pending,
                                         parent, name, last)
        if not joints:
            self.add(Joint(f'{name}_fixed', JointType.FIXED, parent, name, origin(pose)))
        elif parent != name:
            self.add(Joint(f'{name}_anchor', JointType.FIXED, parent, name, origin(pending)))
        geoms: list[Geom] = []
        self.children(element, name, ORIGIN, childclass, False, geoms)
        self.visuals[name] = self.visual_reader.visuals(geoms, name)

    def joints_in(self, element: Element, frame: Pose, childclass: str,
                  body: str) -> list[tuple[Element, Pose, str]]:
        """Return the joints of a body (also those in its frames) with their frame and class."""
        joints = []
        for child in element:
            if child.tag in ('joint', 'freejoint'):
                joints.append((child, frame, childclass))
            elif child.tag == 'frame':
                nested = compose(frame, self.document.pose(child.attrib, f"<frame> in '{body}'"))
                joints += self.joints_in(child, nested, child.get('childclass', childclass), body)
        return joints

    def joint(self, attributes: Mapping[str, str], kind: str, name: str, where: str,
              frame: Pose, pending: Pose, parent: str, body: str,
              last: bool) -> tuple[Pose, str]:
        """
        Add one hinge or slide; return the pose still to apply and the link it hangs from.

        MuJoCo turns a hinge by ``q - ref`` about the axis through its ``pos``:
        the joint's origin is the anchor turned by ``-ref``, and the body
        follows at ``-pos`` from the joint's frame (a fixed ``<body>_anchor``
        joint when no other joint follows). ``pos`` and ``axis`` are in
        ``frame`` (a ``<frame>`` around the joint, else the body's).
        """
        written = unit(numbers(attributes.get('axis'), f'{where} axis', 3, (0.0, 0.0, 1.0)),
                       f'{where} axis')
        axis = tuple(float(c) for c in quaternion_rotate(frame[1], written))
        scale = math.pi / 180.0 if kind == 'hinge' and self.compiler.degrees else 1.0
        ref = numbers(attributes.get('ref'), f'{where} ref', 1, (0.0,))[0] * scale
        self.refs[name] = ref
        if kind == 'hinge':
            position = numbers(attributes.get('pos'), f'{where} pos', 3, (0.0, 0.0, 0.0))
            anchor = tuple(float(c) for c in compose(frame, (position, IDENTITY))[0])
            joint_origin = compose(compose(pending, (anchor, IDENTITY)),
                                   ((0.0, 0.0, 0.0), axis_angle(axis, -ref)))
        else:
            anchor = (0.0, 0.0, 0.0)
            shift = (-ref * axis[0], -ref * axis[1], -ref * axis[2])
            joint_origin = compose(pending, (shift, IDENTITY))
        child = body if last and anchor == (0.0, 0.0, 0.0) else f'{body}/{name}'
        limits = self.limits(attributes, scale, where)
        if kind == 'hinge':
            joint_type = JointType.CONTINUOUS if limits is None else JointType.REVOLUTE
        else:
            joint_type = JointType.PRISMATIC
        if child != body:
            self.links[child] = None
        self.add(Joint(name, joint_type, parent, child, origin(joint_origin), axis, limits))
        return ((-anchor[0], -anchor[1], -anchor[2]), IDENTITY), child

    def limits(self, attributes: Mapping[str, str], scale: float, where: str) -> Limits | None:
        """Return the joint's range when it is limited (``limited``, else ``autolimits``)."""
        limited = attributes.get('limited', 'auto')
        if limited == 'auto':
            if 'range' in attributes and not self.compiler.autolimits:
                raise DescriptionError(f"{where} has a range but no 'limited', and "
                                       "<compiler autolimits='false'> (as MuJoCo, refused)")
            is_limited = 'range' in attributes
        else:
            is_limited = flag(limited, f'{where} limited')
        if not is_limited:
            return None
        lower, upper = numbers(attributes.get('range'), f'{where} range', 2, (0.0, 0.0))
        if not lower < upper:
            raise DescriptionError(f'{where} is limited but its range [{lower}, {upper}] '
                                   'is empty')
        return Limits(lower * scale, upper * scale)

    def add(self, joint: Joint) -> None:
        """Add ``joint``; DescriptionError when its name is taken."""
        if joint.name in self.joints:
            raise DescriptionError(f"joint name '{joint.name}' is not unique")
        self.joints[joint.name] = joint

    def equalities(self) -> None:
        """``<equality><joint>`` of degree 1 become mimics; connect/weld change no frame."""
        for section in self.document.root.findall('equality'):
            for element in section:
                if element.tag != 'joint':
                    continue
                attributes = self.document.attributes(element, MAIN_CLASS)
                if attributes.get('active', 'true') == 'false':
                    continue
                follower, leader = attributes.get('joint1'), attributes.get('joint2')
                where = f"<equality><joint joint1='{follower}' joint2='{leader}'>"
                if not leader:
                    raise DescriptionError(f'{where}: without joint2 (a joint held at a '
                                           'constant) is not supported')
                coefficients = numbers(attributes.get('polycoef'), f'{where} polycoef', 5,
                                       (0.0, 1.0, 0.0, 0.0, 0.0))
                if any(coefficients[2:]):
                    raise DescriptionError(f'{where}: polycoef of degree above 1 is not '
                                           'supported (only q1 = c0 + c1 q2, a mimic)')
                for joint_name in (follower, leader):
                    if joint_name not in self.refs:
                        raise DescriptionError(f"{where}: '{joint_name}' is not a hinge or "
                                               'slide joint of the model')
                if self.joints[follower].mimic is not None:
                    raise DescriptionError(f"{where}: '{follower}' is already coupled")
                c0, c1 = coefficients[0], coefficients[1]
                offset = self.refs[follower] + c0 - c1 * self.refs[leader]
                self.joints[follower] = dataclasses.replace(
                    self.joints[follower], mimic=Mimic(leader, c1, offset))
