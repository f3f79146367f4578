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


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_matrix_that_is_not_positive_definite_names_its_leading_minor(order):
    a = np.array(spd(128), order=order)
    a[100, 100] = -1e6  # the leading minors of order 1..100 stay positive definite
    with pytest.raises(np.linalg.LinAlgError, match="leading minor of order 101 is not") as caught:
        conveyor.linalg.cholesky(a, block=64, cpus=2)
    error = caught.value
    assert isinstance(error, conveyor.linalg.LinAlgError) and isinstance(error, conveyor.Error)
    assert error.minor == 101
    assert "potrf" in error.details and "not positive definite" in error.details
    assert "\n" not in str(error)


def test_the_first_entry_negative_is_leading_minor_one():
    a = -np.eye(5)
    with pytest.raises(conveyor.linalg.LinAlgError) as caught:
        conveyor.linalg.cholesky(a, block=2, cpus=1)
    assert caught.value.minor == 1


def test_bad_shapes_raise_usage_errors():
    with pytest.raises(conveyor.UsageError, match="square"):
        conveyor.linalg.cholesky(np.zeros((3, 4)))
    with pytest.raises(conveyor.UsageError, match="2-D"):
        conveyor.linalg.cholesky(np.zeros(4))


@pytest.mark.parametrize("kwargs, match", [
    ({"block": -1}, "block must be a positive integer"),
    ({"block": 0}, "block must be a positive integer"),
    ({"block": 2.5}, "block must be a positive integer"),
    ({"cpus": -2}, "cpus must be"),
    ({"cpus": True}, "cpus must be"),
    ({"devices": 3}, "devices must be"),
    ({"devices": "nosuch:0"}, "nosuch"),
    ({"scheduler": "fastest"}, "unknown scheduler 'fastest'"),
    ({"scheduler": None}, "scheduler must be a string"),
    ({"offload": ["lu"]}, "offload takes codelet names"),
])
def test_cholesky_arguments_are_checked_as_the_cli_checks_them(kwargs, match):
    with pytest.raises(conveyor.UsageError, match=match) as caught:
        conveyor.linalg.cholesky(spd(8), **kwargs)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_non_finite_lower_triangle_is_refused(value):
    a = spd(20)
    a[7, 3] = value
    with pytest.raises(conveyor.UsageError, match=r"non-finite entry \((nan|inf) at \[7, 3\]\)"):
        conveyor.linalg.cholesky(a, cpus=1)


def test_complex_input_is_refused_not_truncated():
    h = spd(6).astype(complex)
    h[1, 0], h[0, 1] = 1 + 2j, 1 - 2j  # Hermitian positive definite
    with pytest.raises(conveyor.UsageError, match="complex matrices are not supported"):
        conveyor.linalg.cholesky(h)


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
    (np.zeros((3, 4)), "at least as many rows as columns"),
    (np.zeros(4), "2-D"),
    (np.zeros((2, 2, 2)), "2-D"),
    (np.zeros((0, 0)), "empty"),
    (np.array([["a", "b"], ["c", "d"]]), "real matrix"),
    (np.eye(3, dtype=np.complex128), "complex matrices are not supported"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "non-finite"),
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
    ({"block": 0}, "block"),
    ({"ib": 0}, "ib"),
    ({"cpus": "2"}, "cpus"),
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


# Rectangular QR: m x n, m > n, in its own tiles (mt x nt), against NumPy's modes.

def matched_signs(r, r_np):
    """The signs that turn this QR's R rows (and Q columns) into NumPy's."""
    return np.sign(np.diag(r)) * np.sign(np.diag(r_np))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape, block", [((300, 130), 64), ((257, 64), 64), ((90, 1), 32),
                                          ((70, 69), 16)])
