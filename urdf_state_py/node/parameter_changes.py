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
Run-time parameter changes of a node (``ros2 param set``).

A batch is validated whole (every rule, and a new description built) before
anything changes, then put in effect by :class:`~.robot_description.RobotDescription`
under the JointState lock, between two JointStates; what it announces is
published after the lock is released. A refused batch leaves no trace.
An SRDF from the ``robot_description_semantic`` topic is applied the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.parameter import Parameter
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers.xacro_sandbox import arg_value_problem, TRUSTED

from .description_loader import DescriptionLoader, Loaded, Source
from .guards import INTERNAL_ERROR
from .health import Health
from .joint_state_publisher.joint_settings import is_joint_parameter
from .joint_state_publisher.sources import SourceInput
from .params import FILE_ROOTS, ParamSpec
from .part_settings import default_part, is_part_parameter
from .robot_description import RobotDescription
from .semantic import SemanticInput, SemanticSetting
from .tf_path.joint_state_input import JointStateInput

__all__ = ['ParameterChanges']


class ParameterChanges:
    """
    The node's on-set-parameters callback and its SRDF-topic changes.

    ``specs``: the node's parameters and their rules; ``option_params``: the parsers'
    own parameters (see :class:`~.robot_description.RobotDescription`); ``sources``:
    the source_list input, if any.
    """

    def __init__(self, description: RobotDescription, joint_input: JointStateInput,
                 sources: SourceInput | None, semantic: SemanticInput,
                 loader: DescriptionLoader, specs: Mapping[str, ParamSpec],
                 option_params: Mapping[str, tuple[str, str]], health: Health,
                 now_ns: Callable[[], int], logger: Any,
                 declare_part: Callable[[str], Any]) -> None:
        """
        Keep the parts a change reads or writes.

        ``declare_part(name)``: declares the parameters of a part named in ``parts``.
        """
        self._description, self._input, self._sources = description, joint_input, sources
        self._semantic, self._loader = semantic, loader
        self._specs, self._option_params = specs, option_params
        self._health, self._now_ns, self._logger = health, now_ns, logger
        self._declare_part = declare_part
        self._declaring = False

    def on_semantic_topic(self, setting: SemanticSetting) -> None:
        """Apply an SRDF from the topic that fits the model, as a parameter change is."""
        description = self._description
        with description.lock:
            cfg = dict(description.cfg, semantic=setting)
            loaded = description.loaded
            new_loaded = None if loaded is None or loaded.parsed is None else \
                self._loader.assemble(loaded.source, loaded.description, loaded.parser,
                                      loaded.parsed, cfg, loaded.composition)
            with self._input.lock:
                if new_loaded is not None:
                    new_loaded.merger.adopt(loaded.merger)
                announce = self._commit(cfg, {'semantic'}, description.source, new_loaded)
            if announce is not None:
                announce()

    def on_set_parameters(self, params: list[Parameter]) -> SetParametersResult:
        """Run on the parameter services' thread (see param_services), never on the executor's."""
        with self._description.lock:
            if self._declaring:   # the parameters of a new part (in effect already)
                return SetParametersResult(successful=True)
            try:
                self._apply(params)
            except _Rejected as rejected:
                return SetParametersResult(successful=False, reason=str(rejected))
            except Exception as exc:  # noqa: BLE001 (a bug must not end the parameter services)
                reason = f'internal error while applying the change: {type(exc).__name__}: {exc}'
                self._logger.error(reason)
                self._health.reject_message(INTERNAL_ERROR, f'set_parameters: {reason}',
                                            self._now_ns())
                return SetParametersResult(successful=False, reason=reason)
            return SetParametersResult(successful=True)

    def _check_change(self, name: str, value: Any) -> None:
        """Check the rules for a value set at run time; raise _Rejected naming the problem."""
        problem = self._specs[name].problem(value)
        if problem:
            raise _Rejected(f"parameter '{name}': {problem}")
        if name == 'source_list':   # not read-only for rclpy: an empty list has no type
            raise _Rejected("parameter 'source_list' is set at start-up: the subscriptions "
                            'and the joint_states output are made once')
        if name == 'integrate_velocity' and value and self._sources is None:
            raise _Rejected("parameter 'integrate_velocity': with source_list empty, give it at "
                            'start-up (joint_states is then read by the path that integrates)')
        if name in FILE_ROOTS and self._loader.runtime_policy != TRUSTED:
            raise _Rejected(f"parameter '{name}' is set at launch: it declares which files a "
                            'description set at run time may read (description.runtime_xacro'
                            ': full allows changing it)')
        if name == 'xacro.args':
            for item in value:
                problem = arg_value_problem(item)
                if problem:
                    raise _Rejected(problem)

    def _apply(self, params: list[Parameter]) -> None:
        """Validate the whole batch, then apply it; raises _Rejected naming the problem."""
        description = self._description
        cfg = dict(description.cfg)
        changed = set()
        joint_updates = {}
        part_updates = {}
        for param in params:
            if is_joint_parameter(param.name) and param.type_ != Parameter.Type.NOT_SET:
                joint_updates[param.name] = param.value
                continue
            if is_part_parameter(param.name):
                if param.type_ == Parameter.Type.NOT_SET:
                    raise _Rejected(f"parameter '{param.name}' cannot be undeclared "
                                    '(remove the part from parts to detach it)')
                part_updates[param.name] = param.value
                continue
            if param.name not in cfg:
                continue  # not ours (e.g. use_sim_time)
            if param.type_ == Parameter.Type.NOT_SET:
                raise _Rejected(f"parameter '{param.name}' cannot be undeclared")
            value = param.value
            if isinstance(cfg[param.name], list):
                value = list(value)
            self._check_change(param.name, value)
            cfg[param.name] = value
            changed.add(param.name)
        semantic_names = sorted(changed & {'robot_description_semantic', 'initial_group_states'})
        if semantic_names:
            try:
                cfg['semantic'] = self._semantic.setting(cfg['robot_description_semantic'],
                                                         cfg['initial_group_states'])
            except DescriptionError as err:
                reason = f"parameter '{semantic_names[0]}': {err}"
                self._health.reject_description(err.kind, reason, self._now_ns())
                raise _Rejected(reason) from None
            changed.add('semantic')
        if joint_updates:
            try:
                cfg['joint_settings'] = cfg['joint_settings'].changed(joint_updates)
            except ValueError as err:
                raise _Rejected(str(err)) from None
            changed.add('joint_settings')
        new_parts = self._parts_change(cfg, changed, part_updates)
        if not changed:
            return
        reshaped = changed & _JOINT_SETTINGS
        loaded = description.loaded
        if reshaped and loaded is not None and loaded.parsed is not None:
            problem = cfg['joint_settings'].problem(loaded.parsed, cfg)
            if problem:
                raise _Rejected(problem)
        new_loaded = adopted = None
        source = description.source
        if changed & ({'robot_description', 'parser'} | set(self._option_params)):
            if 'robot_description' in changed:
                if not cfg['robot_description'].strip():
                    self._health.reject_description('empty', 'robot_description: empty',
                                                    self._now_ns())
                    raise _Rejected('Empty robot_description is not allowed')
                source = Source(cfg['robot_description'], trusted=False)
            if source is not None and source.text.strip():
                try:
                    new_loaded = description.build(source, cfg)
                except DescriptionError as err:
                    raise _Rejected(self._loader.rejected(
                        'a parameter change', err, keeping=loaded is not None)) from None
        elif changed & {'parts', 'part_settings'} and loaded is not None:
            try:
                new_loaded = description.recompose(loaded, cfg)
            except DescriptionError as err:
                raise _Rejected(self._loader.rejected('a change of parts', err,
                                                      keeping=True)) from None
            adopted = loaded.merger
        elif reshaped - {'integrate_velocity'} and loaded is not None and \
                loaded.parsed is not None:
            new_loaded = self._loader.assemble(loaded.source, loaded.description, loaded.parser,
                                               loaded.parsed, cfg, loaded.composition)
            adopted = loaded.merger
        with self._input.lock:  # everything validated: apply, between two JointStates
            if adopted is not None:   # the values received so far, none changing meanwhile
                new_loaded.merger.adopt(adopted)
            announce = self._commit(cfg, changed, source, new_loaded)
        if new_parts:
            self._declare_parts(new_parts)
        if announce is not None:
            announce()

    def _parts_change(self, cfg: dict[str, Any], changed: set[str],
                      updates: dict[str, Any]) -> list[str]:
        """
        Put the per-part ``updates`` and new names of ``parts`` in ``cfg``.

        Returns the new names, whose parameters are declared once the change is in effect.
        """
        settings = cfg['part_settings']
        new_names = [name for name in cfg['parts'] if name not in settings.names()] \
            if 'parts' in changed else []
        defaults = {name: value for part in new_names for name, value in default_part(part)}
        if updates or defaults:
            try:
                cfg['part_settings'] = settings.changed({**defaults, **updates})
            except ValueError as err:
                raise _Rejected(str(err)) from None
            changed.add('part_settings')
        return new_names

    def _declare_parts(self, names: list[str]) -> None:
        """Declare the parameters of the parts newly named in ``parts`` (already in effect)."""
        self._declaring = True   # rclpy calls on_set_parameters for each declaration
        try:
            for name in names:
                self._declare_part(name)
        finally:
            self._declaring = False

    def _commit(self, cfg: dict[str, Any], changed: set[str], source: Source | None,
                new_loaded: Loaded | None) -> Callable[[], None] | None:
        """Put a validated batch in effect (under the JointState lock); what to announce."""
        if 'rate' in changed and self._sources is not None:
            self._sources.set_rate(cfg['rate'])
        return self._description.apply(cfg, changed, source, new_loaded)


#: Settings that shape the model or its defaults (checked against it, see joint_settings).
_JOINT_SETTINGS = frozenset({'joint_settings', 'use_smallest_joint_limits', 'integrate_velocity',
                             'semantic'})


class _Rejected(Exception):
    """A parameter change that must be refused; the message is the reason shown to the user."""
