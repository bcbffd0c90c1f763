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
Loading robot descriptions for the node: under which policy, in which process, within which limits.

* **Trust** (:class:`Source`): the description given at start-up (the launch
  file passes the model file chosen by the operator) is trusted and may use
  all of xacro, as the ``xacro`` command would; re-expanding it (a
  ``xacro.args`` change) keeps it trusted. A description that arrives at run
  time (SetParameters, the ``robot_description`` topic) is expanded under the
  restricted policy (:mod:`urdf_state_py.core.parsers.xacro_sandbox`) unless
  the operator set ``description.runtime_xacro: full`` at launch.
* **Isolation and limits**: every parse runs in a parser process
  (:class:`~urdf_state_py.core.parsers.isolated.IsolatedParser`, one of the
  process's :class:`~urdf_state_py.core.parsers.parser_pool.ParserPool`) killed after
  ``description.timeout`` s, limited to ``description.max_memory_mb``, with the
  description and its expansion limited to ``description.max_bytes`` -- except a
  trusted plain URDF of at most 1 MB (:meth:`DescriptionLoader.parses_here`): the
  operator's, read by this package's own URDF parser, which runs no code, expands
  no entity and takes time and memory in proportion to the text. It is parsed in
  the node's process, as robot_state_publisher does, so the start-up model does
  not wait for a parser process to start.
* **Threads**: nothing here runs on the executor that publishes TF. A
  SetParameters is processed on the parameter services' own thread (see
  :mod:`.param_services`); a description from the topic is loaded on this
  module's loader thread (the latest one wins when several arrive meanwhile),
  which exists only while there is one to load.
* **One place for rejections**: :meth:`DescriptionLoader.rejected` logs and
  counts every refused description by kind.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping
import ctypes
import ctypes.util
from dataclasses import dataclass, replace
import gc
import threading
from typing import Any

from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers.isolated import ParseLimits, RECYCLE_BYTES
from urdf_state_py.core.parsers.parser_pool import ParserPool
from urdf_state_py.core.parsers.semantic_parsers import SEMANTIC_REQUEST
from urdf_state_py.core.parsers.srdf import Semantic
from urdf_state_py.core.parsers.urdf_xml import UrdfXmlParser
from urdf_state_py.core.parsers.xacro_sandbox import POLICIES, RESTRICTED, TRUSTED
from urdf_state_py.core.robot_parts import compose
from urdf_state_py.core.urdf_elements import elements_of, UrdfElements
from urdf_state_py.core.urdf_writer import urdf_text

from .params import ParamSpec
from .process.threads import join_thread
from .semantic import apply_semantic
from .tf_path.joint_state_merger import JointStateMerger, WarnOnce
from .tf_path.native_loop import NativePlans
from .tf_path.tf_publishing import MovingTransforms

__all__ = ['Composition', 'DescriptionLoader', 'LOADER_PARAMETERS', 'Loaded', 'Source']

#: The operator's settings of description loading: read-only, set at launch.
LOADER_PARAMETERS = (
    ParamSpec('description.runtime_xacro', RESTRICTED,
              "xacro allowed in a description set at run time: 'restricted' (no code, no "
              "environment, files only below xacro.base_dir/xacro.package_paths) or 'full' "
              '(read-only)', read_only=True,
              check=lambda v: None if v in POLICIES else
              f"'{v}' is not one of {', '.join(POLICIES)}"),
    ParamSpec('description.timeout', 10.0,
              'Longest a description may take to parse [s]; the parser process is then '
              'killed (read-only)', read_only=True, bounds=(0.1, 3600.0)),
    ParamSpec('description.max_memory_mb', 2048,
              'Memory limit of the parser process [MiB] (read-only)', read_only=True,
              bounds=(256, 1 << 20)),
    ParamSpec('description.max_bytes', 64 << 20,
              'Largest description, and largest xacro expansion, accepted [bytes] (read-only)',
              read_only=True, bounds=(1024, (1 << 31) - 1)),
)

#: After a model this large is swapped out, memory is handed back to the system...
_TRIM_BYTES = 1 << 20
#: ... this long after the swap [s].
_TRIM_DELAY_S = 1.0


@dataclass(frozen=True)
class Source:
    """A description as given, and whether it came from the operator at start-up."""

    text: str
    trusted: bool


