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

"""The node's counters and status (ROS-free): levels, messages and key/values."""
from urdf_state_py.node.health import ERROR, Health, LogThrottle, ModelView, node_status, OK, WARN

S = 1_000_000_000


def view(**kw):
    base = {'robot': 'toy', 'parser': 'urdf', 'links': 4, 'joints': 3, 'movable': 3,
            'never_received': (), 'stale': ()}
    base.update(kw)
    return ModelView(**base)


def status(health, v, now_ns=100 * S, **kw):
    s = node_status(health, v, stale_after_s=kw.pop('stale_after_s', 1.0),
                    tf_rate_hz=kw.pop('tf_rate_hz', 50.0), now_ns=now_ns)
    return s, dict(s.values)


def test_no_model_is_an_error_saying_so():
    s, values = status(Health(), None)
    assert s.level == ERROR and s.message == 'no valid robot description loaded'
    assert values['rejected descriptions'] == '0' and 'robot' not in values


def test_all_received_and_fresh_is_ok_with_the_model_keys():
    s, values = status(Health(), view())
    assert s.level == OK and s.message == "publishing 4 links of 'toy'"
    assert values['robot'] == 'toy' and values['parser'] == 'urdf' and values['links'] == '4'
    assert values['joints'] == '3 (3 movable)' and values['/tf rate [Hz]'] == '50.0'
    assert values['joints never received'] == '0' and values['stale joints'] == '0'
    assert values['last rejection'] == 'none'


def test_never_received_and_stale_joints_warn_naming_them():
    names = tuple(f'j{i}' for i in range(12))
    s, values = status(Health(), view(never_received=names, stale=('k',)), stale_after_s=2.0)
    assert s.level == WARN
    assert s.message == ('12 joint(s) never received: the complete state is not yet known; '
                         '1 joint(s) stale (no update for more than 2 s)')
    assert values['joints never received'] == '12'
    assert values['joints never received (names)'] == \
        'j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 (+2 more)'
    assert values['stale joints (names)'] == 'k' and values['stale after [s]'] == '2'
    assert dict(status(Health(), view(), stale_after_s=0.0)[0].values)['stale after [s]'] == 'off'


def test_rejections_warn_while_recent_and_stay_counted_by_reason():
    health = Health()
    health.reject_message('truncated', '/joint_states: truncated: position', 10 * S)
    health.reject_message('truncated', '/joint_states: truncated: names', 11 * S)
    health.reject_description('urdf parser', 'robot_description: no <robot>', 12 * S)
    s, values = status(health, view(), now_ns=13 * S)
    assert s.level == WARN and s.message == 'input rejected: robot_description: no <robot>'
    assert values['rejected messages'] == '2' and values['rejected messages: truncated'] == '2'
    assert values['rejected descriptions: urdf parser'] == '1'
    assert values['last rejection'] == 'robot_description: no <robot>'
    s, values = status(health, view(), now_ns=30 * S)   # long ago: OK, counts stay
    assert s.level == OK and values['rejected messages: truncated'] == '2'


def test_clamps_warn_while_recent_and_are_forgotten_with_the_model():
    health = Health()
    health.clamp(['a', 'b'], 10 * S)
    s, values = status(health, view(), now_ns=11 * S)
    assert s.level == WARN and s.message == '2 joint(s) clamped to their limits'
    assert values['joints clamped'] == '2' and values['joints clamped (names)'] == 'a, b'
    health.new_model()
    assert status(health, view(), now_ns=11 * S)[1]['joints clamped'] == '0'


def test_a_long_rejection_text_is_cut():
    health = Health()
    health.reject_message('string', 'x' * 10_000, S)
    assert len(health.last_rejection) == 240 and health.last_rejection.endswith('...')


def test_log_throttle_counts_what_it_holds_back():
    throttle = LogThrottle(5.0)
    assert throttle.allow('k', 0) == 0
    assert throttle.allow('k', 1 * S) is None and throttle.allow('k', 2 * S) is None
    assert throttle.allow('other', 2 * S) == 0            # per key
    assert throttle.allow('k', 6 * S) == 2                # two held back since the last line
    assert throttle.allow('k', 7 * S) is None
