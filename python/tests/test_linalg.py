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


# conveyor.linalg.qr: the tile QR of apps/qr, against the properties of a QR and NumPy's own.

def general(n, dtype=np.float64, seed=11):
    return np.random.default_rng(seed).standard_normal((n, n)).astype(dtype)


def check_qr(a, q, r, dtype):
    """Q R = A and Q^T Q = I within c n u (the bound of `conveyor qr --check` is 4 n u), R upper."""
    n = a.shape[0]
    bound = 4 * n * np.finfo(dtype).eps
    q64, r64, a64 = (x.astype(np.float64) for x in (q, r, a))
    assert q.dtype == dtype and r.dtype == dtype and q.shape == r.shape == (n, n)
    assert np.linalg.norm(q64 @ r64 - a64) / np.linalg.norm(a64) < bound
    assert np.linalg.norm(q64.T @ q64 - np.eye(n)) / n < bound
    assert np.all(np.tril(r, -1) == 0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_qr_is_a_qr_and_numpys_up_to_signs(dtype, order):
    a = np.array(general(300, dtype), order=order)  # 300 = 4 tiles of 64 and a narrower one
    before = a.copy()
    q, r = conveyor.linalg.qr(a, block=64, ib=24, cpus=2)  # ib not dividing the block either
    check_qr(a, q, r, dtype)
    assert np.array_equal(a, before), "the caller's matrix must be left as it was"
    # Householder QR is unique up to the signs of R's rows (Q's columns): compare |R|, and Q with
    # its columns' signs matched to NumPy's.
    q_np, r_np = np.linalg.qr(a.astype(np.float64))
    tol = 50 * 300 * np.finfo(dtype).eps
    scale = np.abs(r_np).max()
    np.testing.assert_allclose(np.abs(r), np.abs(r_np), rtol=0, atol=tol * scale)
    signs = np.sign(np.diag(r)) * np.sign(np.diag(r_np))
    np.testing.assert_allclose(q * signs, q_np, rtol=0, atol=tol)


def test_qr_default_block_single_tile_and_modes():
    a = general(40)
    q, r = conveyor.linalg.qr(a, cpus=1)  # the default tile size: one tile here
    check_qr(a, q, r, np.float64)
    q2, r2 = conveyor.linalg.qr(a, cpus=1, mode="complete")  # the same for a square matrix
    np.testing.assert_array_equal(r2, r)
    np.testing.assert_array_equal(conveyor.linalg.qr(a, cpus=1, mode="r"), r)


def test_qr_of_integers_is_in_double():
    a = np.arange(1, 26).reshape(5, 5) % 7 + np.eye(5, dtype=int)
    q, r = conveyor.linalg.qr(a, block=2, ib=1, cpus=2)
    check_qr(a, q, r, np.float64)


@pytest.mark.parametrize("bad, match", [
    (np.zeros((3, 4)), "square"),
    (np.zeros(4), "2-D"),
    (np.zeros((2, 2, 2)), "2-D"),
    (np.zeros((0, 0)), "empty"),
    (np.array([["a", "b"], ["c", "d"]]), "real matrix"),
    (np.eye(3, dtype=np.complex128), "real matrix"),
    ("not a matrix", "2-D"),
])
def test_qr_bad_input_raises_value_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        conveyor.linalg.qr(bad)
    with pytest.raises(conveyor.UsageError, match=match):
        conveyor.linalg.qr(bad)


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "raw"}, "mode"),
    ({"block": -1}, "block"),
    ({"ib": 0}, "ib"),
    ({"devices": "nosuch:0"}, "nosuch"),
])
def test_qr_bad_arguments_raise_usage_errors(kwargs, match):
    with pytest.raises(conveyor.UsageError, match=match):
        conveyor.linalg.qr(np.eye(8), **kwargs)


def test_qr_on_an_opencl_device_alone():
    ids = [d["id"] for d in conveyor.devices().records if d["kind"] == "opencl"]
    if not ids:
        pytest.skip("no OpenCL device")
    a = general(160)  # 3 x 3 tiles, the last one ragged: every kernel on the device
    q, r = conveyor.linalg.qr(a, block=64, devices=ids[0], cpus=0)
    check_qr(a, q, r, np.float64)
