"""The Python example under examples/ runs as documented."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")
pytest.importorskip("conveyor", reason="conveyor._core is not built")

ROOT = Path(__file__).resolve().parents[2]


def test_walkthrough_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "python_walkthrough.py"),
                          str(tmp_path)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "gemm tile matches NumPy: True" in out.stdout
    residual = float(out.stdout.split("cholesky residual:")[1].split()[0])
    assert residual < 1e-12


def test_a_missing_matplotlib_is_an_import_error():
    # The walkthrough draws only where matplotlib is installed: `except ImportError` must catch it.
    import conveyor

    assert issubclass(conveyor.plot.MissingDependency, ImportError)
