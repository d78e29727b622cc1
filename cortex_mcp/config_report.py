"""What `cortex-mcp config` prints: every effective setting, where each one not at its default
came from (a flag, a variable, a line of config.toml), and what is in use: the embedder and the
LLMs the settings and the environment resolve to, and which keys are set (never their values)."""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cortex_mcp.config import DatabaseUrlSource, Settings, is_section, toml_line
from cortex_mcp.providers.build import build_llm, choose_embedder

SAMPLING = "sampling: asked of the connected client when it offers sampling (per session)"
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


def setting_sources(
    cortex_variables: Mapping[str, str], toml: Path, overrides: Mapping[str, Any]
) -> dict[str, str]:
    """Dotted setting name → where its value was typed, for every setting not at its default."""
    typed = {name.upper(): name for name in cortex_variables}
    sources: dict[str, str] = {}
    for name, field in Settings.model_fields.items():
        subs = list(field.annotation.model_fields) if is_section(field) else [None]  # type: ignore[union-attr]
        for sub in subs:
            keys = [name] if sub is None else [name, sub]
            variable = "CORTEX_" + "__".join(keys).upper()
            line = toml_line(toml, keys)
            if name in overrides:
                sources[name] = f"--{name}"
            elif variable in typed:
                sources[".".join(keys)] = typed[variable]
            elif keys == ["database", "url"] and DatabaseUrlSource.VARIABLE in typed:
                sources["database.url"] = DatabaseUrlSource.VARIABLE
            elif f"CORTEX_{name}".upper() in typed and sub is not None:
                sources[".".join(keys)] = typed[f"CORTEX_{name}".upper()]
            elif line is not None:
                sources[".".join(keys)] = f"{toml}:{line}"
    return sources


def in_use(settings: Settings, environment: Mapping[str, str]) -> dict[str, Any]:
    """The embedder and LLMs these settings and provider variables resolve to, and the keys
    that are set, by where (a variable of the environment, or a setting)."""
    embedder, why = choose_embedder(settings.embedding, environment)
    llm = build_llm(settings.llm, environment)
    keys = {name: "set in the environment" for name in KEY_VARIABLES if environment.get(name)}
    for section in ("embedding", "llm"):
        if getattr(settings, section).api_key is not None:
            keys[f"{section}.api_key"] = "set in the settings"
    return {
        "embedding": {
            "provider": embedder.name if embedder else "none (keyword search only)",
            "model": embedder.model if embedder else None,
            "why": why.removeprefix("embedding: "),
        },
        "llm": {
            "providers": [f"{provider.name} {provider.model}" for provider in llm.providers],
            "not_used": [SAMPLING if note.startswith("sampling:") else note for note in llm.notes],
        },
        "keys": keys,
    }


def config_report(
    settings: Settings,
    cortex_variables: Mapping[str, str],
    environment: Mapping[str, str],
    toml: Path,
    overrides: Mapping[str, Any],
) -> str:
    """The JSON `cortex-mcp config` prints: the settings (secrets masked), then `sources` and
    `in_use`."""
    report: dict[str, Any] = json.loads(settings.model_dump_json())
    report["sources"] = setting_sources(cortex_variables, toml, overrides)
    report["in_use"] = in_use(settings, environment)
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
