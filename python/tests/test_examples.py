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
