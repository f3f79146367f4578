"""conveyor.probe() and conveyor.calibration(): the records of `conveyor probe --json-out` and the
calibration file the CLI writes and reads. conftest.py points XDG_CACHE_HOME into tmp_path."""

import json
import subprocess

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

# A probe of the CPU alone in a fraction of a second: short sweeps, one repetition.
QUICK = dict(device="cpu", quick=True, repeats=1)
QUICK_CLI = ["probe", "--device", "cpu", "--quick", "--repeats", "1"]


def kinds(document):
    return [r["kind"] for r in document["results"]]


def test_probe_has_the_cli_records(cli_json):
    ours = conveyor.probe(**QUICK, calibration=False).document
    theirs = cli_json(*QUICK_CLI, "--no-calibration")
    assert set(ours) == set(theirs)
    assert ours["command"] == "probe"
    assert ours["options"] == theirs["options"]
    assert kinds(ours) == kinds(theirs)
    assert [set(r) for r in ours["results"]] == [set(r) for r in theirs["results"]]
    assert ours["notes"] == theirs["notes"]
    assert ours["calibration"] is None and theirs["calibration"] is None


def test_probe_writes_the_calibration_where_the_cli_does(cli_json, tmp_path):
    default = tmp_path / "cache" / "conveyor" / "calibration.json"
    result = conveyor.probe(**QUICK)
    assert result.document["calibration"] == str(default) and default.exists()
    assert result.notes[-1] == f"calibration written to {default}"
    theirs = cli_json(*QUICK_CLI)  # the CLI writes the same file, with the same note
    assert theirs["calibration"] == str(default)
    assert theirs["notes"][-1] == result.notes[-1]


def test_calibration_reads_back_what_the_cli_shows(cli, tmp_path):
    conveyor.probe(**QUICK)
    ours = conveyor.calibration()
    assert [(e["device"], e["model"]) for e in ours["entries"]] == [("cpu", "host")]
    shown = subprocess.run([cli, "probe", "--show-calibration", "--json"], check=True,
                           capture_output=True, text=True, timeout=60).stdout
    assert ours == json.loads(shown)


def test_probe_writes_a_named_calibration_file(tmp_path):
    path = tmp_path / "mine" / "cal.json"
    result = conveyor.probe(**QUICK, apps=False, calibration=path)
    assert result.document["calibration"] == str(path)
    assert conveyor.calibration(path)["entries"][0]["device"] == "cpu"
    assert not (tmp_path / "cache" / "conveyor" / "calibration.json").exists()


def test_probe_without_calibration_writes_none(tmp_path):
    conveyor.probe(**QUICK, calibration=False)
    assert not (tmp_path / "cache").exists()


def test_a_missing_calibration_is_a_usage_error(tmp_path):
    with pytest.raises(conveyor.UsageError, match="no calibration"):
        conveyor.calibration(tmp_path / "none.json")


@pytest.mark.parametrize("bad", [dict(device="nope"), dict(device="cpu,,cpu"), dict(repeats=0),
                                 dict(max_size="1K"), dict(max_size="12Q")])
def test_probe_refuses_what_the_cli_refuses(bad):
    with pytest.raises(conveyor.UsageError):
        conveyor.probe(**{**QUICK, **bad})
