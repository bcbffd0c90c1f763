"""Tools around the node and the library: the demo, the terminal TF viewer, the CLI and the benchmark.

Tools may import :mod:`urdf_state_py.node` and :mod:`urdf_state_py.core`; neither imports a tool.
"""
