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
The node's parameter services, answered on a thread of their own.

rclpy runs a SetParameters callback synchronously, and all of a node's
parameter services share the node's default (mutually exclusive) callback
group: while a large description is parsed for a ``ros2 param set``, neither
GetParameters nor the node's other callbacks would be served by a
single-threaded executor. Here the six services (``<node>/get_parameters``,
``set_parameters``...) are rclpy's own :class:`~rclpy.parameter_service.ParameterService`,
but created on a hidden helper node (same namespace, ``_<name>_parameters``)
spun by a :class:`~rclpy.executors.MultiThreadedExecutor` in a daemon thread:

* get/list/describe/get_types are in a reentrant group: answered at once, also
  while a SetParameters is being processed;
* set_parameters and set_parameters_atomically share a mutually exclusive
  group: one change at a time, each answered with its real result (a
  description that fails to parse is rejected in the SetParameters result,
  as robot_state_publisher does).

The services act on the main node's parameters, so ``ros2 param`` works
unchanged; whatever executor spins the main node (EventsExecutor,
single-threaded) never waits for a parse.

In a container (``own_thread=False``) the process spins every robot on one
multi-threaded executor: there the six services stay on the robot's node, in
the same two callback groups, and no helper node or thread is added per robot.

rclpy's callbacks trust the request: a SetParameters whose value names no
parameter type (``type: 99``, well-formed CDR) raises ValueError in
``Parameter.from_parameter_msg``, out of the executor, and the caller got no
answer. Each callback here is guarded: such a request is counted and logged
(throttled, :class:`~urdf_state_py.node.guards.CallbackGuard`) and answered, a
change refused with the reason.
"""

from __future__ import annotations

import threading
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rcl_interfaces.srv import SetParameters, SetParametersAtomically
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.parameter_service import ParameterService

from .guards import CallbackGuard
from .process.spin import MultiThreadedExecutor
from .process.threads import join_thread

__all__ = ['ParameterServices']

_THREADS = 3


class _ServiceHost:
    """What ParameterService sees as its node: the main node, creating services on the helper."""

    def __init__(self, node: Node, host: Node, guard: CallbackGuard) -> None:
        self._node = node
        self._host = host
        self._guard = guard
        self._setters = MutuallyExclusiveCallbackGroup()
        self._readers = ReentrantCallbackGroup()

    def get_name(self) -> str:
        return self._node.get_name()

    def create_service(self, srv_type: Any, name: str, callback: Any, **kwargs: Any) -> Any:
        setter = srv_type in (SetParameters, SetParametersAtomically)
        return self._host.create_service(
            srv_type, name, self._guarded(srv_type, name, callback),
            callback_group=self._setters if setter else self._readers, **kwargs)

    def _guarded(self, srv_type: Any, name: str, callback: Any) -> Any:
        """Wrap ``callback`` to answer a request it fails on: a refusal, or an empty answer."""
        def serve(request: Any, response: Any) -> Any:
            try:
                return callback(request, response)
            except Exception as err:  # a request must not end serving
                detail = f'{type(err).__name__}: {err}'
                self._guard.report(name, 'malformed request', detail)
                refused = SetParametersResult(successful=False,
                                              reason=f'malformed request: {detail}')
                answer = srv_type.Response()
                if srv_type is SetParameters:
                    answer.results = [refused] * len(request.parameters)
                elif srv_type is SetParametersAtomically:
                    answer.result = refused
                return answer
        return serve

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


class ParameterServices:
    """
    Serves ``node``'s parameters.

    From a helper node on its own executor thread (``own_thread``), else from the node
    itself on the process's executor.
    """

    def __init__(self, node: Node, guard: CallbackGuard, *, own_thread: bool = True) -> None:
        self._host = Node(f'_{node.get_name()}_parameters', namespace=node.get_namespace(),
                          context=node.context, start_parameter_services=False,
                          use_global_arguments=False, enable_rosout=False) \
            if own_thread else None
        self._proxy = _ServiceHost(node, self._host or node, guard)  # ParameterService: weakref
        self._service = ParameterService(self._proxy)
        self._context = node.context
        self._guard = guard
        self._closing = False
        self._executor = None
        if self._host is not None:
            self._executor = MultiThreadedExecutor(num_threads=_THREADS, context=node.context)
            self._executor.add_node(self._host)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """
        Start serving.

        Apart from the constructor: the owner holds this before it runs; on the process's
        executor: nothing to start.
        """
        if self._executor is None:
            return
        self._thread = threading.Thread(target=self._spin, name='parameter_services',
                                        daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        """Serve until closed; what escapes the executor is reported and serving goes on."""
        while self._context.ok() and not self._closing:
            try:
                self._executor.spin()
                return
            except Exception as exc:  # any error, also the context shut down under it
                if self._context.ok() and not self._closing:
                    # e.g. rclpy failing to convert a request rmw took: counted, throttled
                    self._guard.report('parameter services', 'malformed request',
                                       f'{type(exc).__name__}: {exc}')

    def close(self) -> None:
        """
        Stop serving (waits briefly for a running callback) and destroy the helper.

        On the node itself, the services go with the node.
        """
        self._closing = True
        if self._executor is None:
            return
        self._executor.shutdown(timeout_sec=1.0)
        join_thread(self._thread, timeout=2.0)
        self._host.destroy_node()
