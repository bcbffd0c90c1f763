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
The layers of the package: tools -> node -> core, and the core never touches ROS.

* At run time: a fresh interpreter in which ROS packages cannot be imported (a
  meta-path finder raises ImportError for them, installed before anything
  else) imports the public API and every module of ``urdf_state_py.core``,
  then parses, resolves, runs FK and expands xacro. Any ROS import anywhere on
  those paths fails the test.
* In the source: every import statement (also the ones inside functions) is
  read with ``ast``: ``core`` imports neither ``node`` nor ``tools`` nor a ROS
  package (``ament_index_python`` only as an optional import guarded by
  ``except ImportError``, for xacro's ``$(find)``), ``node`` never imports
  ``tools``, and the package's ``__init__`` exposes the core only.
* ``urdf_parser_py`` stays optional: the core imports and parses without it.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path
import subprocess
import sys

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / 'urdf_state_py'
ROBOT = PACKAGE.parent / 'robots' / 'h1_2' / 'h1_2.urdf'

#: Top-level names of ROS 2 packages the library must not import.
ROS_PACKAGES = ('rclpy', 'rcl_interfaces', 'std_msgs', 'sensor_msgs', 'geometry_msgs',
                'tf2_msgs', 'tf2_ros', 'builtin_interfaces', 'diagnostic_msgs', 'launch',
                'launch_ros', 'ament_index_python', 'rosidl_runtime_py', 'rpyutils')

# Runs in the child interpreter: block, import, exercise, report as JSON.
_BLOCK = """
import importlib, json, pkgutil, sys
BLOCKED = set(sys.argv[1].split(','))
for name in [m for m in sys.modules if m.split('.')[0] in BLOCKED]:
    del sys.modules[name]          # anything a .pth file imported: gone, must be re-imported

class Blocker:

    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError(f'{name} is blocked by test_layers')
        return None

sys.meta_path.insert(0, Blocker())
"""

_EXERCISE = """
import numpy as np
import urdf_state_py
import urdf_state_py.core
from urdf_state_py import DescriptionError, Kinematics, load_model, load_model_file
modules = sorted(m.name for m in pkgutil.walk_packages(urdf_state_py.core.__path__,
                                                       'urdf_state_py.core.'))
for name in modules:
    importlib.import_module(name)
kin = Kinematics(load_model_file(sys.argv[2]))
q, clamped = kin.resolve(kin.default_positions() + 10.0)
poses = kin.link_poses(q)
tf = kin.moving_transforms(q)
xacro_doc = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
             '<xacro:property name="l" value="2"/><link name="a"/><link name="b"/>'
             '<joint name="j" type="fixed"><parent link="a"/><child link="b"/>'
             '<origin xyz="${l} 0 0"/></joint></robot>')
xacro_x = load_model(xacro_doc).joint('j').origin.xyz[0]
try:
    load_model(xacro_doc.replace('${l}', '$(find no_such_pkg)'))
    find_error = ''
except DescriptionError as exc:
    find_error = str(exc)
probes = {}
for name in BLOCKED:
    try:
        importlib.import_module(name)
        probes[name] = 'imported'
    except ImportError:
        probes[name] = 'blocked'
print(json.dumps({
    'modules': modules,
    'leaked': sorted(m for m in sys.modules if m.split('.')[0] in BLOCKED),
    'clamped': len(clamped), 'links': len(poses), 'tf': len(tf), 'xacro_x': xacro_x,
    'find_error': find_error, 'probes': probes,
}))
"""


def _run(code: str, blocked: tuple[str, ...]) -> dict:
    result = subprocess.run([sys.executable, '-c', _BLOCK + code, ','.join(blocked), str(ROBOT)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_core_imports_and_runs_without_ros():
    report = _run(_EXERCISE, ROS_PACKAGES)
    # The blocker works (else this test could not fail) ...
    assert set(report['probes'].values()) == {'blocked'}, report['probes']
    # ... every core module was imported (the walk is not vacuous) ...
    assert {'urdf_state_py.core.model', 'urdf_state_py.core.kinematics.state',
            'urdf_state_py.core.kinematics.link_poses', 'urdf_state_py.core.parsers.registry',
            'urdf_state_py.core.parsers.xacro_parser',
            'urdf_state_py.core.parsers.urdfdom_py'} <= set(report['modules'])
    # ... and did its job with no ROS module loaded.
    assert report['leaked'] == []
    assert report['links'] == 58 and report['tf'] > 0 and report['clamped'] > 0
    assert report['xacro_x'] == 2.0
    assert 'no_such_pkg' in report['find_error'] and 'ament_index_python is not available' \
        in report['find_error']


def test_core_works_without_urdf_parser_py():
    """urdfdom-py is optional: the registry still lists its plugin, which explains itself."""
    code = _EXERCISE.split('probes = {}')[0] + """
from urdf_state_py.core.parsers import ParserRegistry
registry = ParserRegistry.from_entry_points()
try:
    registry.parse(open(sys.argv[2]).read(), parser='urdf_parser_py')
    message = ''
except DescriptionError as exc:
    message = str(exc)
try:
    urdf_state_py.model_from_urdf_parser_py(object())
    typed = ''
except DescriptionError as exc:
    typed = str(exc)
print(json.dumps({'names': registry.names(), 'message': message, 'typed': typed,
                  'leaked': sorted(m for m in sys.modules if m.split('.')[0] in BLOCKED)}))
"""
    report = _run(code, ('urdf_parser_py', 'lxml'))
    assert report['leaked'] == []
    assert 'urdf_parser_py' in report['names']
    assert 'urdfdom-py' in report['message'] and 'pip install urdfdom-py' in report['message']
    assert 'urdf_parser_py.urdf.Robot' in report['typed']


def test_the_joint_state_step_runs_without_ros():
    """
    Check the JointState step -- the /tf path's specification -- needs no ROS.

    The /tf writer and the native loop's plans are the caller's (they hold messages);
    stand-ins here record what the step asks of them.
    """
    code = """
from types import SimpleNamespace
from urdf_state_py import Kinematics, load_model_file
from urdf_state_py.node.tf_path.joint_state_merger import JointStateMerger, WarnOnce
from urdf_state_py.node.tf_path.joint_state_step import joint_state_step
kin = Kinematics(load_model_file(sys.argv[2]))
merger = JointStateMerger(kin.model, kin.variable_index, kin.default_positions(), frequency=0.0)
warned = WarnOnce()
state = SimpleNamespace(
    merger=merger, kinematics=kin,
    moving=SimpleNamespace(payload_at=lambda joints, q, sec, nanosec: [list(joints), sec]),
    plans=SimpleNamespace(last_names=None, resolved=lambda c, ignore: warned.new(c)))
names = tuple(kin.model.active_joint_names[:3])
step = joint_state_step(state, names, [9.0, 0.0, 0.0], 7, 5, 10**9)
print(json.dumps({'payload': step.payload, 'newly_clamped': list(step.newly_clamped),
                  'names': list(names), 'last_names': list(state.plans.last_names),
                  'leaked': sorted(m for m in sys.modules if m.split('.')[0] in BLOCKED)}))
"""
    report = _run(code, ROS_PACKAGES)
    assert report['leaked'] == []
    joints, sec = report['payload']
    assert sec == 7 and set(report['names']) <= set(joints)
    assert report['newly_clamped'] == [report['names'][0]]   # 9 rad is beyond its limits
    assert report['last_names'] == report['names']


# -- static: the import statements of every module ----------------------------

def _layer(module: str) -> str:
    parts = module.split('.')
    if len(parts) > 1 and parts[1] in ('core', 'node', 'tools'):
        return parts[1]
    return module   # urdf_state_py, urdf_state_py.__main__


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _imports(path: Path):
    """Return (imported absolute module name, guarded by ``except ImportError``) per import."""
    tree = ast.parse(path.read_text(encoding='utf-8'), str(path))
    module = _module_name(path)
    package = module if path.name == '__init__.py' else module.rpartition('.')[0]
    guarded_nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id in ('ImportError',
                                                               'ModuleNotFoundError')
                for h in node.handlers):
            guarded_nodes.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split('.')
                base = base[:len(base) - node.level + 1]
                prefix = '.'.join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module
            # `from . import x` may import the submodule x: count both.
            names = [prefix] + [f'{prefix}.{alias.name}' for alias in node.names
                                if not node.module]
        else:
            continue
        for name in names:
            yield name, id(node) in guarded_nodes


SOURCES = sorted(PACKAGE.rglob('*.py'))
ALLOWED = {   # layer -> layers of urdf_state_py it may import
    'core': {'core'},
    'node': {'core', 'node'},
    'tools': {'core', 'node', 'tools'},
    'urdf_state_py': {'core'},                       # the public library API
    'urdf_state_py.__main__': {'core', 'node', 'tools'},
}


def test_static_scan_sees_every_layer():
    layers = {_layer(_module_name(p)) for p in SOURCES}
    assert layers == set(ALLOWED)
    core_imports = {name for p in SOURCES if _layer(_module_name(p)) == 'core'
                    for name, _ in _imports(p)}
    # Relative imports resolve to absolute names (else the scan would see nothing).
    assert 'urdf_state_py.core.model' in core_imports
    assert 'urdf_state_py.core.kinematics.state' in core_imports


@pytest.mark.parametrize('path', SOURCES, ids=[str(p.relative_to(PACKAGE)) for p in SOURCES])
def test_imports_run_one_way(path):
    layer = _layer(_module_name(path))
    wrong = []
    for name, guarded in _imports(path):
        top = name.split('.')[0]
        if top == 'urdf_state_py' and name != 'urdf_state_py':
            if _layer(name) not in ALLOWED[layer]:
                wrong.append(f'{name} (a {_layer(name)} module)')
        elif layer in ('core', 'urdf_state_py') and top in ROS_PACKAGES:
            if not (top == 'ament_index_python' and guarded):
                wrong.append(f'{name} (ROS)')
    assert not wrong, f'{path.relative_to(PACKAGE)} ({layer}) imports ' + ', '.join(wrong)


def _module_graph() -> dict[str, set[str]]:
    """
    Map each module to the package modules it imports (also inside functions).

    Its own packages are left out: Python imports them before the module whatever it says.
    """
    modules = {_module_name(p): p for p in SOURCES}
    graph = {}
    for name, path in modules.items():
        ancestors = {name.rsplit('.', depth)[0] for depth in range(name.count('.') + 1)}
        graph[name] = {imported for imported, _ in _imports(path)
                       if imported in modules} - ancestors
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_through_others():
    """
    No import circle (also through a function-level import).

    Each module can be read knowing only what it imports.
    """
    assert _cycles({'a': {'b'}, 'b': {'a'}, 'c': {'a'}}) == [['a', 'b']]   # the check works
    graph = _module_graph()
    assert 'urdf_state_py.core.model' in graph['urdf_state_py.core.parsers.urdf_xml']
    assert _cycles(graph) == []
