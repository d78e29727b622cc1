"""The memories a recall shows when the conversation log holds nothing (#28 item 7): what
`log.with_log_hits` gives with no message to fuse, without searching the log or measuring each
memory's coverage of the query (which only orders memories against messages)."""

from cortex_mcp.models import Memory


def without_log(
    found: list[tuple[Memory, float]], matched: set[str], answers: list[Memory], limit: int
) -> list[tuple[Memory, float]]:
    """A slot's `answers` first (at the best score), then the memories matching the query
    (`matched`), then the rest, each part in its ranking order, `limit` in all."""
    top = max((score for _, score in found), default=1.0) or 1.0
    answered = {m.id for m in answers}
    ranked = [(m, top) for m in answers] + [x for x in found if x[0].id not in answered]
    ranked = ranked[:limit]
    shown = matched | answered
    return [x for x in ranked if x[0].id in shown] + [x for x in ranked if x[0].id not in shown]
