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
The container's Fast DDS profile (no ROS).

Set only where it takes nothing from the user, and a valid profile file. Its effect
(memory per robot) is measured by the benchmark.
"""
from xml.etree import ElementTree

import pytest
from urdf_state_py.node.process.middleware_memory import lean_endpoints, PROFILE, SWITCH


@pytest.mark.parametrize('major, variable', [(2, 'FASTRTPS_DEFAULT_PROFILES_FILE'),
                                             (3, 'FASTDDS_DEFAULT_PROFILES_FILE')])
def test_the_profile_is_set_for_the_fast_dds_in_use(major, variable):
    env = {}
    said = lean_endpoints(env, fastdds_major=major)
    assert env == {variable: str(PROFILE), 'RMW_FASTRTPS_USE_QOS_FROM_XML': '1'}
    assert variable in said and f'{SWITCH}=off' in said


@pytest.mark.parametrize('given, named', [
    ({'FASTDDS_DEFAULT_PROFILES_FILE': '/mine.xml'}, 'FASTDDS_DEFAULT_PROFILES_FILE'),
    ({'FASTRTPS_DEFAULT_PROFILES_FILE': '/mine.xml'}, 'FASTRTPS_DEFAULT_PROFILES_FILE'),
    ({'RMW_FASTRTPS_USE_QOS_FROM_XML': '0'}, 'RMW_FASTRTPS_USE_QOS_FROM_XML'),
    ({'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'}, 'RMW_IMPLEMENTATION=rmw_cyclonedds_cpp'),
    ({SWITCH: 'off'}, f'{SWITCH}=off'),
])
def test_the_users_own_settings_are_left_alone(given, named):
    env = dict(given)
    said = lean_endpoints(env, fastdds_major=2)
    assert env == given
    assert 'not used' in said and named in said


def test_a_default_profile_in_the_working_directory_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'DEFAULT_FASTRTPS_PROFILES.xml').write_text('<profiles/>')
    env = {}
    assert 'DEFAULT_FASTRTPS_PROFILES.xml' in lean_endpoints(env, fastdds_major=2)
    assert env == {}


def test_the_profile_changes_only_the_history_memory_policy_of_endpoints():
    ns = {'p': 'http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles'}
    root = ElementTree.parse(PROFILE).getroot()
    defaults = [e for e in root if e.get('is_default_profile') == 'true']
    assert {e.tag.split('}')[1] for e in defaults} == {'participant', 'data_writer',
                                                       'data_reader'}
    for kind in ('data_writer', 'data_reader'):
        entity = root.find(f'p:{kind}', ns)
        assert entity.find('p:historyMemoryPolicy', ns).text == 'DYNAMIC_REUSABLE'
        assert entity.find('p:qos/p:data_sharing/p:kind', ns).text == 'OFF'
    assert root.find('p:data_writer/p:qos/p:publishMode/p:kind', ns).text == 'SYNCHRONOUS'
    builtin = root.find('p:participant/p:rtps/p:builtin', ns)
    assert {child.text for child in builtin} == {'PREALLOCATED_WITH_REALLOC'}
