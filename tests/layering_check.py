#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked on the #include lines of the source tree.

    python3 tests/layering_check.py [SOURCE_DIR]     exit 0 when every include keeps the rules
    python3 tests/layering_check.py --self-test      the checker finds planted violations

Every include is read, quoted or in angle brackets, and resolved to the folder it reaches: a
relative one ("../../src/x.hpp") against the including file, any other against the include roots
of the tree (include/, src/, src/manycore/, apps/ and the top) the way a compiler would. An include
that names no file or folder of the tree is a system or third-party header (<vector>, <CL/cl.h>),
or, quoted, one of the headers CMake writes into the build tree (GENERATED). Then:

1. The users of the public API (USERS: tools/, apps/, python/src, bench/, examples/, fuzz/) include
   public headers (include/conveyor), their own files and generated headers, never the library's
   src/; an app includes its own folder and apps/common, tools/, python/src and bench/ include the
   apps (apps/<name>/...), and fuzz/ the internal readers it fuzzes (FUZZED).
2. A folder of src/ includes only the public headers, its own files and the folders below it
   (LAYERS). src/manycore is the manycore simulator's own library and includes only itself. The
   public headers include only public headers.
3. The runtime's public headers (RUNTIME_HEADERS and all they include) use no JSON library, so that
   a program using only the task runtime needs none; measurement headers may.
"""
import os
import re
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
# The users of the public API and what each may include besides public headers and itself.
USERS = {
    "tools": {"apps"},  # the CLI runs the apps
    "apps": {"apps/common"},  # an app: its own folder and what the apps share
    "python": {"apps"},  # python/src: conveyor.linalg runs the Cholesky and the QR
    "bench": {"apps"},  # the apps' peers build the same matrices and call the same tile kernels
    "examples": set(),  # programs a user copies: public headers only
    "fuzz": set(),  # and FUZZED
}
# The internal readers of untrusted input that fuzz/'s harnesses call directly.
FUZZED = {"src/runtime/perfmodel/models.hpp", "src/device/simulated/platform.hpp",
          "src/manycore/isa/decode.hpp", "src/manycore/machine/elf.hpp"}
RUNTIME_HEADERS = ("runtime.hpp", "codelet.hpp", "data.hpp", "device.hpp", "access.hpp",
                   "error.hpp", "stats.hpp", "conveyor.h")
# Written by CMake into the build tree.
GENERATED = {"build_info.hpp", "cli_config.hpp", "manycore_paths.hpp"}
CHECKED = ("include", "src", "tools", "apps", "python/src", "bench", "fuzz", "examples")
SOURCES = ("*.cpp", "*.cc", "*.hpp", "*.h", "*.c", "*.cu", "*.cuh", "*.inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def sources(folder):
    for pattern in SOURCES:
        yield from folder.rglob(pattern)


def includes(path):
    """(quoted, name) for each #include of the file."""
    return [(q == '"', name) for q, name in INCLUDE.findall(path.read_text(errors="replace"))]


def area(rel):
    """The folder whose rules apply to a path relative to the tree: 'public', 'src/<layer>',
    'src/manycore', 'apps/<app>', or a top folder ('tools', 'python', 'bench', 'tests', ...)."""
    parts = Path(rel).parts
    if parts[:2] == ("include", "conveyor"):
        return "public"
    if parts[0] in ("src", "apps") and len(parts) > 1:
        return parts[0] + "/" + parts[1]
    return parts[0]


def resolve(root, f, quoted, name):
    """The path (relative to the tree, '/'-separated) that an include of f reaches, or None for a
    system, third-party or generated header. A name whose file is absent but whose folder is one of
    the tree's resolves to that folder."""
    manycore = area(f.relative_to(root).as_posix()) == "src/manycore"
    roots = ["src/manycore", "include", "src", "apps", "."] if manycore else \
            ["include", "src", "src/manycore", "apps", "."]
    bases = ([f.parent] if quoted else []) + [root / r for r in roots]
    for want_dir in (False, True):
        target = os.path.dirname(name) if want_dir else name
        if not target:
            continue
        for base in bases:
            path = Path(os.path.normpath(base / target))
            if path.is_dir() if want_dir else path.is_file():
                try:
                    return path.relative_to(root).as_posix()
                except ValueError:
                    return "/" + path.as_posix()  # outside the tree
    return None


