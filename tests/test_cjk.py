"""Chinese and Japanese memories are found with two-character and mixed-language queries."""

import pytest
from mcp import Client

from tests.conftest import recall, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SEED_MEMORIES = {
    "shinagawa_yield": "品川区1LDK投资评估：表面利回5%，管理费月1.2万(年14.4万)，"
    "实际利回约4.28%，综合利回3.8-4.0%(含修缮积立金+固定资产税)",
    "shinagawa_price": "品川区1LDK近3年成交价中位数1850-2100万日元",
    "shinagawa_project": "用户正在积极评估品川区投资物件，关注实际利回而非表面利回",
    "oracle_nftables": "Oracle Cloud ARM实例使用nftables而非iptables。"
    "持久化方案：iptables-persistent 或 nft规则写入 /etc/nftables.conf"
    " + systemctl enable nftables",
    "oracle_security_list": "Oracle Cloud除了OS防火墙，"
    "还需要在Security List中开放端口（双层防火墙）",
    "oracle_vps": "用户在管理Oracle Cloud ARM VPS，运行中遇到了防火墙配置问题",
    "japanese_home": "品川駅の近くに住んでいて、毎朝コーヒーを飲みます",
    "japanese_work": "来週の月曜日にプレゼンテーションの準備をする必要があります",
}


async def store_seeds(client: Client) -> dict[str, str]:
    return {key: (await remember(client, text))["id"] for key, text in SEED_MEMORIES.items()}


async def ids_for(client: Client, query: str) -> list[str]:
    return [m["id"] for m in (await recall(client, query, max_results=8))["memories"]]


async def test_two_character_chinese_words_are_found(client: Client) -> None:
    ids = await store_seeds(client)

    assert ids["shinagawa_yield"] in await ids_for(client, "利回")
    assert set(await ids_for(client, "品川")) >= {
        ids["shinagawa_yield"],
        ids["shinagawa_price"],
        ids["shinagawa_project"],
        ids["japanese_home"],
    }
    assert (await ids_for(client, "防火墙"))[:2] == [ids["oracle_security_list"], ids["oracle_vps"]]


async def test_mixed_language_queries_find_chinese_memories(client: Client) -> None:
    ids = await store_seeds(client)

    assert (await ids_for(client, "Oracle 防火墙"))[0] in {
        ids["oracle_security_list"],
        ids["oracle_vps"],
    }
    assert (await ids_for(client, "nftables 持久化"))[0] == ids["oracle_nftables"]
    assert (await ids_for(client, "品川 1LDK 利回"))[0] == ids["shinagawa_yield"]


async def test_japanese_kana_and_kanji_words_are_found(client: Client) -> None:
    ids = await store_seeds(client)

    assert (await ids_for(client, "コーヒー"))[0] == ids["japanese_home"]
    assert (await ids_for(client, "品川駅"))[0] == ids["japanese_home"]
    assert (await ids_for(client, "プレゼン"))[0] == ids["japanese_work"]
    assert (await ids_for(client, "月曜日"))[0] == ids["japanese_work"]


async def test_english_matching_is_case_insensitive_and_stemmed(client: Client) -> None:
    stored = await remember(client, "The user RUNS Kubernetes clusters on Hetzner")

    for query in ["kubernetes", "KUBERNETES", "hetzner cluster", "running"]:
        assert await ids_for(client, query) == [stored["id"]], query


async def test_full_width_characters_match_their_ascii_forms(client: Client) -> None:
    stored = await remember(client, "ＡＷＳ　ｌａｍｂｄａ の設定")

    assert await ids_for(client, "aws lambda") == [stored["id"]]


async def test_memories_keep_their_language(client: Client) -> None:
    await store_seeds(client)

    found = await recall(client, "利回")

    assert "实际利回约4.28%" in found["context"]
