#!/usr/bin/env bash
# Installs what Conveyor needs to build, test and plot on Debian/Ubuntu. Idempotent: a package that is
# already installed is skipped, so a second run does nothing and needs no network.
#   scripts/setup-deps.sh            build + test dependencies
#   scripts/setup-deps.sh --bench    also the peers that bench/ compares against
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libhwloc-dev libnuma-dev
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
  # CLBlast: the BLAS-shaped parts of the apps' OpenCL kernels (optional: CONVEYOR_WITH_CLBLAST)
  libclblast-dev
  libopenblas-dev liblapacke-dev
  libopenmpi-dev openmpi-bin
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  python3-matplotlib python3-dev
  # clang and its compiler-rt (libclang_rt.fuzzer, the sanitizers) for the `asan` preset's
  # libFuzzer harnesses (scripts/fuzz.sh); bookworm's clang is 14.
  clang libclang-rt-14-dev
)
# memkind exists only on x86-64 Debian; it is optional (the HBM tier also works through NUMA nodes).
[ "$(uname -m)" = x86_64 ] && packages+=(libmemkind-dev)
# libaccel-config configures Intel DSA work queues (the `dsa` mover); optional, x86-64 only.
[ "$(uname -m)" = x86_64 ] && packages+=(libaccel-config-dev)
[ "${1:-}" = --bench ] && packages+=(likwid starpu-examples hyperfine libscalapack-openmpi-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-deps: missing packages: ${missing[*]}" >&2
    echo "setup-deps: run as root (or with sudo) to install them" >&2
    exit 1
  fi
  echo "setup-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# `conveyor plot` runs the python3 first on PATH; it may not be Debian's (pyenv, venv), so make sure that
# one can import matplotlib too.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "setup-deps: installing matplotlib for $(command -v python3)"
  python3 -m pip install -q matplotlib 2>/dev/null ||
    python3 -m pip install -q --break-system-packages matplotlib
fi
# The Python package (docs/python.md), for that python3 too: nanobind and scikit-build-core build it,
# NumPy and pytest test it (`make test`). Each is an import name and its pip name.
python_missing=()
for module in nanobind:nanobind scikit_build_core:scikit-build-core numpy:numpy pytest:pytest; do
  python3 -c "import ${module%%:*}" 2>/dev/null || python_missing+=("${module#*:}")
done
if [ ${#python_missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${python_missing[*]} for $(command -v python3)"
  python3 -m pip install -q "${python_missing[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${python_missing[@]}"
fi
echo "setup-deps: all dependencies present"
