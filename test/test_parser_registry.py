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

"""ParserRegistry: discovery through entry points, selection, options, error wrapping."""

import contextlib
import logging
import os
import textwrap

import pytest
from urdf_state_py import DescriptionError, Link, Model, Parser, ParserOption, ParserRegistry
from urdf_state_py.core.parsers import default_registry, load_model, UrdfXmlParser, XacroParser

URDF = '<robot name="r"><link name="a"/></robot>'
XACRO = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
         '<xacro:arg name="link" default="base"/><link name="$(arg link)"/></robot>')


class FixedScore(Parser):
    """Claims any text at a fixed position; the model's name says who built it."""

    def __init__(self, name, score, options=()):
        self.name = name
        self.score = score
        self.options = tuple(options)
        self.seen_options = None

    def might_handle(self, data):
        return self.score if self.score is not None else len(data)

    def parse(self, data, options):
        self.seen_options = dict(options)
        return Model(self.name, (Link('only'),), ())


def registry(*parsers):
    reg = ParserRegistry()
    reg.register(UrdfXmlParser())
    for parser in parsers:
        reg.register(parser)
    return reg


def test_builtins_are_registered_without_installation():
    reg = ParserRegistry.from_entry_points(group='urdf_state_py.no_such_group')
    assert reg.names() == ('mjcf', 'urdf', 'xacro')
    assert isinstance(reg.get('urdf'), UrdfXmlParser)
    assert isinstance(reg.get('xacro'), XacroParser)


def test_default_registry_is_cached_and_load_model_uses_it():
    assert default_registry() is default_registry()
    assert {'urdf', 'xacro'} <= set(default_registry().names())
    assert load_model(URDF).link_names == ('a',)


def test_builtin_selection():
    reg = ParserRegistry.from_entry_points()
    assert reg.select(URDF) == 'urdf'
    assert reg.select(XACRO) == 'xacro'
    scores = reg.scores(XACRO)
    assert scores['xacro'] == XACRO.index('xmlns:xacro')
    assert scores['urdf'] == XACRO.index('>') + 1  # end of the root start tag
    assert reg.parse(XACRO).link_names == ('base',)
    assert reg.parse(XACRO, options={'args': ['link:=arm']}).link_names == ('arm',)
    # A generated URDF that keeps xmlns:xacro but uses no xacro stays with urdf.
    kept = '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="a"/></robot>'
    assert reg.select(kept) == 'urdf'


def test_lowest_score_wins():
    reg = registry(FixedScore('early', 3), FixedScore('late', 10))
    assert reg.select(URDF) == 'early'
    assert reg.parse(URDF).name == 'early'


def test_ties_go_to_the_name_that_sorts_first():
    reg = registry(FixedScore('zeta', 5), FixedScore('alpha', 5), FixedScore('mid', 5))
    assert reg.select(URDF) == 'alpha'
    reg2 = registry(FixedScore('mid', 5), FixedScore('alpha', 5), FixedScore('zeta', 5))
    assert reg2.select(URDF) == 'alpha'


def test_nobody_confident_falls_back_to_urdf():
    reg = registry(FixedScore('never', None))
    data = '<model/>'
    assert UrdfXmlParser().might_handle(data) == len(data)
    assert reg.select(data) == 'urdf'
    with pytest.raises(DescriptionError) as info:
        reg.parse(data)
    assert info.value.parser == 'urdf'
    assert 'expected <robot>' in str(info.value)


def test_forced_parser_by_name():
    reg = registry(FixedScore('other', 0))
    assert reg.parse(URDF).name == 'other'  # auto would pick 'other'
    assert reg.parse(URDF, parser='urdf').name == 'r'


def test_unknown_forced_parser_lists_available_names():
    reg = registry(FixedScore('other', 0))
    with pytest.raises(DescriptionError) as info:
        reg.parse(URDF, parser='sdf')
    assert "unknown parser 'sdf'" in str(info.value)
    assert 'available: other, urdf' in str(info.value)


def test_parser_exception_is_wrapped_with_parser_name():
    class Broken(FixedScore):

        def parse(self, data, options):
            raise KeyError('boom')

    reg = registry(Broken('broken', 0))
    with pytest.raises(DescriptionError) as info:
        reg.parse(URDF)
    assert info.value.parser == 'broken'
    assert str(info.value) == "[broken] KeyError: 'boom'"
    assert isinstance(info.value.__cause__, KeyError)


def test_model_error_keeps_its_message_and_gains_the_parser_name():
    with pytest.raises(DescriptionError) as info:
        registry().parse('<robot name="r"/>')
    assert info.value.parser == 'urdf'
    assert info.value.reason == "robot 'r' has no links"
    assert str(info.value) == "[urdf] robot 'r' has no links"


