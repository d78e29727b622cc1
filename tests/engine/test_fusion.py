"""Fusion of memories and conversation-log messages (#23): one list, each side in its own
order, and a memory and the message it came from never both."""

from cortex_mcp.engine.recall.fusion import Place, fused, key, merged


def place(name: str, score: float, *links: str) -> Place[str]:
    return Place(score, name, frozenset(links))


def test_the_higher_key_goes_first_and_each_side_keeps_its_order() -> None:
    memories = [place("m1", 0.9), place("m2", 0.95), place("m3", 0.2)]
    messages = [place("s1", 0.92), place("s2", 0.5)]

    order = [p.item for p in merged(memories, messages)]

    assert order == ["s1", "m1", "m2", "s2", "m3"]  # m2 waits for m1: a side's order stands


def test_a_memory_and_its_message_are_never_both_taken_the_better_stands() -> None:
    memory = place("I'm Dave.", 0.25, "mem-1")
    message = place("I'm Dave. The quarterly numbers for Northwind look weak.", 1.0, "mem-1")
    other = place("Northwind revenue dropped 12%.", 0.5)

    taken = [p.item for p in fused([memory], [message, other], limit=10)]

    assert taken == [message.item, other.item]
    # the memory placed first stands for its message
    taken = [p.item for p in fused([place("I'm Dave.", 1.0, "mem-1")], [message], limit=10)]
    assert taken == ["I'm Dave."]


def test_a_message_stands_for_every_memory_taken_from_it_and_the_limit_holds() -> None:
    message = place("I'm Dave and I live in Leeds.", 0.9, "name", "city")
    memories = [place("I'm Dave.", 0.8, "name"), place("I live in Leeds.", 0.7, "city")]
    others = [place(f"line {i}", 0.5 - i / 100) for i in range(5)]

    taken = [p.item for p in fused(memories, [message, *others], limit=3)]

    assert taken == ["I'm Dave and I live in Leeds.", "line 0", "line 1"]


def test_the_key_is_relevance_times_the_share_of_the_query_held() -> None:
    assert key(1.0, 0.25) < key(0.5, 1.0)
    assert key(0.8, 0.0) == 0.0
