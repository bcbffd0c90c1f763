import os
from glob import glob

from setuptools import find_packages, setup

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


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        (share, ['package.xml']),
        (os.path.join(share, 'launch'), _files('launch/*')),
        (os.path.join(share, 'config'), _files('config/*')),
    ] + _tree('robots'),
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='urdf_state_py maintainers',
    maintainer_email='maintainer@example.com',
    description='Drop-in Python replacement for robot_state_publisher.',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [
            'urdf_state = urdf_state_py.node.state_publisher:main',
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
            for name in ('check', 'tree', 'fk', 'parsers', 'status')
        ],
        'urdf_state_py.parsers': [
            'urdf = urdf_state_py.core.parsers.urdf_xml:UrdfXmlParser',
            'xacro = urdf_state_py.core.parsers.xacro_parser:XacroParser',
            # Not built in: registered the way a third-party plugin is (README, "Parser plugins").
            'urdf_parser_py = urdf_state_py.core.parsers.urdfdom_py:UrdfParserPyParser',
        ],
    },
)
