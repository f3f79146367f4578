"""The package's public surface: what help() and inspect.signature show, and nothing else in the
namespaces."""

import inspect

import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

MODULES = {"conveyor": conveyor, "conveyor.linalg": conveyor.linalg, "conveyor.sim": conveyor.sim}


def public_callables():
    for module_name, module in MODULES.items():
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.ismodule(value):
                continue
            yield f"{module_name}.{name}", value
    for cls in (conveyor.Runtime, conveyor.Data, conveyor.HostAccess, conveyor.Task):
        for name, value in vars(cls).items():
            if callable(value) and not name.startswith("_"):
                yield f"conveyor.{cls.__name__}.{name}", value
    yield "conveyor.Runtime.__init__", conveyor.Runtime.__init__


@pytest.mark.parametrize("name, value", list(public_callables()), ids=lambda v: str(v)
                         if isinstance(v, str) else "")
def test_every_public_callable_has_a_signature_and_python_docs(name, value):
    made_by_the_package = (conveyor.Data, conveyor.HostAccess, conveyor.Task)
    if value in made_by_the_package or (inspect.isclass(value) and
                                        issubclass(value, BaseException)):
        assert value.__doc__  # made by Runtime.register, Data.acquire, submit; never constructed
        return
    inspect.signature(value)  # raises ValueError for a compiled function without one
    assert value.__doc__ and len(value.__doc__.strip()) > 20, name
    assert "conveyor::" not in value.__doc__, f"{name}'s docstring names C++"


@pytest.mark.parametrize("module_name", MODULES)
def test_namespaces_hold_only_their_public_names(module_name):
    module = MODULES[module_name]
    names = {n for n in vars(module) if not n.startswith("_")}
    assert names == set(module.__all__), names ^ set(module.__all__)


def test_linalg_error_is_numpys_and_conveyors():
    np = pytest.importorskip("numpy")
    assert issubclass(conveyor.linalg.LinAlgError, np.linalg.LinAlgError)
    assert issubclass(conveyor.linalg.LinAlgError, conveyor.Error)
    assert issubclass(conveyor.UsageError, ValueError)