def test_rectangular_qr_has_numpys_modes(shape, block, dtype):
    m, n = shape
    a = np.random.default_rng(m + n).standard_normal(shape).astype(dtype)
    before = a.copy()
    tol = 50 * m * np.finfo(dtype).eps
    q_np, r_np = np.linalg.qr(a.astype(np.float64))
    q, r = conveyor.linalg.qr(a, block=block, ib=16, cpus=2)
    assert q.shape == (m, n) and r.shape == (n, n) and q.dtype == r.dtype == dtype
    assert np.all(np.tril(r, -1) == 0)
    signs = matched_signs(r, r_np)
    np.testing.assert_allclose(r * signs[:, None], r_np, rtol=0, atol=tol * np.abs(r_np).max())
    np.testing.assert_allclose(q * signs, q_np, rtol=0, atol=tol)
    qc, rc = conveyor.linalg.qr(a, "complete", block=block, ib=16, cpus=2)
    assert qc.shape == (m, m) and rc.shape == (m, n)
    np.testing.assert_array_equal(rc[n:], 0)
    q64 = qc.astype(np.float64)
    assert np.linalg.norm(q64.T @ q64 - np.eye(m)) / m < tol
    np.testing.assert_allclose(q64 @ rc, a, rtol=0, atol=tol * np.abs(a).max())
    np.testing.assert_allclose(qc[:, :n], q, rtol=0, atol=tol)  # the reduced Q leads it
    r_only = conveyor.linalg.qr(a, mode="r", block=block, ib=16, cpus=2)
    assert r_only.shape == (n, n)
    np.testing.assert_allclose(np.abs(r_only), np.abs(r), rtol=0, atol=tol * np.abs(r).max())
    assert np.array_equal(a, before)


def test_tall_and_skinny_qr_costs_its_own_size():
    # 200000 x 4: as an m x m problem it would need 320 GB; in its own tiles it is 6.4 MB.
    m, n = 200_000, 4
    a = np.random.default_rng(3).standard_normal((m, n))
    q, r = conveyor.linalg.qr(a, block=64, cpus=2)
    assert q.shape == (m, n) and r.shape == (n, n)
    np.testing.assert_allclose(q.T @ q, np.eye(n), rtol=0, atol=1e-12)
    np.testing.assert_allclose(q @ r, a, rtol=0, atol=1e-12 * np.abs(a).max())
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a, "r")), rtol=1e-10, atol=1e-10)


# conveyor.linalg.solve(a, b, assume_a="pos"): Cholesky on the runtime, then two triangular solves.

@pytest.mark.parametrize("b_shape", [(300,), (300, 1), (300, 7)])
def test_solve_equals_numpys(b_shape):
    a = spd(300)  # more than one block of the triangular solves (256 rows)
    b = np.random.default_rng(5).standard_normal(b_shape)
    x = conveyor.linalg.solve(a, b, block=64, cpus=2)
    assert x.shape == b.shape and x.dtype == np.float64
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_solve_in_single_precision_and_from_lists():
    a = spd(40, np.float32)
    b = np.ones(40, dtype=np.float32)
    x = conveyor.linalg.solve(a, b, cpus=1)
    assert x.dtype == np.float32
    np.testing.assert_allclose(a.astype(np.float64) @ x, b, rtol=0, atol=1e-4)
    x64 = conveyor.linalg.solve(a.tolist(), b.tolist(), cpus=1)
    assert x64.dtype == np.float64
    np.testing.assert_allclose(x64, np.linalg.solve(a.astype(np.float64), b), rtol=1e-5)


def test_solve_refuses_what_it_cannot_solve():
    a = spd(10)
    with pytest.raises(conveyor.UsageError, match="only assume_a='pos'"):
        conveyor.linalg.solve(a, np.ones(10), assume_a="gen")
    with pytest.raises(conveyor.UsageError, match="b must be a real vector of 10 entries"):
        conveyor.linalg.solve(a, np.ones(9))
    with pytest.raises(conveyor.UsageError, match="non-finite"):
        conveyor.linalg.solve(a, np.full(10, np.nan))
    not_pd = a.copy()
    not_pd[4, 4] = -100
    with pytest.raises(np.linalg.LinAlgError, match="order 5"):
        conveyor.linalg.solve(not_pd, np.ones(10), cpus=1)
