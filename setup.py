import json
import os
import re
import shutil
import subprocess
import sys
from glob import glob

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

package_name = 'urdf_state_py'
share = os.path.join('share', package_name)


def _files(pattern):
    """Regular files matching ``pattern`` (relative to this file), sorted."""
    return sorted(p for p in glob(pattern, recursive=True) if os.path.isfile(p))


def _tree(folder):
    """data_files entries for every file below ``folder``, keeping subfolders.

    Works when the folder is empty or absent (then it contributes nothing).
    """
    by_dir = {}
    for path in _files(os.path.join(folder, '**', '*')):
        by_dir.setdefault(os.path.dirname(path), []).append(path)
    return [(os.path.join(share, d), files) for d, files in sorted(by_dir.items())]


NATIVE_SRC = os.path.join('urdf_state_py', 'node', 'tf_path', '_native')
HERE = os.path.dirname(os.path.abspath(__file__))


def _web_libraries():
    """(library, path) of every npm file the 3D view serves, as web/assets.json lists them
    (none without that file)."""
    try:
        with open(os.path.join('web', 'assets.json'), encoding='utf-8') as f:
            libraries = json.load(f)['libraries']
    except FileNotFoundError:
        return []
    return [(library, path) for library, paths in sorted(libraries.items()) for path in paths]


def _npm_ci_when_missing(files):
    """True when ``files`` exist, after running ``npm ci`` (package-lock.json) if some did not.

    A clean clone has no node_modules: a plain colcon build or pip install must still
    produce a working 3D view, so the build brings the libraries in itself. Without npm
    (or with URDF_STATE_BUILD_WEB=0) the rest of the package builds and the view says
    what to install.
    """
    if all(os.path.isfile(f) for f in files):
        return True
    npm = shutil.which('npm')
    if os.environ.get('URDF_STATE_BUILD_WEB', '1') == '0' or npm is None:
        print('urdf_state_py: the 3D view\'s JavaScript libraries are not installed '
              '(URDF_STATE_BUILD_WEB=0 or no npm): install Node.js and npm, then rebuild; '
              'everything else works', file=sys.stderr)
        return False
    print('urdf_state_py: npm ci (three.js, urdf-loader for the 3D view)', file=sys.stderr)
    subprocess.run([npm, 'ci', '--no-audit', '--no-fund', '--loglevel=error'], cwd=HERE,
                   check=False, stdout=sys.stderr)
    return all(os.path.isfile(f) for f in files)


def _web_data_files():
    """The page (web/) and, when npm could provide them, its libraries under web/lib/."""
    sources = {(library, path): os.path.join('node_modules', library, path)
               for library, path in _web_libraries()}
    entries = _tree('web')
    if not _npm_ci_when_missing(sources.values()):
        return entries
    by_dir = {}
    for (library, path), source in sources.items():
        target = os.path.join(share, 'web', 'lib', library, os.path.dirname(path))
        by_dir.setdefault(target, []).append(source)
    return entries + sorted(by_dir.items())


def _package_version(prefix, package):
    """<version> of ``prefix/share/package/package.xml``, or 'unknown'."""
    try:
        with open(os.path.join(prefix, 'share', package, 'package.xml'), encoding='utf-8') as f:
            found = re.search(r'<version>\s*([^<\s]+)\s*</version>', f.read())
    except OSError:
        return 'unknown'
    return found.group(1) if found else 'unknown'


def _ros_prefix():
    """The ROS 2 install prefix holding rcl's headers and library: this Python's
    prefix (a venv with the PyPI wheels) or one of AMENT_PREFIX_PATH (a sourced distro)."""
    candidates = [sys.prefix] + os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    for prefix in filter(None, candidates):
        if (os.path.isfile(os.path.join(prefix, 'include', 'rcl', 'rcl', 'version.h'))
                and glob(os.path.join(prefix, 'lib', 'librcl.*'))):
            return prefix
    return None


