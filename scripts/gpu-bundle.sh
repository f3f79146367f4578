#!/usr/bin/env bash
# Packs a CUDA build of Conveyor, with the shared libraries it needs, for a GPU machine that has the
# NVIDIA driver and the CUDA toolkit but none of Conveyor's Debian packages (and no package registry):
# the binaries of build/<preset> that scripts/gpu-check.sh runs, every library they load that is not
# part of the C runtime or the CUDA toolkit, and Open MPI's runtime (mpirun and its plugins).
#
#   scripts/gpu-bundle.sh [--preset release] [--out gpu-bundle/conveyor-gpu.tar.xz] [--peer DIR]
#
# --peer DIR adds the executables in DIR (a GPU STREAM peer built here, say) under peer/.
# On the GPU machine, from a copy of this repository: tar xJf the bundle at the repository root, then
# run scripts/gpu-check.sh, which finds bundle/ and sets the paths. docs/gpu.md has the whole recipe.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release out=gpu-bundle/conveyor-gpu.tar.xz peer=
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-bundle: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
build=build/$preset
[ -x "$build/tools/conveyor/conveyor" ] || { echo "gpu-bundle: no build in $build (cmake --preset $preset && cmake --build $build)" >&2; exit 2; }
# A CUDA build names cuBLAS in its binaries (opened at run time: the GPU machine's toolkit has it).
grep -qa libcublas "$build/tools/conveyor/conveyor" ||
  echo "gpu-bundle: warning: $build was built without CUDA (nvcc not found at configure time?)" >&2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/bundle
mkdir -p "$root/lib" "$root/bin" "$root/sysroot"

# The build's executables, at their paths in the build tree (the tests find each other there).
binaries=()
while IFS= read -r f; do binaries+=("$f"); done < <(
  find "$build" -type f -perm -u+x \( -path '*/CMakeFiles/*' -prune -o -print \) |
    grep -v -E '/(CMakeFiles|_deps|test-cache)/|\.(sh|py|cmake)$' | grep -v '/compiler_depend')
for f in "${binaries[@]}"; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$f" "$stage/$f"
done

# CTest's files, so that `ctest --test-dir build/<preset>` runs there; the tests hold this checkout's
# absolute path, which scripts/gpu-check.sh links to the copy it runs in.
while IFS= read -r f; do
  mkdir -p "$stage/$(dirname "$f")"
  cp "$f" "$stage/$f"
done < <(find "$build" \( -name CTestTestfile.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake' \) \
           -not -path '*/CMakeFiles/*')
echo "$PWD" > "$root/source_dir"

# Open MPI's runtime, mirrored at its absolute paths (its plugins and help files are found there).
mpi_paths=()
if command -v orterun > /dev/null; then
  for p in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi \
           /etc/openmpi; do
    [ -e "$p" ] && mpi_paths+=("$p")
  done
  for p in "${mpi_paths[@]}"; do
    mkdir -p "$root/sysroot$(dirname "$p")"
    cp -a "$p" "$root/sysroot$p"
  done
  cp "$(command -v orterun)" "$root/bin/mpirun"
  [ -x /usr/bin/orted ] && cp /usr/bin/orted "$root/bin/orted"
fi

# Every shared library those load, but the C runtime (the GPU machine's is as new or newer), the
# NVIDIA driver and the CUDA toolkit (the GPU machine has its own, matching its driver).
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread\.so|libstdc\+\+|libgcc_s|libcuda\.so|libnvidia|libcu|libnv)'
objects=("${binaries[@]/#/$stage/}" "$root/bin/"*)
while IFS= read -r f; do objects+=("$f"); done < <(find "$root/sysroot" -name '*.so*' -type f)
declare -A seen
for o in "${objects[@]}"; do
  [ -f "$o" ] || continue
  while read -r name _ path _; do
    [ -n "${path:-}" ] && [ -f "$path" ] || continue
    [[ "$name" =~ $skip ]] && continue
    [ -n "${seen[$name]:-}" ] && continue
    seen[$name]=1
    cp -L "$path" "$root/lib/$name"
  done < <(ldd "$o" 2>/dev/null | grep '=> /')
done
# Open MPI's own plugins dlopen these by name; the OpenCL loader reads /etc/OpenCL/vendors there.
for lib in /usr/lib/x86_64-linux-gnu/libOpenCL.so.1; do
  [ -f "$lib" ] && cp -L "$lib" "$root/lib/"
done

# The Python module's ingredients (bundle/python): the machine's Python is another version than the
# build machine's, so scripts/python-module builds conveyor._core there, against the build's static
# libraries, with the link line and definitions this build used for its own module.
module=$(ls "$build"/python/conveyor/_core.*.so 2> /dev/null | head -n 1)
if [ -n "$module" ]; then
  py=$root/python
  mkdir -p "$py/lib" "$py/include"
  for dir in fmt nlohmann; do [ -d /usr/include/$dir ] && cp -a /usr/include/$dir "$py/include/"; done
  (cd "$build" && ninja -t commands "${module#$build/}" | grep -F 'python/src/' | head -n 1) | tr ' ' '\n' |
    grep '^-D' | grep -v '_EXPORTS$' | sed 's/^-D//' > "$py/compile-definitions.txt"
  (cd "$build" && ninja -t commands "${module#$build/}" | tail -n 1) | tr ' ' '\n' |
    while read -r word; do
      case "$word" in
        */libnanobind*.a) ;;  # built there for its Python
        /usr/local/cuda*/lib*.a | /usr/local/cuda*/lib*.so*)  # the machine's own CUDA toolkit
          name=$(basename "$word"); name=${name#lib}; echo "-l${name%%.*}" ;;
        /*.a) name=$(basename "$word"); echo "-l${name#lib}" | sed 's/\.a$//' ;;  # librt.a
        *.a) cp "$build/$word" "$py/lib/"; basename "$word" ;;
        /*.so*)
          soname=$(objdump -p "$word" | awk '/SONAME/ {print $2}')
          [ -f "$root/lib/$soname" ] || cp -L "$word" "$root/lib/$soname"
          echo "$soname" ;;
        -l*) echo "$word" ;;
      esac
    done > "$py/link-libraries.txt"
fi

if [ -n "$peer" ]; then
  mkdir -p "$stage/peer"
  find "$peer" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/peer/" \;
fi

mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - . | xz -T0 -6 > "$out"
echo "gpu-bundle: $out, $(du -h "$out" | cut -f1) ($(ls "$root/lib" | wc -l) libraries, ${#binaries[@]} executables)"