def allowed(where, target):
    """Whether code in area `where` may include the resolved path `target`."""
    to = area(target)
    if to in ("public", where):
        return True
    if where == "public":
        return False
    if where.startswith("src/"):
        layer = where[len("src/"):]
        return layer in LAYERS and to.startswith("src/") and to[len("src/"):] in LAYERS[layer]
    if where == "fuzz" and target in FUZZED:
        return True
    user = "apps" if where.startswith("apps/") else where
    return any(to == may or to.startswith(may + "/") for may in USERS.get(user, set()))


def rule_of(where):
    if where == "public":
        return "public headers include only public headers"
    if where == "src/manycore":
        return "src/manycore includes only itself"
    if where.startswith("src/"):
        below = sorted(LAYERS[where[len("src/"):]])
        return f"{where} may include only {below or 'itself'} of src/"
    if where.startswith("apps/"):
        return f"{where}/ may include public headers, its own files and apps/common"
    extra = sorted(USERS.get(where, set())) + (sorted(FUZZED) if where == "fuzz" else [])
    return f"{where}/ may include public headers, its own files" + \
        (f" and {extra}" if extra else " only")


def check_includes(root):
    problems = []
    for folder in CHECKED:
        for f in sources(root / folder):
            rel = f.relative_to(root).as_posix()
            where = area(rel)
            if where.startswith("src/") and where != "src/manycore" and where[4:] not in LAYERS:
                problems.append(f"{rel}: folder {where} has no place in tests/layering_check.py's "
                                "LAYERS (add it with what it may include)")
                continue
            for quoted, name in includes(f):
                shown = f'"{name}"' if quoted else f"<{name}>"
                target = resolve(root, f, quoted, name)
                if target is None:
                    if quoted and name not in GENERATED:
                        problems.append(f"{rel}: includes {shown}, which is no file of the tree "
                                        "nor a generated header")
                    continue
                if not allowed(where, target):
                    problems.append(f"{rel}: includes {shown} ({target}); {rule_of(where)}")
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
            for _, inc in includes(public / name):
                if inc.startswith("nlohmann/"):
                    problems.append(f"include/conveyor/{header}: reaches nlohmann/json through "
                                    f"{name}; the runtime's headers stay free of JSON")
                elif inc.startswith("conveyor/"):
                    todo.append(inc.split("/", 1)[1])
    return problems


def check(root):
    return check_includes(root) + check_runtime_headers(root)