@dataclass(frozen=True)
class Composition:
    """
    A robot's base as parsed and its parts' models: what a change of parts starts from.

    ``parts``: (description, trusted) -> the part's model as parsed and its URDF
    elements (visuals, collisions, inertials); ``elements``: the base's (None: not
    read yet); ``names``: the parts attached, in order.
    """

    source: Source
    description: str
    parser: str
    model: Model
    parts: Mapping[tuple[str, bool], tuple[Model, UrdfElements]]
    elements: UrdfElements | None = None
    names: tuple[str, ...] = ()


@dataclass
class Loaded:
    """Everything derived from one accepted description; swapped as one reference."""

    source: Source
    description: str         # as published on robot_description (xacro: expanded)
    parser: str
    model: Model
    kinematics: Kinematics
    merger: JointStateMerger
    fixed: Any               # JointTransforms of the fixed joints (constant)
    moving: MovingTransforms
    clamp_warned: WarnOnce
    plans: NativePlans       # the native loop's plans of this model (see native_loop)
    parsed: Model | None = None   # as parsed, before the joint settings (see assemble)
    passive_joints: frozenset[str] = frozenset()   # the SRDF's: never reported missing
    composition: Composition | None = None   # with parts attached: the base and the parts

    @property
    def part_names(self) -> tuple[str, ...]:
        """Return the parts attached in this model (none: the base alone)."""
        return self.composition.names if self.composition else ()

    def summary(self) -> str:
        m = self.model
        movable = len(m.movable_joint_names)
        return (f"Robot '{m.name}' loaded with parser '{self.parser}': {len(m.links)} links, "
                f'{len(m.joints)} joints ({movable} movable of which '
                f'{len(m.mimic_joint_names)} mimic, {len(m.joints) - movable} fixed), '
                f"root '{m.root}'")

    def with_prefix(self, frame_prefix: str) -> Loaded:
        """
        Return this state publishing under ``frame_prefix``, as a new object to swap in.

        The merger (joint values, rate-limit marks) and the clamp warnings carry
        over; only what holds frame ids (or the buffers /tf is written into) is
        new, so a JointState handled meanwhile keeps a consistent whole. The new
        plans start not ``clean``: the next JointState is served by the step in Python,
        which re-establishes it.
        """
        moving = MovingTransforms(self.kinematics, frame_prefix)
        return replace(self, moving=moving,
                       plans=NativePlans(self.merger, self.kinematics, moving, self.clamp_warned))


