"""``ros2 urdf``: the CLI's commands as a ros2cli extension (registered in setup.py).

ros2cli loads these classes through entry points and needs nothing more than
their ``add_arguments`` and ``main`` methods, so they do not subclass
ros2cli's bases: this package imports without ros2cli (the PyPI-wheels
environment, a ROS-free venv) and only ``UrdfCommand.add_arguments``, which
ros2cli alone calls, imports it.
"""
