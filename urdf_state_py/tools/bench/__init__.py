"""Benchmarks of urdf_state_py: FK micro-benchmark, node end to end, node memory.

``python -m urdf_state_py.tools.bench [--quick] [--only fk|e2e|mem] [--robots ...]``
(or ``urdf_state_bench``, or ``./dev.sh bench``). Not part of the test suite.
See :mod:`urdf_state_py.tools.bench.cli` for the options.
"""


def main(argv=None) -> int:
    from .cli import main as _main
    return _main(argv)
