"""Each row times a vector, split over two threads on a large matrix: the same numbers as one
pass, for the int8 rows and sketches and for float32 rows (#23, #28)."""

import numpy as np
import pytest

from cortex_mcp.engine import row_products as products


@pytest.mark.parametrize(
    ("count", "width", "dtype"),
    [(100, 384, np.int8), (20_000, 96, np.int8), (20_001, 384, np.int8), (12_000, 384, np.float32)],
)
def test_the_products_are_those_of_one_pass(count: int, width: int, dtype: type) -> None:
    generator = np.random.default_rng(7)
    rows: np.ndarray = generator.integers(-127, 128, size=(count, width)).astype(dtype)
    vector = generator.standard_normal(width).astype(np.float32)

    found = products.row_products(rows, vector)

    one_pass = np.einsum("ij,j->i", rows, vector, dtype=np.float32, casting="unsafe")
    assert found.dtype == np.float32 and found.shape == (count,)
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