def _native_extensions():
    """The native hot path, when rcl's headers are here (else none: the Python path serves).

    URDF_STATE_BUILD_NATIVE=0 skips it. What it was built against (the rcl and
    rmw versions, the prefix) is compiled in: native.py compares that with the
    rcl and rmw loaded at run time and never uses a build for another distro.
    """
    prefix = _ros_prefix()
    if os.environ.get('URDF_STATE_BUILD_NATIVE', '1') == '0' or prefix is None:
        print('urdf_state_py: native hot path not built (URDF_STATE_BUILD_NATIVE=0 or no rcl '
              'headers found); the Python hot path serves joint_states', file=sys.stderr)
        return []
    include = os.path.join(prefix, 'include')
    lib = os.path.join(prefix, 'lib')
    built = {key: _package_version(prefix, key) for key in ('rcl', 'rmw')}
    built['prefix'] = os.path.realpath(prefix)
    return [Extension(
        'urdf_state_py.node.tf_path._urdf_state_native',
        sources=sorted(glob(os.path.join(NATIVE_SRC, '*.c'))),
        include_dirs=[include] + sorted(glob(os.path.join(include, '*'))),
        library_dirs=[lib], runtime_library_dirs=[lib], libraries=['rcl', 'rmw', 'rcutils', 'sensor_msgs__rosidl_typesupport_c', 'dl', 'm'],
        define_macros=[(f'URDF_STATE_BUILT_{k.upper()}', '"%s"' % v) for k, v in built.items()
                       if k != 'rcl'],
        # -ffp-contract=off: no fused multiply-add, so the loop rounds as numpy does.
        extra_compile_args=['-std=c11', '-O2', '-Wall', '-Wextra', '-Werror=vla',
                            '-ffp-contract=off', '-pthread'],
        extra_link_args=['-pthread'],
    )]


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: without a compiler the Python path serves."""

    def run(self):
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - distutils raises several unrelated types
            self._skipped(err)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as err:  # noqa: BLE001
            self._skipped(err)

    @staticmethod
    def _skipped(err):
        print(f'urdf_state_py: native hot path not built ({err}); the Python hot path serves '
              'joint_states', file=sys.stderr)


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    # the container's Fast DDS profile (node/process/middleware_memory.py)
    package_data={'urdf_state_py.node.process': ['container_fastdds.xml']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        (share, ['package.xml']),
        (os.path.join(share, 'launch'), _files('launch/*')),
        (os.path.join(share, 'config'), _files('config/*')),
    ] + _tree('robots') + _web_data_files(),
    install_requires=['setuptools'],
    ext_modules=_native_extensions(),
    cmdclass={'build_ext': OptionalBuildExt},
    zip_safe=False,
    maintainer='urdf_state_py maintainers',
    maintainer_email='maintainer@example.com',
    description='Drop-in Python replacement for robot_state_publisher.',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            'urdf_state = urdf_state_py.node.state_publisher:main',
            'urdf_state_container = urdf_state_py.node.process.container:main',
            'urdf_state_demo = urdf_state_py.tools.demo:main',
            'urdf_state_bench = urdf_state_py.tools.bench:main',
            'urdf_state_check = urdf_state_py.tools.cli:main',
        ],
        # `ros2 urdf ...` (used where ros2cli is installed; harmless without it).
        'ros2cli.command': [
            'urdf = urdf_state_py.tools.ros2urdf.command:UrdfCommand',
        ],
        'ros2cli.extension_point': [
            'urdf_state_py.verb = urdf_state_py.tools.ros2urdf.verb:VerbExtension',
        ],
        'urdf_state_py.verb': [
            f'{name} = urdf_state_py.tools.ros2urdf.verb:{name.capitalize()}Verb'
            for name in ('check', 'tree', 'fk', 'parsers', 'status', 'view')
        ],
        'urdf_state_py.parsers': [
            'urdf = urdf_state_py.core.parsers.urdf_xml:UrdfXmlParser',
            'xacro = urdf_state_py.core.parsers.xacro_parser:XacroParser',
            # Not built in: registered the way a third-party plugin is (README, "Parser plugins").
            'urdf_parser_py = urdf_state_py.core.parsers.urdfdom_py:UrdfParserPyParser',
        ],
    },
)
