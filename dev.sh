#!/usr/bin/env bash
# Developer entry point for urdf_state_py. Sets up whatever is missing, then runs
# the requested command. Usage:
#   ./dev.sh demo  [args]       run the demo (python -m urdf_state_py.tools.demo)
#   ./dev.sh test  [pytest args] run the test suite (python -m pytest test/)
#   ./dev.sh bench [args]       run the benchmark (python -m urdf_state_bench, bench/:
#                               not installed with the package)
#   ./dev.sh setup              only set up the environment
#   ./dev.sh shell              interactive bash inside the environment (on a running
#                               demo's ROS_DOMAIN_ID; the console scripts on PATH)
#   ./dev.sh python [args]      run python inside the environment
# URDF_STATE_DISTRO=jazzy|kilted picks the ROS 2 wheels (default jazzy, the LTS).
#
# Without a sourced ROS 2 distro, .venv/<distro> gets that distro's ROS 2 wheels
# from PyPI (pinned in requirements/ros-<distro>.txt) plus tf2_msgs and
# composition_interfaces built from ros_interfaces/ against them; each distro
# keeps its own venv, so switching is instant after its first set-up. With a sourced distro (ROS_DISTRO set and
# `import rclpy, tf2_msgs` works) the distro is used and only missing pure-Python
# extras go into .venv/ros-$ROS_DISTRO (--system-site-packages); there
# URDF_STATE_DISTRO, if set, must name the sourced distro.
# All DDS traffic stays on loopback.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The distros whose wheels are on PyPI (one requirements/ros-<name>.txt each).
WHEEL_DISTROS=(jazzy kilted)
DEFAULT_DISTRO=jazzy
VENV=""    # .venv/<distro> or .venv/ros-<sourced distro>, chosen by setup_env

log() { printf '[dev.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
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
  "mujoco=mujoco"            # test-only: the reference kinematics of the mjcf parser
  "selenium=selenium"        # test-only: drives headless Chromium for the 3D view's tests
  "PIL=pillow"               # test-only: reads the view's screenshots
  # test-only: real robots with their STL/DAE meshes (data only, no Python module: pip
  # is asked once per change of this list and sees it installed)
  "example_robot_data=example-robot-data"
)

# The ROS 2 wheels (no-distro mode only): one pinned list per distro.
wheel_requirements() { printf '%s\n' "$ROOT/requirements/ros-$1.txt"; }

extras_pip() { local e; for e in "${EXTRAS[@]}"; do printf '%s\n' "${e#*=}"; done; }

# ---------------------------------------------------------------- stamps
hash_str() { sha256sum | cut -c1-32; }
stamp_ok() { [[ -f "$VENV/.stamp-$1" && "$(cat "$VENV/.stamp-$1")" == "$2" ]]; }
stamp_set() { printf '%s\n' "$2" > "$VENV/.stamp-$1"; }

