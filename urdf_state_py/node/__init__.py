"""The ROS 2 node: the thin rclpy adapter around :mod:`urdf_state_py.core` and its hot path.

Everything that imports rclpy to do ``robot_state_publisher``'s job lives here:
parameters, the ``joint_states`` subscription and its raw decoder, the fast path,
pre-serialized /tf publishing and the spin loop. It imports the library, never the tools.
"""
