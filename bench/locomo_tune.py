"""Ranking defaults chosen by leave-one-conversation-out on the LoCoMo dev conversations.

A grid of configurations (how turns are indexed × the search knobs) runs on every dev
conversation through bench/locomo.py's machinery. For each fold one conversation is held out:
the configuration with the best recall@10 (categories 1-4) on the other conversations is chosen
and scored on the held-out one. The mean and the worst held-out score estimate how a default
chosen this way does on conversations never seen; the default itself is the configuration best
on all of them, reported with its spread over conversations.

    python -m bench.locomo_tune                      # writes bench/results/locomo_tune.json
    python -m bench.locomo_tune --quick --workdir /tmp/locomo-tune   # print only

Both embedders are tuned: "hybrid" (the local model) and "bm25" (no embedding provider), since
a store without vectors uses the same settings.
"""

import argparse
import itertools
import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from bench.locomo import (
    HEADLINE_KEY,
    Config,
    Measured,
    log,
    machine,
    overrides,
    run,
    store_arguments,
)
from bench.locomo_data import Outcome, load_samples, recall_at, report
from bench.locomo_docs import write_tune_docs
from cortex_mcp.clock import utc_now

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "locomo_tune.json"

VARIANTS = ("prev", "prev2+next", "prev2+next2")
CONTEXT_WEIGHTS = (0.25, 0.5, 0.75)  # below 1: a word in the content counts more
WEIGHTS = ((0.6, 0.4), (0.5, 0.5))  # (text, vector)
DATE_BOOSTS = (1.0,)


def grid(extra: dict[str, list[Any]]) -> list[Config]:
    """Every combination of the knobs, for the hybrid and the BM25-only store; `extra` adds
    knobs (name → values) to the grid."""
    names = list(extra)
    configs: list[Config] = []
    for variant, context, date, *more in itertools.product(
        VARIANTS, CONTEXT_WEIGHTS, DATE_BOOSTS, *extra.values()
    ):
        knobs = dict(zip(names, more, strict=True))
        base = {"context_weight": context, "date_boost": date, **knobs}
        label = ", ".join(f"{k} {v}" for k, v in base.items())
        configs.append(Config(f"bm25 {variant}: {label}", variant, "none", base))
        for text, vector in WEIGHTS:
            search = {**base, "text_weight": text, "vector_weight": vector}
            name = f"hybrid {variant}: {label}, weights {text}/{vector}"
            configs.append(Config(name, variant, "local", search))
    return configs


def headline_recall(outcomes: list[Outcome]) -> float:
    """Mean recall@10 over the questions of categories 1-4."""
    chosen = [o for o in outcomes if o.question.category in (1, 2, 3, 4)]
    return statistics.fmean(recall_at(o, 10) for o in chosen) if chosen else 0.0


@dataclass(frozen=True)
class Fold:
    """One held-out conversation: the configuration chosen on the others and its scores."""

    held_out: str
    chosen: str
    trained: float
    held_out_recall: float


def leave_one_out(names: list[str], measured: dict[str, Measured]) -> list[Fold]:
    """For each conversation, the best configuration on the others, scored on it."""
    samples = list(next(iter(measured.values())).by_sample)
    folds = []
    for held in samples:

        def trained(name: str, held: str = held) -> float:
            runs = measured[name].by_sample
            return headline_recall([o for s in samples if s != held for o in runs[s]])

        best = max(names, key=lambda name: (trained(name), name))
        score = headline_recall(measured[best].by_sample[held])
        folds.append(Fold(held, best, round(trained(best), 4), round(score, 4)))
    return folds


def summary(kind: str, configs: list[Config], measured: dict[str, Measured]) -> dict[str, Any]:
    """The folds, their mean and worst, and the default chosen on all conversations."""
    names = [c.name for c in configs if c.name.startswith(kind + " ")]
    folds = leave_one_out(names, measured)
    held = [f.held_out_recall for f in folds]
    best = max(names, key=lambda name: (headline_recall(measured[name].outcomes), name))
    chosen = next(c for c in configs if c.name == best)
    ranked = sorted(names, key=lambda n: -headline_recall(measured[n].outcomes))
    return {
        "folds": [f.__dict__ for f in folds],
        "held-out recall@10 mean": round(statistics.fmean(held), 4),
        "held-out recall@10 worst": round(min(held), 4),
        "held-out recall@10 best": round(max(held), 4),
        "default": {
            "name": best,
            "index": chosen.variant,
            "search": chosen.search,
            "metrics": report(measured[best].outcomes),
            "per conversation": {
                sample: report(outcomes)[HEADLINE_KEY]
                for sample, outcomes in measured[best].by_sample.items()
            },
        },
        "top 10 on all conversations": [
            {"name": n, "recall@10": round(headline_recall(measured[n].outcomes), 4)}
            for n in ranked[:10]
        ],
        "configurations": len(names),
    }


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    store_arguments(cli)
    cli.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="one more search knob in the grid, with its values (JSON); repeatable",
    )
    cli.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    cli.add_argument("--variants", help="comma-separated index variants (default: all)")
    cli.add_argument("--quick", action="store_true", help="print only")
    cli.add_argument("--results", type=Path, default=RESULTS)
    cli.add_argument("--no-docs", action="store_true")
    return cli.parse_args()


def extra_knobs(pairs: list[str]) -> dict[str, list[Any]]:
    """`--grid graph_weight=0,0.2,0.4` as knob → values."""
    knobs: dict[str, list[Any]] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        knobs[key.strip()] = [json.loads(v) for v in raw.split(",")]
    return knobs


async def main() -> None:
    args = parse_args()
    samples = load_samples(args.data, set(args.samples.split(",")) if args.samples else None)
    configs = grid(extra_knobs(args.grid))
    if args.variants:
        keep = set(args.variants.split(","))
        configs = [c for c in configs if c.variant in keep]
    fixed = overrides(args.set)
    configs = [Config(c.name, c.variant, c.provider, {**c.search, **fixed}) for c in configs]
    log(f"{len(configs)} configurations on {len(samples)} conversations")
    with tempfile.TemporaryDirectory(prefix="cortex-locomo-tune-") as temp:
        args.workdir = args.workdir or Path(temp)
        measured = await run(args, samples, configs)
    document: dict[str, Any] = {
        "benchmark": "locomo leave-one-conversation-out",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "samples": [s.sample_id for s in samples],
        "grid": {
            "variants": sorted({c.variant for c in configs}),
            "context_weight": CONTEXT_WEIGHTS,
            "date_boost": DATE_BOOSTS,
            "text/vector weights (hybrid)": WEIGHTS,
            **extra_knobs(args.grid),
            "fixed": fixed,
        },
        "hybrid": summary("hybrid", configs, measured),
        "bm25": summary("bm25", configs, measured),
    }
    for kind in ("hybrid", "bm25"):
        part = document[kind]
        log(
            f"{kind}: held-out recall@10 mean {part['held-out recall@10 mean']:.3f}"
            f" worst {part['held-out recall@10 worst']:.3f}; default {part['default']['name']}"
        )
        for fold in part["folds"]:
            log(f"  {fold['held_out']}: {fold['held_out_recall']:.3f} with {fold['chosen']}")
    if args.quick:
        return
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if not args.no_docs:
        write_tune_docs(document)


if __name__ == "__main__":
    anyio.run(main)
