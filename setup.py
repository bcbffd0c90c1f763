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

from glob import glob
import os
import re
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

package_name = 'urdf_state_py'
share = os.path.join('share', package_name)


def _files(pattern):
    """Regular files matching ``pattern`` (relative to this file), sorted."""
    return sorted(p for p in glob(pattern, recursive=True) if os.path.isfile(p))


def _tree(folder):
    """
    data_files entries for every file below ``folder``, keeping subfolders.

    Works when the folder is empty or absent (then it contributes nothing).
    """
    by_dir = {}
    for path in _files(os.path.join(folder, '**', '*')):
        by_dir.setdefault(os.path.dirname(path), []).append(path)
    return [(os.path.join(share, d), files) for d, files in sorted(by_dir.items())]


NATIVE_SRC = os.path.join('urdf_state_py', 'node', 'tf_path', '_native')


def _web_data_files():
    """
    Return the 3D view's page (web/) and the lockfile that pins its libraries.

    The libraries themselves (three.js, urdf-loader) are not installed by the build, which
    must work without network (a build farm): `ros2 urdf view --install-assets` fetches
    the versions package-lock.json pins, checks their sha512 and installs them for the user
    (docs/view.md).
    """
    return _tree('web') + [(os.path.join(share, 'web'), ['package-lock.json'])]


def _package_version(prefix, package):
    """<version> of ``prefix/share/package/package.xml``, or 'unknown'."""
    try:
        with open(os.path.join(prefix, 'share', package, 'package.xml'), encoding='utf-8') as f:
            found = re.search(r'<version>\s*([^<\s]+)\s*</version>', f.read())
    except OSError:
        return 'unknown'
    return found.group(1) if found else 'unknown'


#: The packages the native hot path is built against (package.xml's build_depend), and
#: the libraries of theirs it links (sensor_msgs: JointState's C type support, for the
#: subscription the extension owns).
NATIVE_DEPENDS = ('rcl', 'rmw', 'rcutils', 'rosidl_runtime_c', 'sensor_msgs')
NATIVE_LIBRARIES = ('rcl', 'rmw', 'rcutils', 'sensor_msgs__rosidl_typesupport_c')


def _native_prefixes():
    """
    Return the install prefixes of NATIVE_DEPENDS, from the ament index, or None.

    The index is a sourced distro or workspace, or the PyPI wheels' venv with
    AMENT_PREFIX_PATH set; None when one is not indexed or ament_index_python is absent
    (a pip install without ROS 2).
    """
    try:
        from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    except ImportError:
        return None
    try:
        return {name: get_package_prefix(name) for name in NATIVE_DEPENDS}
    except (PackageNotFoundError, LookupError, OSError):
        return None


def _native_extensions():
    """
    Return the native hot path's extension, built against rcl where its headers are.

    Where NATIVE_DEPENDS are all in the ament index (rcl's headers) the extension must
    build (:class:`NativeBuildExt` fails the build with the compiler's message), unless
    ``URDF_STATE_BUILD_NATIVE=0`` opts out; without them (a pip install with no ROS 2) the
    library is installed without it. The rcl and rmw versions and the prefix are compiled
    in: native.py never uses a build for another distro.
    """
    if os.environ.get('URDF_STATE_BUILD_NATIVE', '1') == '0':
        print('urdf_state_py: URDF_STATE_BUILD_NATIVE=0: the native extension is not built; '
              'the node serves joint_states in Python and says so', file=sys.stderr)
        return []
    prefixes = _native_prefixes()
    if prefixes is None:
        print(f"urdf_state_py: {', '.join(NATIVE_DEPENDS)} not in the ament index (no ROS 2): "
              'the native extension is not built', file=sys.stderr)
        return []
    prefix = prefixes['rcl']
    roots = sorted(set(prefixes.values()))
    # ROS 2 installs each package's headers in include/<package>/ (since Humble); rcl's
    # headers include those of its own dependencies, installed beside them.
    include_dirs = [d for root in roots for d in sorted(glob(os.path.join(root, 'include', '*')))]
    lib_dirs = [os.path.join(root, 'lib') for root in roots]
    built = {key: _package_version(prefix, key) for key in ('rcl', 'rmw')}
    built['prefix'] = os.path.realpath(prefix)
    return [Extension(
        'urdf_state_py.node.tf_path._urdf_state_native',
        sources=sorted(glob(os.path.join(NATIVE_SRC, '*.c'))),
        include_dirs=include_dirs,
        library_dirs=lib_dirs, runtime_library_dirs=lib_dirs,
        libraries=[*NATIVE_LIBRARIES, 'dl', 'm'],
        define_macros=[(f'URDF_STATE_BUILT_{k.upper()}', '"%s"' % v) for k, v in built.items()
                       if k != 'rcl'],
        # -ffp-contract=off: no fused multiply-add, so the loop rounds as numpy does.
        extra_compile_args=['-std=c11', '-O2', '-Wall', '-Wextra', '-Werror=vla',
                            '-ffp-contract=off', '-pthread'],
        extra_link_args=['-pthread'],
    )]


class NativeBuildExt(build_ext):
    """build_ext whose failure fails the build, naming the opt-out after the compiler's message."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception:  # distutils raises several unrelated types
            print(f'urdf_state_py: the native extension {ext.name} failed to build (the '
                  "compiler's message is above); URDF_STATE_BUILD_NATIVE=0 builds the package "
                  'without it (the node then serves joint_states in Python)', file=sys.stderr)
            raise


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(include=[package_name, package_name + '.*']),
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
    cmdclass={'build_ext': NativeBuildExt},
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
            'mjcf = urdf_state_py.core.parsers.mjcf:MjcfParser',
            # Not built in: registered the way a third-party plugin is (README, "Parser plugins").
            'urdf_parser_py = urdf_state_py.core.parsers.urdfdom_py:UrdfParserPyParser',
        ],
    },
)