def test_returning_something_else_than_a_model_is_an_error():
    class Lazy(FixedScore):

        def parse(self, data, options):
            return None

    with pytest.raises(DescriptionError, match='not a Model') as info:
        registry(Lazy('lazy', 0)).parse(URDF)
    assert info.value.parser == 'lazy'


def test_options_are_passed_through_with_defaults():
    parser = FixedScore('opt', 0, [ParserOption('flag', False, 'a bool'),
                                   ParserOption('scale', 1.0),
                                   ParserOption('paths', [], 'a list')])
    reg = registry(parser)
    reg.parse(URDF, options={'scale': 2, 'paths': ('x', 'y')})
    assert parser.seen_options == {'flag': False, 'scale': 2.0, 'paths': ['x', 'y']}
    assert isinstance(parser.seen_options['scale'], float)


def test_unknown_and_mistyped_options_are_description_errors():
    reg = registry(FixedScore('opt', 0, [ParserOption('flag', False)]))
    with pytest.raises(DescriptionError) as info:
        reg.parse(URDF, options={'flga': True, 'other': 1})
    assert info.value.parser == 'opt'
    assert 'unknown option(s)' in str(info.value) and 'flga, other' in str(info.value)
    with pytest.raises(DescriptionError, match="option 'opt.flag' must be bool"):
        reg.parse(URDF, options={'flag': 'yes'})
    with pytest.raises(DescriptionError, match='unknown option'):
        registry().parse(URDF, parser='urdf', options={'args': []})


def test_parser_option_types():
    assert ParserOption('a', []).type is list
    assert ParserOption('b', 3).type is int
    with pytest.raises(TypeError):
        ParserOption('c', None)
    with pytest.raises(TypeError):
        ParserOption('d', [1, 2])
    names = [option.name for option in XacroParser.options]
    assert names == ['args', 'package_paths', 'base_dir']


def test_register_rejects_duplicates_and_bad_names():
    reg = registry()
    with pytest.raises(ValueError, match='already registered'):
        reg.register(UrdfXmlParser)
    with pytest.raises(ValueError, match='invalid parser name'):
        reg.register(FixedScore('auto', 0))


def test_xacro_errors_are_description_errors():
    reg = ParserRegistry.from_entry_points()
    needs_arg = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                 '<link name="$(arg missing)"/></robot>')
    with pytest.raises(DescriptionError) as info:
        reg.parse(needs_arg)
    assert info.value.parser == 'xacro'
    assert 'Undefined substitution argument missing' in str(info.value)
    undefined = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                 '<link name="${nope}"/></robot>')
    with pytest.raises(DescriptionError, match="name 'nope' is not defined"):
        reg.parse(undefined)
    find = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            '<xacro:include filename="$(find no_such_pkg_xyz)/a.xacro"/><link name="a"/></robot>')
    with pytest.raises(DescriptionError) as info:
        reg.parse(find)
    assert "package 'no_such_pkg_xyz' not found" in str(info.value)
    assert 'xacro.package_paths' in str(info.value)
    with pytest.raises(DescriptionError, match="'oops' is not of the form name:=value"):
        reg.parse(XACRO, options={'args': ['oops']})


def test_xacro_package_paths_and_base_dir(tmp_path):
    pkg = tmp_path / 'my_pkg'
    (pkg / 'urdf').mkdir(parents=True)
    (pkg / 'urdf' / 'arm.xacro').write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:macro name="arm"><link name="arm"/>'
        '<joint name="j" type="fixed"><parent link="base"/><child link="arm"/></joint>'
        '</xacro:macro></robot>')
    (tmp_path / 'local.xacro').write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="base"/></robot>')
    doc = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
           '<xacro:include filename="local.xacro"/>'
           '<xacro:include filename="$(find my_pkg)/urdf/arm.xacro"/><xacro:arm/></robot>')
    model = load_model(doc, options={'package_paths': [f'my_pkg={pkg}'],
                                     'base_dir': str(tmp_path)})
    assert model.link_names == ('base', 'arm')
    assert model.joint('j').parent == 'base'
    # Without base_dir the relative include is looked up in the current directory.
    with pytest.raises(DescriptionError, match='local.xacro'):
        load_model(doc, options={'package_paths': [f'my_pkg={pkg}']})
    # xacro's global state is restored: the next expansion starts clean.
    assert load_model(XACRO).link_names == ('base',)


