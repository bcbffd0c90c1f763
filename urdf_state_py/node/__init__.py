"""The ROS 2 node: the thin rclpy adapter around :mod:`urdf_state_py.core`.

Once per robot, in this folder: the node (:mod:`.state_publisher`), its parameters
(:mod:`.params`, :mod:`.param_services`), its descriptions (:mod:`.description_loader`),
its health and ``/diagnostics`` (:mod:`.health`, :mod:`.diagnostics`, :mod:`.guards`)
and its topics' QoS (:mod:`.qos`). Beside them: :mod:`.tf_path` (JointState in, /tf
out), :mod:`.joint_state_publisher` (that node's jobs) and :mod:`.process` (what exists
once per process: spin, signals, threads, address space, loopback). It imports the
library, never the tools.
"""
