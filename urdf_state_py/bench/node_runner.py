"""Run the project's node under a chosen rclpy executor (bench only).

``python -m urdf_state_py.bench.node_runner --executor events|single|multi --ros-args ...``

``urdf_state_py.node.main`` spins with ``rclpy.spin`` (the default
SingleThreadedExecutor) and exposes no executor choice, so the benchmark
builds the same :class:`~urdf_state_py.node.UrdfStateNode` and spins it with
the executor it wants to compare. Nothing of the node is changed.

With ``URDF_STATE_BENCH_CPROFILE=FILE`` the spin runs under cProfile and the
stats are written to FILE on SIGINT/SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys


def make_executor(kind: str):
    if kind == 'events':
        from rclpy.experimental import EventsExecutor
        return EventsExecutor()
    if kind == 'multi':
        from rclpy.executors import MultiThreadedExecutor
        return MultiThreadedExecutor()
    from rclpy.executors import SingleThreadedExecutor
    return SingleThreadedExecutor()


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    kind = 'single'
    if '--executor' in argv:
        i = argv.index('--executor')
        kind = argv[i + 1]
        del argv[i:i + 2]
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from urdf_state_py.node import UrdfStateNode
    rclpy.init(args=['node_runner'] + argv)
    node = UrdfStateNode()
    executor = make_executor(kind)
    executor.add_node(node)
    prof_path = os.environ.get('URDF_STATE_BENCH_CPROFILE')
    prof = None
    if prof_path:
        import cProfile
        import time as _time
        prof = cProfile.Profile(_time.thread_time)  # CPU of the spinning thread

        def _stop(*_):
            raise KeyboardInterrupt
        signal.signal(signal.SIGTERM, _stop)
        prof.enable()
    try:
        if kind == 'events':
            # EventsExecutor.spin() busy-loops at 100 % CPU on this rclpy (Kilted wheels)
            # once the node has a timer; spin_once in a loop does not.
            while rclpy.ok():
                executor.spin_once(timeout_sec=0.5)
        else:
            executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if prof is not None:
            prof.disable()
            prof.dump_stats(prof_path)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
