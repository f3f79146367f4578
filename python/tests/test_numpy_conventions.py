"""The table "NumPy conventions" of docs/python.md, row by row: what conveyor.linalg does with each
kind of input, beside what numpy.linalg does with it."""

import numpy as np
import pytest

conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

RUN = dict(cpus=2)


def spd(n, seed=3):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def tall(m, n, seed=4):
    return np.random.default_rng(seed).standard_normal((m, n))


def up_to_signs(q, r, q_ref, r_ref, tol=1e-10):
    signs = np.sign(np.diag(r)) * np.sign(np.diag(r_ref))
    np.testing.assert_allclose(r * signs[:, None], r_ref, rtol=0, atol=tol * np.abs(r_ref).max())
    np.testing.assert_allclose(q * signs, q_ref, rtol=0, atol=tol)


def test_not_positive_definite_is_numpys_linalg_error():
    a = spd(12)
    a[5, 5] = -50
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(a)
    for call in (lambda: conveyor.linalg.cholesky(a, **RUN),
                 lambda: conveyor.linalg.solve(a, np.ones(12), **RUN)):
        with pytest.raises(np.linalg.LinAlgError) as caught:
            call()
        assert isinstance(caught.value, conveyor.Error) and caught.value.minor == 6


def test_complex_is_refused_not_truncated():
    h = spd(4).astype(np.complex128)
    h[2, 1], h[1, 2] = 0.5j, -0.5j
    np.linalg.cholesky(h)  # NumPy factorises it
    for call in (conveyor.linalg.cholesky, conveyor.linalg.qr):
        with pytest.raises(ValueError, match="complex matrices are not supported"):
            call(h)


@pytest.mark.parametrize("mode, q_shape, r_shape", [("reduced", (40, 9), (9, 9)),
                                                    ("complete", (40, 40), (40, 9))])
def test_tall_qr_has_numpys_shapes(mode, q_shape, r_shape):
    a = tall(40, 9)
    q_np, r_np = np.linalg.qr(a, mode=mode)
    q, r = conveyor.linalg.qr(a, mode, block=8, **RUN)
    assert q.shape == q_np.shape == q_shape and r.shape == r_np.shape == r_shape
    up_to_signs(q[:, :9], r[:9], q_np[:, :9], r_np[:9])
    assert conveyor.linalg.qr(a, "r", **RUN).shape == np.linalg.qr(a, "r").shape == (9, 9)


def test_wide_qr_is_refused():
    a = tall(9, 40)
    np.linalg.qr(a)
    with pytest.raises(ValueError, match="at least as many rows as columns"):
        conveyor.linalg.qr(a)


@pytest.mark.parametrize("view", ["transposed", "strided", "sliced"])
def test_non_contiguous_input_gives_the_same_result(view):
    base = spd(60)
    a = {"transposed": base.T, "strided": np.kron(base, np.ones((2, 2)))[::2, ::2],
         "sliced": np.pad(base, 3)[3:-3, 3:-3]}[view]
    assert not (a.flags.c_contiguous and a.flags.f_contiguous) and np.array_equal(a, base)
    if view != "transposed":
        assert not a.flags.c_contiguous and not a.flags.f_contiguous
    np.testing.assert_allclose(conveyor.linalg.cholesky(a, block=16, **RUN), np.linalg.cholesky(a),
                               rtol=1e-10, atol=1e-12)
    q, r = conveyor.linalg.qr(a, block=16, **RUN)
    up_to_signs(q, r, *np.linalg.qr(a))


def test_float32_stays_float32():
    a = spd(30).astype(np.float32)
    assert np.linalg.cholesky(a).dtype == np.float32
    assert conveyor.linalg.cholesky(a, **RUN).dtype == np.float32
    assert all(x.dtype == np.float32 for x in conveyor.linalg.qr(a, **RUN))
    assert conveyor.linalg.solve(a, np.ones(30, np.float32), **RUN).dtype == np.float32


def test_integers_booleans_and_lists_are_float64():
    a = [[4, 2, 0], [2, 5, 1], [0, 1, 3]]
    assert np.linalg.cholesky(a).dtype == np.float64
    for matrix in (a, np.array(a), np.array(a, dtype=np.int32)):
        np.testing.assert_allclose(conveyor.linalg.cholesky(matrix, **RUN), np.linalg.cholesky(a))
    q, r = conveyor.linalg.qr(np.eye(3, dtype=bool), **RUN)
    assert q.dtype == r.dtype == np.float64
    x = conveyor.linalg.solve(a, [1, 2, 3], **RUN)
    np.testing.assert_allclose(x, np.linalg.solve(a, [1, 2, 3]))


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_entries_are_refused(value):
    a = spd(5)
    a[3, 1] = a[1, 3] = value
    try:  # NumPy: a non-finite L, or LinAlgError when LAPACK noticed
        assert not np.isfinite(np.linalg.cholesky(a)).all()
    except np.linalg.LinAlgError:
        pass
    for call in (conveyor.linalg.cholesky, conveyor.linalg.qr):
        with pytest.raises(ValueError, match="non-finite entry"):
            call(a)


@pytest.mark.parametrize("shape", [(4,), (2, 4, 4)])
def test_one_matrix_only(shape):
    a = np.broadcast_to(np.eye(4), shape) if len(shape) == 3 else np.ones(4)
    if len(shape) == 1:
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.cholesky(a)
    else:
        assert np.linalg.cholesky(a).shape == shape  # NumPy factorises a stack
    for call in (conveyor.linalg.cholesky, conveyor.linalg.qr):
        with pytest.raises(ValueError, match="expects a 2-D matrix"):
            call(a)


def test_the_input_is_left_as_it_was():
    a, b = spd(20), np.ones(20)
    a_before, b_before = a.copy(), b.copy()
    conveyor.linalg.cholesky(a, **RUN)
    conveyor.linalg.qr(a, **RUN)
    conveyor.linalg.solve(a, b, **RUN)
    assert np.array_equal(a, a_before) and np.array_equal(b, b_before)
