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
A model as plain JSON data and back: how a parser process hands its result over.

Not pickle: the parent must not run code that the child (which processed an
untrusted description) could have chosen. Decoding rebuilds the model through
the ordinary constructors, so it is validated again on the receiving side.
"""

from __future__ import annotations

from typing import Any

from .errors import DescriptionError
from .model import Joint, Limits, Link, Mimic, Model, Origin, SafetyController

__all__ = ['model_to_data', 'model_from_data']


def model_to_data(model: Model) -> list[Any]:
    """``[name, [link names], [joint rows]]``: compact (a 20,000-link model is a few MB)."""
    joints = []
    for j in model.joints:
        lim, safe, mim = j.limits, j.safety, j.mimic
        joints.append([
            j.name, j.type.value, j.parent, j.child,
            list(j.origin.xyz), list(j.origin.rpy), list(j.axis),
            None if lim is None else [lim.lower, lim.upper, lim.effort, lim.velocity],
            None if safe is None else [safe.soft_lower_limit, safe.soft_upper_limit,
                                       safe.k_position, safe.k_velocity],
            None if mim is None else [mim.joint, mim.multiplier, mim.offset],
        ])
    return [model.name, [link.name for link in model.links], joints]


def model_from_data(data: Any) -> Model:
    """Return the model :func:`model_to_data` encoded; DescriptionError for anything malformed."""
    try:
        name, link_names, rows = data
        links = tuple(Link(str(n)) for n in link_names)
        joints = []
        for row in rows:
            jname, jtype, parent, child, xyz, rpy, axis, lim, safe, mim = row
            joints.append(Joint(
                name=str(jname), type=jtype, parent=str(parent), child=str(child),
                origin=Origin(_vec(xyz), _vec(rpy)), axis=_vec(axis),
                limits=None if lim is None else Limits(
                    _opt(lim[0]), _opt(lim[1]), float(lim[2]), float(lim[3])),
                safety=None if safe is None else SafetyController(*(float(v) for v in safe)),
                mimic=None if mim is None else Mimic(str(mim[0]), float(mim[1]),
                                                     float(mim[2]))))
        return Model(str(name), links, tuple(joints))
    except DescriptionError:
        raise
    except (TypeError, ValueError, IndexError) as exc:
        raise DescriptionError(f'malformed model data from the parser process: {exc}') from None


def _vec(values: Any) -> tuple[float, float, float]:
    x, y, z = values
    return (float(x), float(y), float(z))


def _opt(value: Any) -> float | None:
    return None if value is None else float(value)
