"""Every ```python block of docs/python.md runs as written, in order, in one namespace (as a reader
would type them into one session), in the test's own folder. A block preceded by the line
`<!-- doc-test: needs X -->` (X: matplotlib, pandas, opencl, cuda, torch, cupy) is skipped where X
is missing, with that reason; the doc says so beside the block."""

import importlib.util
import re
from pathlib import Path

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCK = re.compile(r"(?:<!-- doc-test: needs (?P<needs>[\w, ]+) -->\n)?```python\n(?P<code>.*?)```",
                   re.S)


def blocks():
    text = DOC.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        needs = [n.strip() for n in (match.group("needs") or "").split(",") if n.strip()]
        found.append((line, needs, match.group("code")))
    return found


BLOCKS = blocks()


def missing(need):
    """Why `need` is missing here, or None."""
    if need in ("matplotlib", "pandas"):
        if importlib.util.find_spec(need) is None:
            return f"needs {need} (pip install '.[{'plot' if need == 'matplotlib' else need}]')"
        return None
    if need in ("torch", "cupy"):
        return None if importlib.util.find_spec(need) else f"needs {need} (not installed)"
    if need in ("opencl", "cuda"):
        if not any(d["kind"] == need for d in conveyor.devices().records):
            return f"needs an {need} device"
        return None
    raise AssertionError(f"docs/python.md: unknown doc-test requirement {need!r}")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The namespace the blocks share, the indices of those already run, and one folder for all
    (a block may read what an earlier one wrote, the calibration among it)."""
    state = {"namespace": {"__name__": "__docs__"}, "done": set(),
             "folder": tmp_path_factory.mktemp("docs")}
    yield state
    state["namespace"].clear()


def run_block(index, session):
    line, needs, code = BLOCKS[index]
    session["done"].add(index)
    reasons = [r for r in map(missing, needs) if r]
    if reasons:
        return reasons
    exec(compile(code, f"{DOC}:{line}", "exec"), session["namespace"])
    return []


def test_the_doc_has_python_blocks():
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("index", range(len(BLOCKS)),
                         ids=[f"line{line}" for line, _, _ in BLOCKS])
def test_python_block_runs_as_written(index, session, monkeypatch):
    monkeypatch.chdir(session["folder"])
    monkeypatch.setenv("XDG_CACHE_HOME", str(session["folder"] / "cache"))
    # Blocks before this one first (when a test is picked alone): later blocks use their names.
    for earlier in range(index):
        if earlier not in session["done"]:
            run_block(earlier, session)
    reasons = run_block(index, session)
    if reasons:
        pytest.skip("; ".join(reasons))
