"""Whether shared memory (agent_id null) is visible to the call in progress.

Every query that shows an agent "its own memories and the shared ones" asks `sees_shared()`:
true unless the edge withholds shared memory for this call (a token without shared read, see
`grants.py`). A context variable, so it follows the call through the engine and no caller has
to carry it; background work never sets it and sees everything.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_SHARED_VISIBLE: ContextVar[bool] = ContextVar("cortex_shared_visible", default=True)


def sees_shared() -> bool:
    """True when the call in progress may see shared memory."""
    return _SHARED_VISIBLE.get()


@contextmanager
def without_shared() -> Iterator[None]:
    """Within this block, queries leave shared memory out."""
    token = _SHARED_VISIBLE.set(False)
    try:
        yield
    finally:
        _SHARED_VISIBLE.reset(token)
