"""conveyor.devices() and conveyor.stream(): the CLI's records, as Results."""

import json
import subprocess

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

# A run that takes milliseconds: arrays far below the STREAM size rule, two kernels, 3 repetitions.
SMALL = dict(threads=1, elements="64K", allow_small=True, repeats=3, kernels=["copy", "triad"])
SMALL_CLI = ["--threads", "1", "--elements", "64K", "--allow-small", "--repeats", "3",
             "--kernels", "copy,triad"]


def run_cli(cli, *args, tmp_path):
    out = tmp_path / "cli.json"
    subprocess.run([cli, *args, "--json-out", str(out)], check=True, capture_output=True,
                   timeout=120)
    return json.loads(out.read_text())


def test_devices_lists_the_cpu_first():
    result = conveyor.devices()
    assert result.command == "devices"
    assert result.records[0]["id"] == "cpu"
    for record in result.records:
        assert {"id", "kind", "name", "memory_bytes", "peak_gbs", "compute_units"} <= set(record)
    assert "cpu" in result.document["backends"]


def test_devices_has_the_cli_fields(cli, tmp_path):
    ours = conveyor.devices().document
    theirs = run_cli(cli, "devices", tmp_path=tmp_path)
    assert [r["id"] for r in ours["results"]] == [r["id"] for r in theirs["results"]]
    assert set(ours) == set(theirs)
    assert set(ours["results"][0]) == set(theirs["results"][0])


def test_stream_returns_one_record_per_kernel():
    result = conveyor.stream(**SMALL)
    assert [r["kernel"] for r in result.records] == ["copy", "triad"]
    for record in result.records:
        assert record["device"] == "cpu" and record["threads"] == 1
        assert record["elements"] == 64 * 1024
        assert record["best_gbs"] > 0 and record["validated"] is True
    assert any("size rule" in note for note in result.notes)


def test_stream_has_the_cli_fields_and_options(cli, tmp_path):
    ours = conveyor.stream(**SMALL).document
    theirs = run_cli(cli, "stream", *SMALL_CLI, tmp_path=tmp_path)
    assert set(ours) == set(theirs)
    assert ours["options"] == theirs["options"]
    assert [set(r) for r in ours["results"]] == [set(r) for r in theirs["results"]]
    assert ours["notes"] == theirs["notes"]


def test_stream_thread_list_gives_a_sweep():
    result = conveyor.stream(**{**SMALL, "threads": [1, 1], "kernels": "triad"})
    assert [r["threads"] for r in result.records] == [1, 1]


@pytest.mark.parametrize("bad", [dict(kernels="nope"), dict(threads=0), dict(repeats=1),
                                 dict(bind="sideways"), dict(elements="12Q")])
def test_stream_refuses_what_the_cli_refuses(bad):
    with pytest.raises(conveyor.UsageError):
        conveyor.stream(**{**SMALL, **bad})
    with pytest.raises(ValueError):  # UsageError is a ValueError too
        conveyor.stream(**{**SMALL, **bad})


def test_result_to_json_is_what_conveyor_plot_reads(tmp_path):
    result = conveyor.stream(**SMALL)
    result.to_json(tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text()) == result.document


def test_to_pandas_or_a_clear_import_error():
    result = conveyor.stream(**SMALL)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            result.to_pandas()
        return
    frame = result.to_pandas()
    assert list(frame["kernel"]) == ["copy", "triad"]
    assert "best_gbs" in frame.columns


def test_plot_writes_the_cli_figure(tmp_path):
    pytest.importorskip("matplotlib")
    result = conveyor.stream(**SMALL)
    out = result.plot(tmp_path / "stream.png")
    assert (tmp_path / "stream.png").stat().st_size > 1000 and out.endswith("stream.png")
    figure = result.plot(title="in memory")
    assert figure.axes  # a matplotlib Figure for a notebook
    with pytest.raises(conveyor.plot.UsageError, match=".png or .svg"):
        result.plot(tmp_path / "stream.pdf")


def test_plot_is_the_conveyor_plot_package():
    import conveyor_plot

    assert conveyor.plot.plot is conveyor_plot.plot
