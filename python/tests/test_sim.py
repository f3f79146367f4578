"""conveyor.sim.sweep(): the records of `conveyor sim sweep --json-out`."""

from pathlib import Path

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

# Two runs of one benchmark on a 2x2 mesh: a few milliseconds of simulation.
SMALL = dict(benchmarks=["pipeline"], nodes=4, entries=[0, 8], threads=2)
SMALL_CLI = ["sim", "sweep", "--benchmarks", "pipeline", "--nodes", "4", "--entries", "0,8",
             "--threads", "2"]


def missing_programs():
    """Why this build has no simulator programs (the UsageError conveyor.sim raises), or None."""
    try:
        conveyor.sim._programs_folder(None)
    except conveyor.UsageError as e:
        return str(e)
    return None


@pytest.fixture
def sweep():
    """The sweep, skipped only where the package says it was built without the RISC-V programs
    (riscv64-unknown-elf-gcc absent at build time)."""
    reason = missing_programs()
    if reason:
        pytest.skip(reason)
    return conveyor.sim.sweep


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


def test_a_build_without_programs_says_so(monkeypatch):
    monkeypatch.delenv("CONVEYOR_SIM_PROGRAMS", raising=False)
    monkeypatch.setattr(conveyor._core, "sim_programs_built", False)
    if any((Path(folder) / "sim_programs").is_dir() for folder in conveyor.__path__):
        pytest.skip("this installed package has its programs (conveyor/sim_programs)")
    with pytest.raises(conveyor.UsageError, match="built without the simulator's RISC-V "
                       "programs .cmake found no riscv64-unknown-elf-gcc then"):
        conveyor.sim.sweep(**SMALL)


def test_a_programs_folder_without_programs_names_it(tmp_path):
    with pytest.raises(conveyor.UsageError, match=f"no program 'pipeline' in {tmp_path}"):
        conveyor.sim.sweep(**SMALL, programs=tmp_path)
