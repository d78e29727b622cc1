"""The run lease: exactly one process runs the lifecycle, even with many on one database.

A run takes the lease (one row: owner and expiry) before it plans, renews it while it works,
and releases it when done. Every write transaction of the run first renews the lease inside
the same transaction, so a process that lost its lease (it stalled past the expiry and another
took over) cannot write another change. A crashed holder's lease is taken over once it expires,
or at once when the holder ran on this host and its process is gone.
"""

import os
import secrets
import socket
from contextvars import ContextVar
from datetime import timedelta

import anyio

from cortex_mcp.clock import to_text
from cortex_mcp.engine.llm import Ask
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import CortexError, InvalidInput
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store.db import Connection


class LifecycleBusy(InvalidInput):
    """Another run holds the lease; nothing was changed."""

    def __init__(self, holder: str, until: str) -> None:
        super().__init__("action", f"a lifecycle run is in progress ({holder}, until {until})")
        self.holder = holder


class LeaseLost(CortexError):
    """This run's lease expired and another process may hold it: the run stops writing."""


_HOLDER: ContextVar[str | None] = ContextVar("cortex_lease_holder", default=None)
"""The owner of the lease the task in progress took (and the tasks it started): a purge or a
run writing the mirror itself holds it already."""


def held_in_this_task() -> bool:
    """True when the task in progress (or one that started it) holds the lifecycle lease."""
    return _HOLDER.get() is not None


def new_owner() -> str:
    """A name for one run: host, process and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


KEEPING = "mirror-keep"
"""The kind of a lease a mirror write holds while it keeps a hand edit (milliseconds)."""
KEEP_WAIT_S = 5.0
"""How long taking the lease waits for a mirror write keeping an edit before it is busy."""


def owner_is_gone(owner: str) -> bool:
    """True when `owner` ([kind:]host:pid:suffix) names a process on this host that no
    longer runs."""
    parts = owner.rsplit(":", 2)
    host = parts[0].rsplit(":", 1)[-1]
    if len(parts) != 3 or host != socket.gethostname() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


class Lease:
    """One run's hold on the lifecycle lease."""

    def __init__(self, rt: Runtime, owner: str | None = None) -> None:
        self.rt = rt
        self.owner = owner or new_owner()
        self.ttl_s = rt.settings.lifecycle.lease_ttl_s
        self._renewed_at = rt.clock()

    async def take(self) -> None:
        """Take the lease, or raise LifecycleBusy naming who holds it; a mirror write keeping
        an edit holds it for milliseconds, so while one does it is waited for (KEEP_WAIT_S)."""
        with anyio.move_on_after(KEEP_WAIT_S):
            while True:
                try:
                    return await self._take_once()
                except LifecycleBusy as busy:
                    if not busy.holder.startswith(f"{KEEPING}:"):
                        raise
                await anyio.sleep(0.05)
        await self._take_once()

    async def _take_once(self) -> None:
        now = self.rt.clock()
        async with self.rt.db.write() as conn:
            taken = await store.take_lease(conn, self.owner, now, self.ttl_s)
            holder = None if taken else await store.lease_holder(conn)
            if holder is not None and owner_is_gone(holder[0]):
                taken = await store.take_over_lease(conn, holder[0], self.owner, now, self.ttl_s)
                holder = None if taken else await store.lease_holder(conn)
        if holder is not None:
            raise LifecycleBusy(holder[0], to_text(holder[1]))
        self._renewed_at = now
        _HOLDER.set(self.owner)

    async def fence(self, conn: Connection) -> None:
        """Inside a write transaction: renew the lease, or raise LeaseLost (rolling it back)."""
        now = self.rt.clock()
        if not await store.renew_lease(conn, self.owner, now, self.ttl_s):
            raise LeaseLost(f"the lifecycle lease of {self.owner} expired")
        self._renewed_at = now

    async def keep(self) -> None:
        """Renew the lease if a third of its time has passed (between long steps)."""
        if self.rt.clock() - self._renewed_at >= timedelta(seconds=self.ttl_s / 3):
            async with self.rt.db.write() as conn:
                await self.fence(conn)

    async def release(self) -> None:
        """Give the lease up; safe to call when it was lost or never taken."""
        if _HOLDER.get() == self.owner:
            _HOLDER.set(None)
        with anyio.CancelScope(shield=True):
            async with self.rt.db.write() as conn:
                await store.release_lease(conn, self.owner)

    def renewing(self, ask: Ask | None) -> Ask | None:
        """`ask`, renewing the lease before each (possibly slow) LLM call."""
        if ask is None:
            return None
        inner = ask

        async def ask_holding_lease(system: str, prompt: str) -> str | None:
            await self.keep()
            return await inner(system, prompt)

        return ask_holding_lease
