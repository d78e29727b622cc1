"""Each row times a vector, split over two threads on a large matrix: the same numbers as one
pass, for the int8 rows and sketches and for float32 rows (#23, #28); int8 rows in SimSIMD's
integer kernels, within 1e-5 of the exact sums."""

import numpy as np
import pytest

from cortex_mcp.engine import row_products as products

WIDTH_AND_ROWS = [(100, 384, np.int8), (20_000, 96, np.int8), (20_001, 384, np.int8)]


def int8_rows(count: int, width: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows as the matrix holds them (each unit row over its largest component) and a
    unit query."""
    generator = np.random.default_rng(seed)
    unit = generator.standard_normal((count, width)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    rows = np.rint(unit / (np.abs(unit).max(axis=1, keepdims=True) / 127)).astype(np.int8)
    query = generator.standard_normal(width).astype(np.float32)
    return rows, query / np.linalg.norm(query)


@pytest.mark.parametrize(("count", "width", "dtype"), [*WIDTH_AND_ROWS, (12_000, 384, np.float32)])
@pytest.mark.parametrize("rough", [False, True])
def test_the_products_are_those_of_one_pass(
    count: int, width: int, dtype: type, rough: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = np.random.default_rng(7)
    rows: np.ndarray = generator.integers(-127, 128, size=(count, width)).astype(dtype)
    vector = generator.standard_normal(width).astype(np.float32)

    found = products.row_products(rows, vector, rough=rough)
    monkeypatch.setattr(products, "_cores", lambda: 1)
    one_pass = products.row_products(rows, vector, rough=rough)

    assert found.dtype == np.float32 and found.shape == (count,)
    assert np.array_equal(found, one_pass)


@pytest.mark.skipif(not products.HAS_SIMSIMD, reason="SimSIMD is not installed here")
@pytest.mark.parametrize(("count", "width", "dtype"), WIDTH_AND_ROWS)
def test_int8_rows_are_summed_within_float32s_reach(count: int, width: int, dtype: type) -> None:
    rows, query = int8_rows(count, width)
    exact = rows.astype(np.float64) @ query.astype(np.float64)
    as_numpy = np.einsum("ij,j->i", rows, query, dtype=np.float32, casting="unsafe")

    found = products.row_products(rows, query)
    rough = products.row_products(rows, query, rough=True)

    # in units of a row's largest component (127): a unit row's cosine is this times ~0.1-0.2
    assert np.abs(found - exact).max() / 127 < 2e-4
    assert np.abs(found - as_numpy).max() / 127 < 2e-4
    assert np.abs(rough - exact).max() / 127 < 0.05  # one int8 query: ranks only
    top = np.argsort(-exact)[:10]
    assert set(np.argsort(-found)[:10]) == set(top)


def test_without_simsimd_the_sums_are_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(products, "HAS_SIMSIMD", False)
    rows, query = int8_rows(3_000, 384)

    found = products.row_products(rows, query)

    one_pass = np.einsum("ij,j->i", rows, query, dtype=np.float32, casting="unsafe")
    assert np.array_equal(found, one_pass)


def test_a_large_matrix_is_summed_on_two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    submitted: list[int] = []
    executor = products._second_thread()
    original = executor.submit

    def counted(function: object, rows: np.ndarray, *rest: object) -> object:
        submitted.append(len(rows))
        return original(function, rows, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(executor, "submit", counted)
    monkeypatch.setattr(products, "_cores", lambda: 2)
    rows = np.ones((products.SPLIT_FROM * 2 + 1, 8), dtype=np.int8)

    found = products.row_products(rows, np.ones(8, dtype=np.float32))

    assert submitted == [products.SPLIT_FROM + 1]  # the second half, in the other thread
    assert found.tolist() == [8.0] * len(rows)
    products.row_products(rows[: products.SPLIT_FROM - 1], np.ones(8, dtype=np.float32))
    assert len(submitted) == 1  # a small matrix in one pass
