"""A first, cheaper pass of the nearest-neighbour search over a large matrix (#28).

Each stored vector is also kept as a sketch: its offset from the matrix's centre projected on
the WIDTH_SHARE × dimension directions along which the stored vectors differ most (a principal
component analysis of a sample), in int8 with a scale per row. A query's similarity to a row is
its similarity to the centre (the same for every row) plus its product with the offset, so the
product of the projected query with each sketch ranks the rows nearly as the full vectors do, at
a quarter of the cost; the few per cent of rows it ranks best are then scored exactly. On real
e5 vectors (LoCoMo turns and questions) it keeps 99.7 % of the exact search's top-10, and at
100,000 rows a search takes 0.48× the time of scoring every row (`python -m bench.knn_sketch`).

Signs of the vectors (one bit per dimension, compared by popcount) were cheaper still but kept
fewer of the nearest rows (96.5 % with the same short list; 86 % with half of it): e5's
similarities to anything crowd into a narrow band.

Sums of products are numpy's own loops (`einsum`, split over two threads by
engine/row_products.py), never BLAS (`@`, an SVD): a product in BLAS spreads over every core
and makes BLAS's buffers, 20-30 MB more of the serving process at 100,000 rows; the directions
come from the sample's 384 × 384 covariance (`eigh`).
"""

from dataclasses import dataclass
from typing import Any

from cortex_mcp.engine.row_products import INT8_MAX, row_products

WIDTH_SHARE = 4
"""A sketch keeps 1/WIDTH_SHARE of the vector's dimensions (96 of e5's 384)."""
SAMPLE = 2048
"""Rows the directions are learnt from."""


@dataclass(frozen=True)
class Projection:
    """The centre of the stored vectors and the directions a sketch keeps."""

    centre: Any
    """(dimension,) float32."""
    basis: Any
    """(dimension, width) float32, orthonormal columns."""

    def sketches(self, unit: Any) -> tuple[Any, Any]:
        """(int8 sketches, float32 scales) of float32 unit rows."""
        import numpy as np

        projected = np.einsum("ij,jk->ik", unit - self.centre, self.basis)  # no BLAS (module doc)
        largest = np.abs(projected).max(axis=1)
        scales = np.where(largest == 0, 1.0, largest / INT8_MAX).astype(np.float32)
        projected /= scales[:, None]
        return np.rint(projected, out=projected).astype(np.int8), scales

    def query(self, target: Any) -> Any:
        """The query's coordinates along the basis (float32)."""
        import numpy as np

        return np.einsum("j,jk->k", target, self.basis).astype(np.float32)


def learn(sample: Any) -> Projection:
    """The centre and main directions of float32 unit rows `sample`."""
    import numpy as np

    centre = sample.mean(axis=0).astype(np.float32)
    width = max(1, sample.shape[1] // WIDTH_SHARE)
    offsets = (sample - centre).astype(np.float64)
    _, directions = np.linalg.eigh(np.einsum("ij,ik->jk", offsets, offsets))  # ascending
    return Projection(centre, np.ascontiguousarray(directions[:, ::-1][:, :width], np.float32))


def short_list(sketches: Any, scales: Any, query: Any, count: int) -> Any:
    """The indices of the `count` rows whose sketches rank best for the projected `query` (in
    no particular order)."""
    import numpy as np

    rough = row_products(sketches, query, rough=True)
    rough *= scales
    if count >= len(rough):
        return np.arange(len(rough))
    return np.argpartition(-rough, count - 1)[:count]