class DescriptionLoader:
    """Builds :class:`Loaded` states in a parser process; logs and counts rejections."""

    def __init__(self, registry: Any, settings: Mapping[str, Any], logger: Any,
                 parsers: ParserPool) -> None:
        """``parsers``: the process's parser processes (shared with its other robots)."""
        self._registry = registry
        self.runtime_policy: str = settings['description.runtime_xacro']
        self.limits = ParseLimits(timeout_s=settings['description.timeout'],
                                  max_memory_mb=settings['description.max_memory_mb'],
                                  max_bytes=settings['description.max_bytes'])
        self._parser = parsers.client([type(p) for p in registry], self.limits)
        self._logger = logger
        #: kind -> count of rejected descriptions (see DescriptionError.kind)
        self.rejections: collections.Counter[str] = collections.Counter()
        self.last_rejection: str | None = None
        #: Called with (kind, reason) after each rejection (e.g. by diagnostics).
        self.on_rejected: Callable[[str, str], None] | None = None
        self._pending: Callable[[], None] | None = None
        self._jobs = threading.Lock()   # guards _pending, _thread, _closed
        self._closed = False
        self._thread: threading.Thread | None = None

    def prestart(self, trusted_first: bool = False) -> None:
        """
        Start a parser process now, so the first description does not wait for one.

        ``trusted_first``: the first description is the operator's, whose process is
        replaced after it, so its successor starts now too.
        """
        self._parser.prestart(successor=trusted_first)

    def wait_ready(self) -> None:
        """
        Return once the parser process for the next description has started.

        So the next parse takes its own time only (a failure to start shows in that parse).
        """
        self._parser.wait_ready()

    def parses_here(self, source: Source, parser: str) -> bool:
        """
        Return whether ``source`` is parsed in this process rather than in a parser process.

        ``parser``: the setting, 'auto' or a name. Parsed here: a trusted plain URDF of at
        most 1 MB (and ``description.max_bytes``) read by :class:`UrdfXmlParser` (see the
        module docstring).
        """
        if not source.trusted or len(source.text) > min(RECYCLE_BYTES, self.limits.max_bytes):
            return False
        try:
            name = self._registry.select(source.text) if parser == 'auto' else parser
        except DescriptionError:   # no parser at all: the parser process says so
            return False
        return name in self._registry and type(self._registry.get(name)) is UrdfXmlParser \
            and len(source.text.encode('utf-8')) <= min(RECYCLE_BYTES, self.limits.max_bytes)

    def policy(self, source: Source) -> str:
        """Return the xacro policy ``source`` is expanded under."""
        return TRUSTED if source.trusted or self.runtime_policy == TRUSTED else RESTRICTED

    def build(self, source: Source, cfg: Mapping[str, Any],
              options_of: Callable[[str], dict[str, Any]]) -> Loaded:
        """
        Parse ``source`` (in the parser process) and precompute everything for it.

        With parts attached (``cfg['parts']``), each part is parsed under the same rules and
        the model is the composed robot. ``options_of(parser)``: that parser's options from
        the node's settings. Raises DescriptionError (the reason, including a limit reached).
        """
        parser, published, model = self._parse(source, cfg['parser'], options_of)
        return self._compose(Composition(source, published, parser, model, {}), cfg,
                             options_of)

    def recompose(self, loaded: Loaded, cfg: Mapping[str, Any],
                  options_of: Callable[[str], dict[str, Any]]) -> Loaded:
        """
        Return ``loaded``'s base with the parts of ``cfg`` attached (the base is not re-parsed).

        A part description parsed for ``loaded`` is not parsed again.
        """
        base = loaded.composition or Composition(loaded.source, loaded.description,
                                                 loaded.parser, loaded.parsed, {})
        return self._compose(base, cfg, options_of)

    def _parse(self, source: Source, parser: str,
               options_of: Callable[[str], dict[str, Any]]) -> tuple[str, str, Model]:
        """Return (parser, published description, model) of ``source``."""
        if parser == 'auto':
            parser = self._registry.select(source.text)   # cheap: scores only
        if self.parses_here(source, parser):
            model, published = self._registry.parse_published(source.text, parser,
                                                              options_of(parser))
            return parser, published, model
        result = self._parser.parse(source.text, parser, options_of(parser),
                                    self.policy(source))
        return result.parser, result.published, result.model

    def _compose(self, base: Composition, cfg: Mapping[str, Any],
                 options_of: Callable[[str], dict[str, Any]]) -> Loaded:
        """Attach the parts of ``cfg`` to ``base`` and assemble the result."""
        attached = cfg['part_settings'].attached(cfg['parts']) if 'parts' in cfg else []
        if not attached:   # the base alone, published as given
            return self.assemble(base.source, base.description, base.parser, base.model, cfg)
        parsed: dict[tuple[str, bool], tuple[Model, UrdfElements]] = {}
        for part, text, trusted in attached:
            key = (text, trusted)
            if key in parsed:
                continue
            parsed[key] = base.parts.get(key)
            if parsed[key] is None:
                try:
                    _, published, model = self._parse(Source(text, trusted), 'auto', options_of)
                except DescriptionError as err:
                    raise DescriptionError(f"part '{part.name}': {err}", kind=err.kind) from None
                parsed[key] = (model, elements_of(published))
        composed = compose(base.model, [(part, parsed[(text, trusted)][0])
                                        for part, text, trusted in attached])
        base_elements = base.elements if base.elements is not None else \
            elements_of(base.description)
        links = dict(base_elements.links)
        for part, text, trusted in attached:
            links.update(parsed[(text, trusted)][1].of_part(part.prefix, part.name))
        description = urdf_text(composed, links, tuple(base_elements.materials.values()),
                                base_elements.others)
        return self.assemble(base.source, description, base.parser, composed,
                             cfg, replace(base, parts=parsed, elements=base_elements,
                                          names=tuple(p.name for p, _, _ in attached)))

    def assemble(self, source: Source, description: str, parser: str, parsed: Model,
                 cfg: Mapping[str, Any], composition: Composition | None = None) -> Loaded:
        """
        Everything for the parsed model ``parsed`` under the node's settings ``cfg``.

        ``cfg['joint_settings']`` (joint_state_publisher's dependent joints, soft
        limits, zeros) shapes the model and its defaults; a rule the model cannot
        take is logged and left out (it was refused already if set at run time).
        """
        settings = cfg.get('joint_settings')
        model, defaults_of = parsed, None
        if settings is not None:
            model, defaults_of = settings.shape(parsed, cfg, self._logger)
        kin = Kinematics(model)
        defaults = kin.default_positions()
        passive = apply_semantic(cfg.get('semantic'), parsed, kin.variable_index, defaults,
                                 cfg.get('initial_group_states', ()), self._logger)
        if defaults_of is not None:
            defaults_of(kin.variable_index, defaults)
        merger = JointStateMerger(model, kin.variable_index, defaults,
                                  frequency=cfg['publish_frequency'],
                                  ignore_timestamp=cfg['ignore_timestamp'])
        moving = MovingTransforms(kin, cfg['frame_prefix'])
        warned = WarnOnce()   # shared: a plan clamps a joint once it was warned about
        return Loaded(source=source, description=description, parser=parser,
                      model=model, kinematics=kin, merger=merger,
                      fixed=kin.fixed_transforms(), moving=moving, clamp_warned=warned,
                      plans=NativePlans(merger, kin, moving, warned), parsed=parsed,
                      passive_joints=passive, composition=composition)

    def read_semantic(self, text: str) -> Semantic:
        """
        Return an SRDF (or a semantic plugin's format) read in the parser process.

        It is not yet checked against a robot.
        """
        return self._parser.parse(text, SEMANTIC_REQUEST, {}, RESTRICTED).model

    def rejected(self, origin: str, error: DescriptionError, keeping: bool,
                 waiting: bool = True) -> str:
        """
        Return the one place a description is refused: log it, count it; returns the reason.

        ``keeping``: a previous model stays in effect; else ``waiting``: the node waits
        for a valid one (False: the node is not built, see UrdfStateNode's require_model).
        """
        reason = str(error)
        kind = getattr(error, 'kind', 'invalid')
        self.rejections[kind] += 1
        self.last_rejection = reason
        after = 'keeping the previous model' if keeping else \
            'waiting for a valid one' if waiting else 'the node is not loaded'
        self._logger.error(f'Failed to parse robot description from {origin}: {reason} '
                           f'({after})')
        if self.on_rejected is not None:
            self.on_rejected(kind, reason)
        return reason

    @staticmethod
    def release_memory(old: Loaded | None, new: Loaded) -> None:
        """
        After a large model was swapped out (or in), give the freed heap back to the system.

        Python frees the objects, but glibc keeps the pages in its arenas and
        the RSS would stay at its peak (``malloc_trim`` exists only in glibc).
        The trim runs a second later, on a timer thread: by then rclpy has
        replaced the old ``robot_description`` value and the caller has let go
        of the old state.
        """
        sizes = [len(x.source.text) + len(x.description) for x in (old, new) if x is not None]
        if max(sizes, default=0) < _TRIM_BYTES:
            return
        timer = threading.Timer(_TRIM_DELAY_S, _collect_and_trim)
        timer.daemon = True
        timer.start()

    # -- the loader thread (descriptions from the topic) ---------------------------

    def submit(self, job: Callable[[], None]) -> None:
        """
        Run ``job`` on the loader thread (started if none runs).

        A job still waiting is replaced (latest wins).
        """
        with self._jobs:
            if self._closed:
                return
            self._pending = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name='description_loader',
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        """Run the waiting jobs, then end: no thread stays while nothing is to be loaded."""
        while True:
            with self._jobs:
                job, self._pending = self._pending, None
                if job is None or self._closed:
                    self._thread = None
                    return
            try:
                job()
            except Exception as exc:  # noqa: BLE001 (the thread must survive any job)
                self._logger.error(f'Loading a robot description failed: '
                                   f'{type(exc).__name__}: {exc}')

    def cancel(self) -> None:
        """End the parse in progress and refuse later ones (shutting down; signal-handler safe)."""
        self._parser.stop()

    def close(self) -> None:
        """Refuse later jobs, end the parse in progress and wait for the loader thread."""
        with self._jobs:
            self._closed = True
            thread = self._thread
        self._parser.close()
        join_thread(thread, timeout=5.0)


def _collect_and_trim() -> None:
    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        trim = libc.malloc_trim
    except (OSError, AttributeError):   # not glibc (musl, macOS)
        return
    trim.argtypes = [ctypes.c_size_t]
    trim(0)