def self_test():
    """Plants one violation per file, of each kind and in each checked folder, beside includes the
    rules allow, in a tiny tree; expects exactly the planted ones to be found."""
    allowed = {  # what the violations reach, and includes the rules allow
        "include/conveyor/runtime.hpp": '#include "conveyor/data.hpp"\n',  # reaches data.hpp's JSON
        "include/conveyor/stream.hpp": "#include <nlohmann/json.hpp>\n#include <vector>\n",
        "src/core/md5.hpp": "#pragma once\n",
        "src/device/driver.hpp": "#pragma once\n",
        "src/runtime/runtime_impl.hpp": '#include "core/md5.hpp"\n#include "device/driver.hpp"\n',
        "src/runtime/perfmodel/models.hpp": "#include <string>\n",
        "src/manycore/isa/decode.hpp": "#include <cstdint>\n",
        "apps/qr/qr_matrix.hpp": '#include "conveyor/runtime.hpp"\n#include "common/tile.hpp"\n',
        "apps/common/tile.hpp": "#include <cstddef>\n",
        "apps/cholesky/cholesky_run.hpp": '#include "common/tile.hpp"\n',
        "apps/qr/qr.cpp": '#include "qr/qr_matrix.hpp"\n#include <conveyor/stream.hpp>\n'
                          '#include "build_info.hpp"\n',
        "src/data/coherence.cpp": '#include "device/driver.hpp"\n#include <device/driver.hpp>\n',
        "tools/conveyor/main.cpp": '#include "report.hpp"\n#include "qr/qr_matrix.hpp"\n'
                                   '#include "common/tile.hpp"\n'
                                   "#include <CLI/CLI.hpp>\n",
        "tools/conveyor/report.hpp": "#include <string>\n",
        "bench/qr/geqrf.cpp": '#include "qr/qr_matrix.hpp"\n#include "conveyor/runtime.hpp"\n',
        "fuzz/fuzz_check.hpp": "#pragma once\n",
        "fuzz/models.cpp": '#include "fuzz_check.hpp"\n#include "runtime/perfmodel/models.hpp"\n'
                           '#include "isa/decode.hpp"\n',
        "examples/hello.cpp": "#include <conveyor/runtime.hpp>\n#include <cstdio>\n",
        "python/src/core.hpp": "#include <nanobind/nanobind.h>\n",
        "python/src/linalg.cpp": '#include "core.hpp"\n#include "qr/qr_matrix.hpp"\n',
    }
    violations = {  # one a file
        "include/conveyor/data.hpp": "#include <nlohmann/json.hpp>\n",  # JSON in a runtime header
        "src/core/units.cpp": '#include "runtime/runtime_impl.hpp"\n',  # quoted, upward
        "src/core/angle.cpp": "#include <device/driver.hpp>\n",  # angle, sideways
        "src/data/relative.cpp": '#include "../runtime/runtime_impl.hpp"\n',  # relative, upward
        "src/manycore/isa/decode.cpp": '#include "core/md5.hpp"\n',  # out of the simulator
        "src/newlayer/x.cpp": "#include <vector>\n",  # a src/ folder LAYERS does not know
        "include/conveyor/leak.hpp": '#include "../../src/core/md5.hpp"\n',  # public on private
        "tools/conveyor/quoted.cpp": '#include "runtime/runtime_impl.hpp"\n',
        "tools/conveyor/angle.cpp": "#include <runtime/runtime_impl.hpp>\n",
        "tools/conveyor/relative.cpp": '#include "../../src/runtime/runtime_impl.hpp"\n',
        "tools/conveyor/src_prefix.cpp": "#include <src/core/md5.hpp>\n",
        "tools/conveyor/absent.cpp": "#include <runtime/not_there.hpp>\n",  # a src folder
        "tools/conveyor/unknown.cpp": '#include "not_there.hpp"\n',  # no such file
        "apps/qr/angle.cpp": "#include <core/md5.hpp>\n",
        "apps/qr/other_app.cpp": '#include "cholesky/cholesky_run.hpp"\n',  # another app's files
        "apps/common/app.cpp": '#include "qr/qr_matrix.hpp"\n',  # the shared code on one app
        "bench/qr/internal.cpp": '#include "runtime/runtime_impl.hpp"\n',
        "bench/qr/relative.cpp": '#include "../../src/core/md5.hpp"\n',
        "fuzz/scheduler.cpp": "#include <runtime/runtime_impl.hpp>\n",  # not a fuzzed reader
        "examples/app.cpp": "#include <qr/qr_matrix.hpp>\n",  # examples use no app
        "examples/c_api.c": '#include "../src/core/md5.hpp"\n',
        "python/src/runtime_bindings.cpp": "#include <runtime/runtime_impl.hpp>\n",
        "python/src/relative.cpp": '#include "../../src/device/driver.hpp"\n',
    }
    expected = list(violations) + ["include/conveyor/runtime.hpp"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for path, text in {**allowed, **violations}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        found = check(root)
    missing = [e for e in expected if not any(p.startswith(e + ":") for p in found)]
    extra = [p for p in found if not any(p.startswith(e + ":") for e in expected)]
    if missing or extra or len(found) != len(expected):
        print("self-test failed: missed", missing, "wrongly flagged", extra, "found", found)
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
    files = sum(1 for d in CHECKED for _ in sources(root / d))
    print(f"layering: {files} files in {', '.join(CHECKED)}; "
          f"{len(problems)} include(s) breaking the rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