# What changes the editable install (metadata, entry points, the native
# extension's C sources: it is built in place). data_files need
# no re-install: they are symlinked into $VENV/share (see setup_package).
package_hash() {
  (cd "$ROOT" && cat setup.py setup.cfg package.xml urdf_state_py/node/tf_path/_native/*) | hash_str
}

interfaces_hash() {
  (
    cd "$ROOT/ros_interfaces"
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

# (Re)create the venv when missing or when its mode (distro/wheels) changed.
ensure_venv() {
  local mode="$1" py
  if [[ -x "$VENV/bin/python" ]] && stamp_ok mode "$mode"; then return; fi
  if [[ -e "$VENV/bin" ]]; then
    log "environment mode changed to '$mode': recreating ${VENV#"$ROOT/"}"
    find "$VENV" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  fi
  mkdir -p "$VENV"
  py="$(pick_python "$mode")"
  if [[ "$mode" == distro ]]; then
    log "creating ${VENV#"$ROOT/"} (--system-site-packages, on top of ROS $ROS_DISTRO)"
    "$py" -m venv --system-site-packages "$VENV"
  else
    local ver
    ver="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    [[ "$ver" == 3.11 ]] || log "warning: $py is Python $ver; the ROS 2 ${mode#wheels-} wheels target 3.11"
    log "setting up ${VENV#"$ROOT/"} (first run, ~1-2 min): ROS 2 ${mode#wheels-} wheels from PyPI + interface builds"
    "$py" -m venv "$VENV"
  fi
  stamp_set mode "$mode"
}

# Before the per-distro venvs, .venv itself was the (Kilted) venv: clear it out
# once, keeping the per-distro venvs that live inside it now.
migrate_flat_venv() {
  [[ -f "$ROOT/.venv/pyvenv.cfg" ]] || return 0
  log "moving to per-distro venvs: removing the old single .venv (now .venv/<distro>)"
  local keep=(! -name .setup.lock ! -name 'ros-*') d
  for d in "${WHEEL_DISTROS[@]}"; do keep+=(! -name "$d"); done
  find "$ROOT/.venv" -mindepth 1 -maxdepth 1 "${keep[@]}" -exec rm -rf {} +
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

# The interface packages PyPI lacks (ros_interfaces/, see its README), built in this order.
INTERFACES=(tf2_msgs composition_interfaces)

build_interface() {
  local name="$1" src="$ROOT/ros_interfaces/$1" bld="$VENV/build/$1"
  ensure_build_tools
  log "building $name (ros_interfaces/$name) into ${VENV#"$ROOT/"}"
  rm -rf "$bld"; mkdir -p "$bld"
  if ! (cd "$bld" && AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" \
          cmake "$src" -DCMAKE_INSTALL_PREFIX="$VENV" -DPython3_EXECUTABLE="$VENV/bin/python" \
                -DBUILD_TESTING=OFF >"$bld/cmake.log" 2>&1 \
        && AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" \
          make -j"$(nproc 2>/dev/null || echo 2)" install >"$bld/make.log" 2>&1); then
    tail -n 30 "$bld/cmake.log" "$bld/make.log" >&2 2>/dev/null || true
    die "$name build failed (logs: $bld/cmake.log, $bld/make.log)"
  fi
}

setup_wheels() {
  local distro="$1" wheels h
  wheels="$(wheel_requirements "$distro")"
  ensure_venv "wheels-$distro"
  h="$({ cat "$wheels"; extras_pip; } | hash_str)"
  if ! stamp_ok requirements "$h"; then
    log "installing ROS 2 $distro wheels (${wheels#"$ROOT/"}) and Python dependencies (pip)"
    mapfile -t reqs < <(extras_pip)
    pip_install -r "$wheels" "${reqs[@]}"
    stamp_set requirements "$h"
  fi
  rewrite_cmake_paths
  local ih; ih="$(interfaces_hash "$h")"
  if ! stamp_ok interfaces "$ih"; then
    local name
    for name in "${INTERFACES[@]}"; do build_interface "$name"; done
    "$VENV/bin/python" -c 'from tf2_msgs.msg import TFMessage
from composition_interfaces.srv import LoadNode' \
      || die "the interface packages were built but cannot be imported"
    stamp_set interfaces "$ih"
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
      log "installing missing Python extras into ${VENV#"$ROOT/"}: ${missing[*]}"
      for e in "${missing[@]}"; do
        pip_install -c "$VENV/.constraints.txt" "$e" \
          || log "warning: could not install '$e' next to the distro's numpy; tests needing it skip"
      done
    fi
    stamp_set requirements "$h"
  fi
}

# The native extension is built in place: one file in the tree for all venvs of
# the same Python. Rebuild it when the one there was built for another ROS 2 (its
# import-time check would refuse it and the Python decoder would serve), also
# under URDF_STATE_NATIVE=off (that switches the node only; the native tests still
# load it). A failed build stops here with the compiler's message, as `colcon build`
# does, unless URDF_STATE_BUILD_NATIVE=0 (then the node runs without it).
native_for_this_venv() {
  [[ "${URDF_STATE_BUILD_NATIVE:-1}" == 0 ]] && return
  "$VENV/bin/python" -c 'import sys; from urdf_state_py.node.tf_path import native
sys.exit("not used" in native.loadable().reason)' >/dev/null 2>&1 && return
  log "building the native extension for ${VENV#"$ROOT/"}"
  mkdir -p "$VENV/build"
  (cd "$ROOT" && "$VENV/bin/python" setup.py -q build_ext --inplace --force \
     --build-temp "$VENV/build/native" >"$VENV/build/native.log" 2>&1) || {
    tail -n 40 "$VENV/build/native.log" >&2
    die "the native extension failed to build (log: $VENV/build/native.log);" \
        "URDF_STATE_BUILD_NATIVE=0 runs without it"
  }
}

# The benchmark's C floor (bench/floor: the module urdf_state_floor, not part of the
# package) into $VENV/bench, which is on PYTHONPATH with bench/ itself. Without it the
# benchmark runs without its C floor rows.
floor_for_this_venv() {
  local h; h="$(cat "$ROOT/bench/setup.py" "$ROOT"/bench/floor/* | hash_str)"
  stamp_ok floor "$h" && compgen -G "$VENV/bench/urdf_state_floor*.so" >/dev/null && return
  log "building the benchmark's C floor (bench/floor) into ${VENV#"$ROOT/"}/bench"
  mkdir -p "$VENV/build"
  if (cd "$ROOT/bench" && "$VENV/bin/python" setup.py -q build_ext --force \
        --build-lib "$VENV/bench" --build-temp "$VENV/build/floor" >"$VENV/build/floor.log" 2>&1); then
    stamp_set floor "$h"
  else
    tail -n 20 "$VENV/build/floor.log" >&2
    log "warning: the C floor was not built (log: $VENV/build/floor.log)"
  fi
}

# The 3D view's JavaScript libraries (three.js, urdf-loader): the step a user runs
# (`view --install-assets`: the versions package-lock.json pins, sha512-checked) into
# $VENV/web_lib, again when the lockfile or the list of files changes. Without network
# everything else works; `view` then says what to run.
setup_web_assets() {
  local h; h="$(cat "$ROOT/package-lock.json" "$ROOT/web/assets.json" | hash_str)"
  [[ -f "$VENV/web_lib/installed.json" ]] && stamp_ok web "$h" && return 0
  # after a failure (no network), tried again by `./dev.sh setup` only, not by every command
  [[ "$cmd" != setup ]] && stamp_ok web-failed "$h" && return 0
  log "installing the 3D view's JavaScript libraries (view --install-assets)"
  if (cd "$ROOT" && URDF_STATE_WEB_LIB="$VENV/web_lib" "$VENV/bin/python" -m urdf_state_py \
        view --install-assets >&2); then
    stamp_set web "$h"
  else
    stamp_set web-failed "$h"
    log "warning: the 3D view's libraries could not be installed (./dev.sh setup tries again);" \
        "view says what to run"
  fi
}

setup_package() {
  local h; h="$(package_hash)"
  stamp_ok package "$h" && { native_for_this_venv; floor_for_this_venv; return; }
  log "installing urdf_state_py (editable) into ${VENV#"$ROOT/"}"
  (cd "$ROOT" && pip_install --no-deps --no-build-isolation -e .)
  # Editable installs skip data_files: mirror them as symlinks (like colcon
  # --symlink-install) so ament_index finds share/urdf_state_py via
  # AMENT_PREFIX_PATH=$VENV and new launch/config/robot files show up at once.
  local share="$VENV/share/urdf_state_py" idx="$VENV/share/ament_index/resource_index/packages"
  mkdir -p "$share" "$idx"
  ln -sfn "$ROOT/resource/urdf_state_py" "$idx/urdf_state_py"
  ln -sfn "$ROOT/package.xml" "$share/package.xml"
  local d; for d in launch config robots; do ln -sfn "$ROOT/$d" "$share/$d"; done
  stamp_set package "$h"
  native_for_this_venv
  floor_for_this_venv
}

# Which ROS 2 to use: "distro" (a sourced one) or "wheels" (URDF_STATE_DISTRO's
# PyPI wheels); sets MODE, DISTRO and VENV.
choose_env() {
  local want="${URDF_STATE_DISTRO:-}"
  if [[ -n "${ROS_DISTRO:-}" ]] && python3 -c 'import rclpy, tf2_msgs' >/dev/null 2>&1; then
    [[ -z "$want" || "$want" == "$ROS_DISTRO" ]] \
      || die "URDF_STATE_DISTRO=$want, but ROS 2 $ROS_DISTRO is sourced (its rclpy is used): unset URDF_STATE_DISTRO or open a shell without the distro"
    MODE=distro DISTRO="$ROS_DISTRO" VENV="$ROOT/.venv/ros-$ROS_DISTRO"
    return
  fi
  want="${want:-$DEFAULT_DISTRO}"
  [[ -f "$(wheel_requirements "$want")" ]] \
    || die "URDF_STATE_DISTRO=$want: no PyPI wheels for it; choose one of: ${WHEEL_DISTROS[*]}"
  MODE=wheels DISTRO="$want" VENV="$ROOT/.venv/$want"
}

# A PATH-like list without this repository's venvs (a shell of another distro's
# venv must not leak its libraries or packages into this one).
without_our_venvs() {
  local out="" p IFS=:
  for p in $1; do
    [[ -z "$p" || "$p" == "$ROOT/.venv/"* ]] && continue
    out="${out:+$out:}$p"
  done
  printf '%s' "$out"
}

setup_env() {
  choose_env
  # Also for the set-up: setup.py finds rcl, rmw and rcutils (the native build) in the index.
  AMENT_PREFIX_PATH="$(without_our_venvs "${AMENT_PREFIX_PATH:-}")"
  export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
  mkdir -p "$ROOT/.venv"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$ROOT/.venv/.setup.lock"
    flock 9
  fi
  migrate_flat_venv
  if [[ "$MODE" == distro ]]; then setup_distro; else setup_wheels "$DISTRO"; fi
  setup_package
  setup_web_assets
  if command -v flock >/dev/null 2>&1; then exec 9>&-; fi

  # ---- runtime environment: loopback only, own domain
  export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
  if [[ "${ROS_DISTRO:-}" == humble ]]; then export ROS_LOCALHOST_ONLY=1; fi
  pick_domain "${1:-}"
  export ROS_DOMAIN_ID
  if [[ "$MODE" == wheels && -z "${RMW_IMPLEMENTATION:-}" ]]; then
    export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
  fi
  # The distro this environment runs (tests and tools report it; not ROS_DISTRO,
  # which would make a nested ./dev.sh take the wheels for a sourced distro).
  export URDF_STATE_DISTRO="$DISTRO"
  export PYTHONUNBUFFERED=1
  export URDF_STATE_WEB_LIB="$VENV/web_lib"   # where setup_web_assets installs them
  export VIRTUAL_ENV="$VENV"
  # the benchmark (not installed) and its C floor, for `bench` and the tests that drive it
  PYTHONPATH="$(without_our_venvs "${PYTHONPATH:-}")"
  export PYTHONPATH="$ROOT/bench:$VENV/bench${PYTHONPATH:+:$PYTHONPATH}"
  # bin: python, pip; lib/urdf_state_py: the console scripts (where `ros2 run` looks, setup.cfg)
  export PATH="$VENV/bin:$VENV/lib/urdf_state_py:$(without_our_venvs "$PATH")"
  PY="$VENV/bin/python"
}

# The running demo's domain, so that a second terminal sees it: "<domain> <pid>" (the
# demo's python keeps dev.sh's pid: exec).
DEMO_DOMAIN_FILE="$ROOT/.venv/demo-domain"

# ROS_DOMAIN_ID when the user set none: "join" (shell, python) takes a running demo's,
# else a random one; "demo" also records it for the terminals that join.
pick_domain() {
  [[ -n "${ROS_DOMAIN_ID:-}" ]] && return
  local id pid
  if [[ "$1" == join && -f "$DEMO_DOMAIN_FILE" ]] && read -r id pid < "$DEMO_DOMAIN_FILE" \
      && [[ "$id" =~ ^[0-9]+$ && "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    ROS_DOMAIN_ID=$id
    log "ROS_DOMAIN_ID=$id: joining the demo running in another terminal (pid $pid)"
    return
  fi
  ROS_DOMAIN_ID=$((RANDOM % 100 + 1))
  if [[ "$1" == demo ]]; then
    printf '%s %s\n' "$ROS_DOMAIN_ID" "$$" > "$DEMO_DOMAIN_FILE"
    log "ROS_DOMAIN_ID=$ROS_DOMAIN_ID (random; set ROS_DOMAIN_ID to choose). A second terminal joins this demo with ./dev.sh shell, or: export ROS_DOMAIN_ID=$ROS_DOMAIN_ID ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"
  else
    log "ROS_DOMAIN_ID=$ROS_DOMAIN_ID (random for this run; set ROS_DOMAIN_ID to override)"
  fi
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
  demo)  setup_env demo; run_module_or_placeholder urdf_state_py.tools.demo "$@" ;;
  bench) setup_env; exec "$PY" -m urdf_state_bench "$@" ;;
  test)
    setup_env
    # Default to the whole suite unless the caller names paths/node ids.
    default=("$ROOT/test")
    for a in "$@"; do
      if [[ "$a" != -* && ( -e "$a" || "$a" == *::* ) ]]; then default=(); break; fi
    done
    exec "$PY" -m pytest --rootdir="$ROOT" "${default[@]}" "$@"
    ;;
  setup) setup_env; log "environment ready: ${VENV#"$ROOT/"} (ROS 2 $DISTRO, $MODE)" ;;
  shell)
    setup_env join
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
  python) setup_env join; exec "$PY" "$@" ;;
  ""|-h|--help|help) usage; [[ -n "$cmd" ]] ;;
  *) usage; die "unknown command: $cmd" ;;
esac
