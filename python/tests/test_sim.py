"""conveyor.sim.sweep(): the records of `conveyor sim sweep --json-out`."""

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

# Two runs of one benchmark on a 2x2 mesh: a few milliseconds of simulation.
SMALL = dict(benchmarks=["pipeline"], nodes=4, entries=[0, 8], threads=2)
SMALL_CLI = ["sim", "sweep", "--benchmarks", "pipeline", "--nodes", "4", "--entries", "0,8",
             "--threads", "2"]


@pytest.fixture
def sweep():
    """The sweep, skipped where the RISC-V programs were not built (no cross compiler)."""
    def run(**options):
        try:
            return conveyor.sim.sweep(**options)
        except conveyor.UsageError as e:
            if "no program" in str(e) and "nope" not in str(e):
                pytest.skip(f"simulator programs not built: {e}")
            raise

    return run


def test_sweep_has_the_cli_records(sweep, cli_json):
    ours = sweep(**SMALL).document
    theirs = cli_json(*SMALL_CLI)
    assert set(ours) == set(theirs)
    assert ours["command"] == "sim_sweep"
    assert ours["options"] == theirs["options"]
    # The simulation is deterministic: the same options give the same figures.
    assert ours["results"] == theirs["results"]
    assert ours["notes"][1:] == theirs["notes"][1:]  # the first counts host seconds


def test_sweep_adds_the_baseline_and_takes_ratios_to_it(sweep):
    result = sweep(benchmarks="pipeline", nodes=[4], entries=8, threads=1)
    assert [r["entries"] for r in result.records] == [0, 8]
    assert result.records[0]["relative_cycles"] == 1.0
    assert result.options["entries"] == [0, 8] and result.options["threads"] == 1


def test_machine_options_reach_the_config(sweep):
    result = sweep(**SMALL, dma_setup=16, local_memory="256K")
    assert result.options["dma_setup_cycles"] == 16
    assert result.options["local_memory_bytes"] == 256 * 1024


@pytest.mark.parametrize("bad", [dict(nodes=5), dict(entries="8,x"), dict(flit_bytes=3),
                                 dict(benchmarks=["nope"]), dict(threads=300)])
def test_sweep_refuses_what_the_cli_refuses(sweep, bad):
    with pytest.raises(conveyor.UsageError):
        sweep(**{**SMALL, **bad})
