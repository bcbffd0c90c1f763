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
The container's name prediction (node/process/remapping.py) against rclpy's names.

Compared with the names rclpy gives the built nodes: a LoadNode's name is compared before
its node exists, so the prediction must be rcl's own resolution, case by case.
"""
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')

from urdf_state_py.node.process.remapping import (  # noqa: E402 - after the importorskip
    check_rules, fully_qualified_name, remap_rules)

CASES = [
    ('urdf_state', '/', []),
    ('urdf_state', 'r1', []),
    ('urdf_state', '/r1/deep', []),
    ('urdf_state', '/elsewhere', ['__ns:=/r1']),
    ('urdf_state', '/r1', ['__node:=renamed']),
    ('urdf_state', '/r1', ['__name:=alias']),
    ('other', '/r1', ['other:__node:=urdf_state']),
    ('urdf_state', '/r1', ['other:__node:=ignored', 'urdf_state:__ns:=/mine']),
    ('urdf_state', '/r1', ['__node:=first', '__node:=second']),
    ('urdf_state', '/r1', ['joint_states:=/js', '__ns:=/r2/sub']),
]


@pytest.mark.parametrize('name, namespace, rules', CASES,
                         ids=[' '.join([n, ns, *r]) for n, ns, r in CASES])
def test_the_predicted_name_is_the_one_rclpy_gives(name, namespace, rules):
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        cli = ['--ros-args', *[a for rule in rules for a in ('-r', rule)]] if rules else []
        node = rclpy.create_node(name, namespace=namespace, context=context, cli_args=cli,
                                 use_global_arguments=False, start_parameter_services=False,
                                 enable_rosout=False)
        try:
            assert fully_qualified_name(name, namespace, rules) == \
                node.get_fully_qualified_name()
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_rules_are_read_from_every_ros_args_section_up_to_the_double_dash():
    argv = ['prog', '--ros-args', '-p', 'a:=1', '-r', '__node:=x', '--params-file', 'f.yaml',
            '--remap', 'b:=c', '--', 'plain', '-r', 'not:=this', '--ros-args', '-r', '__ns:=/n']
    assert remap_rules(argv) == ['__node:=x', 'b:=c', '__ns:=/n']


@pytest.mark.parametrize('rule', ['__ns:=r1 bad', '::', '__node:=a b'])
def test_a_rule_rcl_cannot_parse_is_refused(rule):
    with pytest.raises(Exception, match='remap rule'):
        check_rules([rule])
