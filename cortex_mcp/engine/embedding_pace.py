"""How many texts the back-fill sends to the embedder at once (#28 item 4).

The local model packs a batch's tokens without padding, so its throughput is the same for a
batch of 8 as of 256 (bench/backfill.py): the batch size only decides how long one call takes.
The pace keeps each call near `target_s`, well inside the embedder's timeout on a busy machine
(a call that times out embeds nothing and its work is lost) and short enough that a write or a
new memory never waits long behind a batch; it halves after a failure.
"""

from dataclasses import dataclass

MIN_BATCH = 4


@dataclass
class BatchPace:
    """The next batch size, from how long the last batch took."""

    most: int
    """The configured batch size: never more."""
    target_s: float = 2.0
    size: int = 0

    def __post_init__(self) -> None:
        self.most = max(1, self.most)
        self.size = self.size or min(self.most, 16)

    def took(self, texts: int, seconds: float) -> None:
        """A batch of `texts` took `seconds`: aim the next one at `target_s`."""
        if texts <= 0:
            return
        if seconds <= 0:
            self.size = self.most
            return
        per_text = seconds / texts
        wanted = int(self.target_s / per_text)
        self.size = max(min(MIN_BATCH, self.most), min(self.most, wanted, self.size * 4))

    def failed(self) -> None:
        """A batch failed or timed out: try half as many next time."""
        self.size = max(1, self.size // 2)