def test_xacro_package_paths_reach_xacro_through_the_ament_index(tmp_path, monkeypatch):
    """$(find) names the declared folder in the output; the environment is as it was after."""
    pkg = tmp_path / 'my_pkg'
    pkg.mkdir()
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'elsewhere'))
    doc = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="a">'
           '<visual><geometry><mesh filename="$(find my_pkg)/m.stl"/></geometry></visual>'
           '<collision><geometry><mesh filename="$(find my_pkg)/c.stl"/></geometry>'
           '</collision></link></robot>')
    expanded = XacroParser().expand(doc, {'package_paths': [f'my_pkg={pkg}']})
    assert f'filename="{pkg}/m.stl"' in expanded and f'filename="{pkg}/c.stl"' in expanded
    assert os.environ['AMENT_PREFIX_PATH'] == str(tmp_path / 'elsewhere')
    for name in ('../up', 'a/b', 'ament_index', ''):
        with pytest.raises(DescriptionError, match='package_paths'):
            XacroParser().expand(doc, {'package_paths': [f'{name}={pkg}']})
    assert os.environ['AMENT_PREFIX_PATH'] == str(tmp_path / 'elsewhere')
    assert not (tmp_path / 'up').exists()


# -- a plugin installed through a real entry point ------------------------------

PLUGIN_SOURCE = """
from urdf_state_py import Link, Model, Parser, ParserOption


class MyParser(Parser):
    name = 'mine'
    options = (ParserOption('suffix', '_x', 'appended to the link name'),)

    def might_handle(self, data):
        index = data.find('<mine')
        return index if index >= 0 else len(data)

    def parse(self, data, options):
        return Model('mine', (Link('m' + options['suffix']),), ())
"""


def _install_plugin(tmp_path, monkeypatch, entry_points):
    package = tmp_path / 'plugin_pkg'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'my_parser.py').write_text(textwrap.dedent(PLUGIN_SOURCE))
    dist_info = tmp_path / 'my_plugin-0.1.dist-info'
    dist_info.mkdir()
    (dist_info / 'METADATA').write_text('Metadata-Version: 2.1\nName: my-plugin\nVersion: 0.1\n')
    (dist_info / 'entry_points.txt').write_text(
        '[urdf_state_py.parsers]\n' + ''.join(f'{k} = {v}\n' for k, v in entry_points.items()))
    monkeypatch.syspath_prepend(str(tmp_path))


@contextlib.contextmanager
def registry_warnings():
    """
    Collect the messages the registry's logger warns with inside the block.

    Read through a handler on that logger itself, not pytest's caplog: caplog's handler
    sits on the root logger, and where launch is imported (launch_testing's pytest plugin,
    loaded in every ROS 2 distro) launch.logging makes every logger created afterwards
    non-propagating (its LaunchLogger class), so nothing reaches the root
    (pytest-dev/pytest#3697).
    """
    messages = []

    class Recorder(logging.Handler):

        def emit(self, record):
            messages.append(record.getMessage())

    handler = Recorder(logging.WARNING)
    logger = logging.getLogger('urdf_state_py.core.parsers.registry')
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_plugin_from_a_real_entry_point(tmp_path, monkeypatch):
    _install_plugin(tmp_path, monkeypatch, {
        'mine': 'plugin_pkg.my_parser:MyParser',
        'broken': 'plugin_pkg.does_not_exist:Nope',
        'notaparser': 'plugin_pkg.my_parser:Link',
        # Same name and class as the built-in: not a duplicate, no warning.
        'urdf': 'urdf_state_py.core.parsers.urdf_xml:UrdfXmlParser',
    })
    with registry_warnings() as warnings:
        reg = ParserRegistry.from_entry_points()
    # (urdf_parser_py: this package's own plugin, from its installed entry point)
    assert reg.names() == ('mine', 'mjcf', 'urdf', 'urdf_parser_py', 'xacro')
    assert any("'broken'" in w and 'plugin_pkg.does_not_exist' in w for w in warnings)
    assert any("'notaparser'" in w and 'not a Parser subclass' in w for w in warnings)
    assert not any("'urdf'" in w for w in warnings)

    data = '<mine/>'
    assert reg.select(data) == 'mine'
    model = reg.parse(data)
    assert model.name == 'mine' and model.link_names == ('m_x',)
    assert reg.parse(data, options={'suffix': '_y'}).link_names == ('m_y',)
    # A URDF document still goes to urdf.
    assert reg.parse(URDF).name == 'r'


def test_plugin_cannot_replace_a_builtin(tmp_path, monkeypatch):
    _install_plugin(tmp_path, monkeypatch, {'xacro': 'plugin_pkg.my_parser:MyParser'})
    with registry_warnings() as warnings:
        reg = ParserRegistry.from_entry_points()
    assert isinstance(reg.get('xacro'), XacroParser)
    assert any("'xacro'" in w and 'already registered' in w for w in warnings)


def test_parse_published_expands_xacro_once_and_returns_plain_text_as_given(monkeypatch):
    calls = []
    expand = XacroParser.expand
    monkeypatch.setattr(XacroParser, 'expand',
                        lambda self, *a, **k: calls.append(1) or expand(self, *a, **k))
    model, published = default_registry().parse_published(XACRO, 'auto', {'args': ['link:=b']})
    assert calls == [1]
    assert model.link_names == ('b',) and '<link name="b"/>' in published
    assert default_registry().parse_published(URDF, 'auto')[1] is URDF
