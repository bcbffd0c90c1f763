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
Keep DDS discovery on the loopback interface.

The demo and the benchmark start several ROS processes; none of them may
announce itself on the network. :func:`loopback_env` builds an environment for
child processes, :func:`ensure_loopback` applies the same settings to the
current process (call it before ``rclpy.init``).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
import os
import random

__all__ = ['loopback_env', 'ensure_loopback', 'DOMAIN_ID_RANGE']

# Domain ids handed out when the user has none: 1..100 stays clear of 0 (the
# default everybody uses) and far below the 232 limit of Fast DDS port math.
DOMAIN_ID_RANGE = (1, 100)


def loopback_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """
    Return a copy of ``base`` (default ``os.environ``) with discovery limited to localhost.

    - ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` (Iron and later);
    - ``ROS_LOCALHOST_ONLY=1`` as well when ``ROS_DISTRO`` is ``humble``, which
      predates the discovery range variable;
    - ``ROS_DOMAIN_ID`` kept when set (and non-empty), otherwise a random id in
      1..100 so that parallel runs on one host do not see each other.
    """
    env = dict(os.environ if base is None else base)
    env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    if env.get('ROS_DISTRO') == 'humble':
        env['ROS_LOCALHOST_ONLY'] = '1'
    if not env.get('ROS_DOMAIN_ID', '').strip():
        env['ROS_DOMAIN_ID'] = str(random.randint(*DOMAIN_ID_RANGE))
    return env


def ensure_loopback(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """
    Apply :func:`loopback_env` to ``environ`` (default ``os.environ``) in place.

    Returns the resulting environment as a plain dict. Idempotent: once a
    domain id is set it is kept.
    """
    target = os.environ if environ is None else environ
    env = loopback_env(target)
    for key, value in env.items():
        if target.get(key) != value:
            target[key] = value
    return env
