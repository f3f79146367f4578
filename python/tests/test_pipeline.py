"""conveyor.pipeline(): the records of `conveyor stream --pipeline ... --json-out`."""

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

# Milliseconds: small arrays, one kernel, two repetitions, a fixed strategy (auto times itself).
SMALL = dict(threads=1, elements="256K", block="64KiB", repeats=2, kernels=["triad"],
             strategy="all")
SMALL_CLI = ["stream", "--pipeline", "thread", "--threads", "1", "--elements", "256K", "--block",
             "64KiB", "--repeats", "2", "--kernels", "triad", "--strategy", "all"]


def test_pipeline_has_the_cli_records(cli_json):
    # no_overlap: the overlap fields appear only when the mover delivered every copy, which
    # depends on timing; without the T_copy / T_compute runs both have the same fields.
    ours = conveyor.pipeline("thread", **SMALL, no_overlap=True).document
    theirs = cli_json(*SMALL_CLI, "--no-overlap")
    assert set(ours) == set(theirs)
    assert ours["command"] == "stream"
    assert ours["options"] == theirs["options"]
    assert [set(r) for r in ours["results"]] == [set(r) for r in theirs["results"]]
    assert ours["notes"] == theirs["notes"]


def test_pipeline_rows_compare_cpu_only_with_the_mover():
    result = conveyor.pipeline("thread", **SMALL)
    assert [r["pipeline"] for r in result.records] == ["none", "thread"]
    for record in result.records:
        assert record["kernel"] == "triad" and record["validated"] is True
        assert record["elements"] == 256 * 1024 and record["block_bytes"] == 64 * 1024
    assert result.records[1]["strategy"] == "all" and result.records[1]["speedup"] > 0


def test_strategy_auto_reads_the_probe_calibration(cli_json):
    conveyor.probe(device="cpu", quick=True, repeats=1)  # no staging measurements under quick
    ours = conveyor.pipeline("thread", **{**SMALL, "strategy": "auto"})
    theirs = cli_json(*SMALL_CLI[:-1], "auto")
    assert "has no staging measurements" in ours.notes[0]
    assert ours.notes[0] == theirs["notes"][0]
    assert ours.records[1]["decided_by"] == "timing"


def test_a_named_calibration_that_is_missing_is_a_usage_error(tmp_path):
    with pytest.raises(conveyor.UsageError, match="no calibration"):
        conveyor.pipeline("thread", **{**SMALL, "strategy": "auto"},
                          calibration=tmp_path / "none.json")


@pytest.mark.parametrize("bad", [dict(depth=0), dict(block=100), dict(strategy="sideways"),
                                 dict(calibrate=True), dict(kernels="nope"), dict(repeats=0),
                                 dict(size="1M")])
def test_pipeline_refuses_what_the_cli_refuses(bad):
    with pytest.raises(conveyor.UsageError):
        conveyor.pipeline("thread", **{**SMALL, **bad})


def test_an_unknown_mover_is_a_usage_error():
    with pytest.raises(conveyor.UsageError):
        conveyor.pipeline("teleport", **SMALL)
