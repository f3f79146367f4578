"""conveyor.linalg.cholesky: the apps' tile Cholesky on NumPy matrices, against NumPy's."""

import numpy as np
import pytest

import conveyor


def spd(n, dtype=np.float64, seed=7):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("order", ["C", "F"])
def test_cholesky_equals_numpys_on_several_tiles(order):
    a = np.array(spd(300), order=order)  # 300 = 4 tiles of 64 and a narrower one
    before = a.copy()
    L = conveyor.linalg.cholesky(a, block=64, cpus=2)
    np.testing.assert_allclose(L, np.linalg.cholesky(a), rtol=1e-10, atol=1e-10)
    assert np.array_equal(a, before), "the caller's matrix must be left as it was"
    assert np.all(np.triu(L, 1) == 0)


def test_single_precision_stays_single_and_is_accurate_for_it():
    a = spd(200, np.float32)
    L = conveyor.linalg.cholesky(a, block=64, cpus=2)
    assert L.dtype == np.float32
    residual = np.linalg.norm(L.astype(np.float64) @ L.T.astype(np.float64) - a) / np.linalg.norm(a)
    assert residual < 1e-5


def test_the_default_block_and_a_single_tile():
    a = spd(50)
    np.testing.assert_allclose(conveyor.linalg.cholesky(a, cpus=1), np.linalg.cholesky(a),
                               rtol=1e-10, atol=1e-10)


def test_a_matrix_that_is_not_positive_definite_raises_naming_the_task():
    a = spd(128)
    a[100, 100] = -1e6
    with pytest.raises(conveyor.Error, match="potrf"):
        conveyor.linalg.cholesky(a, block=64, cpus=2)


def test_bad_shapes_raise_usage_errors():
    with pytest.raises(conveyor.UsageError, match="square"):
        conveyor.linalg.cholesky(np.zeros((3, 4)))
    with pytest.raises(conveyor.UsageError, match="2-D"):
        conveyor.linalg.cholesky(np.zeros(4))


@pytest.mark.parametrize("order", ["C", "F"])
def test_only_the_lower_triangle_is_read(order):
    a = spd(200)
    garbage = np.array(a, order=order)
    garbage[np.triu_indices(200, 1)] = np.nan
    np.testing.assert_allclose(conveyor.linalg.cholesky(garbage, block=64, cpus=2),
                               np.linalg.cholesky(a), rtol=1e-10, atol=1e-10)
