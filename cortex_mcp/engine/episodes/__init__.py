"""Episodes (seed 002 §4.2): one per session, what it set out to do, what it reached, and the
tool calls on the way (errors kept). Built from the conversation log by `record`; shown by
`views`; `actions` and `parts` are pure text rules, `told` asks the LLM when there is one."""

from cortex_mcp.engine.episodes.record import Session, record_episode
from cortex_mcp.engine.episodes.views import episode_json, episodes_json

__all__ = ["Session", "episode_json", "episodes_json", "record_episode"]
