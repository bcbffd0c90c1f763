"""The ROS-free library: the kinematic model, its parsers and registry, and vectorised kinematics.

Nothing below this package imports rclpy or a message package (a test proves it),
so it runs in any Python with numpy: notebooks, offline tools, other middlewares.
"""
