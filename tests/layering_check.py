#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked on the #include lines of the source tree.

    python3 tests/layering_check.py [SOURCE_DIR]     exit 0 when every include keeps the rules
    python3 tests/layering_check.py --self-test      the checker finds planted violations

1. tools/ and apps/ are written like user code: they include public headers (conveyor/...), their
   own files, and generated headers, never the library's src/; the tool also includes the apps it
   runs (apps/<name>/...).
2. A folder of src/ includes only the public headers, its own files and the folders below it
   (LAYERS). src/sim is the manycore simulator's own library and includes only itself.
3. The runtime's public headers (RUNTIME_HEADERS and all they include) use no JSON library, so that
   a program using only the task runtime needs none; measurement headers may.
"""
import re
import shutil
import sys
import tempfile
from pathlib import Path

# What each folder of src/ may include besides public headers and itself, lowest layers first.
LAYERS = {
    "core": set(),
    "stream": {"core"},
    "device": set(),
    "data": {"device"},
    "backends": {"core", "stream", "device"},
    "movers": {"core"},
    "probe": {"core", "stream"},
    "runtime": {"core", "data", "device"},
    "capi": set(),
    "distributed": {"device"},
}
RUNTIME_HEADERS = ("runtime.hpp", "codelet.hpp", "data.hpp", "device.hpp", "access.hpp",
                   "error.hpp", "stats.hpp", "conveyor.h")
GENERATED = {"build_info.hpp", "cli_config.hpp", "sim_paths.hpp"}  # written by CMake into the build tree
SOURCES = ("*.cpp", "*.hpp", "*.h", "*.cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    for pattern in SOURCES:
        yield from folder.rglob(pattern)


def includes(path):
    return INCLUDE.findall(path.read_text(errors="replace"))


def check_user_code(root, folder):
    """tools/, apps/, python/: public headers, own files, generated headers (tools and python: and
    the apps)."""
    problems = []
    for f in sources(root / folder):
        for inc in includes(f):
            if inc.startswith("conveyor/") or inc in GENERATED:
                continue
            if (f.parent / inc).exists() or (root / folder / inc).exists():
                continue
            if folder in ("tools", "python") and (root / "apps" / inc).exists():
                continue
            problems.append(f"{f.relative_to(root)}: includes \"{inc}\", which is not a public "
                            "header (include/conveyor) nor its own")
    return problems


def check_library(root):
    problems = []
    src = root / "src"
    for f in sources(src):
        layer = f.relative_to(src).parts[0]
        if layer == "sim":  # its own library: includes are relative to src/sim
            for inc in includes(f):
                if not (inc.startswith("conveyor/") or (f.parent / inc).exists()
                        or (src / "sim" / inc).exists() or inc in GENERATED):
                    problems.append(f"{f.relative_to(root)}: includes \"{inc}\" from outside src/sim")
            continue
        if layer not in LAYERS:
            problems.append(f"{f.relative_to(root)}: folder src/{layer} has no place in "
                            "tests/layering_check.py's LAYERS (add it with what it may include)")
            continue
        for inc in includes(f):
            if inc.startswith("conveyor/") or inc in GENERATED or "/" not in inc:
                continue  # public, generated, or a file beside it
            target = inc.split("/")[0]
            if target == layer or target in LAYERS[layer]:
                continue
            problems.append(f"{f.relative_to(root)}: src/{layer} includes \"{inc}\" (src/{target}); "
                            f"src/{layer} may include only {sorted(LAYERS[layer]) or 'itself'}")
    return problems


def check_runtime_headers(root):
    public = root / "include" / "conveyor"
    problems = []
    for header in RUNTIME_HEADERS:
        seen, todo = set(), [header]
        while todo:
            name = todo.pop()
            if name in seen or not (public / name).exists():
                continue
            seen.add(name)
            text = (public / name).read_text(errors="replace")
            if re.search(r"#\s*include\s*<nlohmann/", text):
                problems.append(f"include/conveyor/{header}: reaches nlohmann/json through {name}; "
                                "the runtime's headers stay free of JSON")
            todo += [inc.split("/", 1)[1] for inc in INCLUDE.findall(text)
                     if inc.startswith("conveyor/")]
    return problems


def check(root):
    # python/src (the conveyor._core module) is user code too: public headers only.
    return (check_user_code(root, "tools") + check_user_code(root, "apps") +
            check_user_code(root, "python") + check_library(root) + check_runtime_headers(root))


def self_test():
    """Plants one violation of each rule in a copy of a tiny tree and expects each to be found."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for d in ("src/core", "src/data", "src/device", "tools/conveyor", "apps/qr", "src/sim/isa"):
            (root / d).mkdir(parents=True)
        (root / "src/device/driver.hpp").write_text("#pragma once\n")
        (root / "src/data/coherence.cpp").write_text('#include "device/driver.hpp"\n')  # allowed
        (root / "src/core/units.cpp").write_text('#include "data/coherence.hpp"\n')  # upward
        (root / "tools/conveyor/x.cpp").write_text('#include "runtime/runtime_impl.hpp"\n')
        (root / "apps/qr/qr.cpp").write_text('#include "conveyor/runtime.hpp"\n#include "core/md5.hpp"\n')
        (root / "src/sim/isa/decode.cpp").write_text('#include "core/units.hpp"\n')
        (root / "include/conveyor").mkdir(parents=True)
        (root / "include/conveyor/runtime.hpp").write_text('#include "conveyor/data.hpp"\n')
        (root / "include/conveyor/data.hpp").write_text("#include <nlohmann/json.hpp>\n")
        found = check(root)
        expected = ["src/core/units.cpp", "tools/conveyor/x.cpp", "apps/qr/qr.cpp",
                    "src/sim/isa/decode.cpp", "include/conveyor/runtime.hpp",
                    "include/conveyor/data.hpp"]
        missing = [e for e in expected if not any(p.startswith(e) for p in found)]
        extra = [p for p in found if not any(p.startswith(e) for e in expected)]
        if missing or extra:
            print("self-test failed: missed", missing, "wrongly flagged", extra)
            return 1
        print(f"self-test: {len(found)} planted violations found, nothing else")
        return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    problems = check(root)
    for p in problems:
        print(p)
    files = sum(1 for d in ("src", "tools", "apps", "python") for _ in sources(root / d))
    print(f"layering: {files} files, {len(problems)} include(s) breaking the rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
