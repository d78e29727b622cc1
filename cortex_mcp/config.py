"""Every knob of cortex-mcp, read once at the edge and passed down.

Precedence: constructor arguments (CLI flags) > `CORTEX_*` environment variables (nested with
`__`, e.g. `CORTEX_SEARCH__CANDIDATE_LIMIT`) > `<home>/config.toml` > these defaults, which need
nothing: no key, no network. An empty variable counts as unset (clients expand an unset
`${env:X}` to ""). A setting that breaks a rule is a `ConfigError` naming what the user typed:
the variable, `config.toml:<line>`, or the flag.

Over 400 lines because every setting lives here with its rule and its help text: the settings
reference (docs/configuration.md) is generated from this one file.
"""

import difflib
import os
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from cortex_mcp.errors import ConfigError

DEFAULT_HOME = Path(platformdirs.user_data_dir("cortex-mcp", appauthor=False))
"""The platform's place for an app's data (~/.local/share/cortex-mcp on Linux,
~/Library/Application Support/cortex-mcp on macOS, %LOCALAPPDATA%\\cortex-mcp on Windows)."""
LEGACY_HOME = Path("~/.cortex").expanduser()
"""The default home before 0.2; a cortex-mcp database found there moves once to DEFAULT_HOME."""
DEFAULT_PORT = 21100
OTHER_VARIABLES = frozenset({"CORTEX_MCP_UVX_FROM"})
"""CORTEX_* variables that are not settings but are ours (the npm wrapper reads this one)."""


def home_from_environment() -> Path:
    """The data directory: `CORTEX_HOME` when set and not empty, else DEFAULT_HOME."""
    raw = os.environ.get("CORTEX_HOME")
    return Path(raw).expanduser() if raw else DEFAULT_HOME


def home_is_default() -> bool:
    """True when CORTEX_HOME is unset or empty, so the platform's default home is used."""
    return not os.environ.get("CORTEX_HOME")


class Section(BaseModel):
    """A table of settings; unknown keys are an error, so typos in config.toml surface."""

    model_config = ConfigDict(extra="forbid")


class StoreSettings(Section):
    """The SQLite file."""

    filename: str = Field(default="cortex.db", description="Database file inside the home.")
    busy_timeout_ms: int = Field(
        default=10_000, ge=0, description="How long a writer waits for another process's lock."
    )
    synchronous: Literal["FULL", "NORMAL"] = Field(
        default="FULL",
        description="SQLite fsync on every commit (FULL) or at checkpoints only (NORMAL: faster, "
        "an OS crash or power loss can drop the last acknowledged writes).",
    )


class DatabaseSettings(Section):
    """Where the store lives: the SQLite file in the home (default), or a PostgreSQL server."""

    url: SecretStr | None = Field(
        default=None,
        description="postgresql://user:password@host:5432/db puts the whole store on PostgreSQL"
        " with pgvector (for teams: many cortex-mcp processes, one memory); also read from"
        " CORTEX_DATABASE_URL. Unset: the SQLite file in the home.",
    )
    pool_size: int = Field(
        default=10, ge=1, le=200, description="PostgreSQL connections per process, at most."
    )
    connect_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long opening the store (at start, and `migrate`) waits for PostgreSQL"
        " before it reports the database unreachable.",
    )
    call_timeout_s: float = Field(
        default=2.0,
        gt=0,
        description="How long a call waits for a pooled PostgreSQL connection before it answers"
        " that the database is unreachable (while it is down, calls fail this fast).",
    )
    reconnect_every_s: float = Field(
        default=0.5,
        gt=0,
        le=30,
        description="While PostgreSQL is down, the pool tries to reconnect this often at most"
        " (backoff capped here, so recovery follows the database's return within about this).",
    )

    @field_validator("url")
    @classmethod
    def _postgres_only(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError("must start with postgresql:// (unset it to use the SQLite file)")
        return value


class DatabaseUrlSource(PydanticBaseSettingsSource):
    """CORTEX_DATABASE_URL, the name people expect, as `database.url` (CORTEX_DATABASE__URL
    works as well, as every nested setting does)."""

    VARIABLE = "CORTEX_DATABASE_URL"

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: `__call__` answers for the whole source."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        """The setting when the variable is set and not empty."""
        url = os.environ.get(self.VARIABLE)
        return {"database": {"url": url}} if url else {}


class MemorySettings(Section):
    """Limits on what a memory and a query may be."""

    max_content_chars: int = Field(
        default=8000, gt=0, le=100_000, description="Longest memory content accepted."
    )
    max_query_chars: int = Field(default=2000, gt=0, description="Longest recall query accepted.")
    default_agent_id: str = Field(
        default="default", min_length=1, description="Agent used when a call names none."
    )


class SearchSettings(Section):
    """Ranking: relevance × layer weight × recency boost × access boost × date boost."""

    candidate_limit: int = Field(
        default=100, gt=0, le=1000, description="Candidates taken from each backend."
    )
    core_weight: float = Field(default=1.0, ge=0, description="Layer weight of core memories.")
    working_weight: float = Field(default=0.8, ge=0, description="Layer weight of working.")
    archive_weight: float = Field(default=0.5, ge=0, description="Layer weight of archive.")
    recency_window_days: float = Field(
        default=7.0, gt=0, description="Memories younger than this get a recency boost."
    )
    recency_boost: float = Field(
        default=0.1, ge=0, description="Boost of a brand-new memory, falling to 0 over the window."
    )
    access_boost_per_hit: float = Field(
        default=0.05, ge=0, description="Boost for each past recall of a memory."
    )
    access_boost_cap: int = Field(default=10, ge=0, description="Recalls counted at most.")
    context_weight: float = Field(
        default=0.5,
        ge=0,
        description="Weight of a word found in a memory's context (the conversation around it)"
        " against one found in its content, in BM25.",
    )
    date_boost: float = Field(
        default=1.0,
        ge=0,
        description="Boost of a memory made on a day or in a month the query names"
        ' ("on 8 May, 2023", "in June 2024", "last week", 上周, 先月), or mentioning a date'
        ' that falls in it ("yesterday", resolved when it was written); 1.0 doubles its'
        " relevance.",
    )
    dated_relevance: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Relevance of a memory found by its date alone (it mentions a day the query"
        ' names: "what did I do last week"), before the date boost; the best text match is 1.'
        " Measured on LoCoMo (docs/benchmarks.md): 0.6 cost 0.005 recall@10, 0.25 nothing.",
    )
    when_boost: float = Field(
        default=0.3,
        ge=0,
        description='Boost of a memory that mentions a date, for a question asking when ("When'
        ' did …", 什么时候, いつ) that names none. 0.3 raised temporal MRR on LoCoMo by 0.02.',
    )
    fusion: Literal["weighted", "rrf"] = Field(
        default="weighted",
        description="How text and vector candidates combine: weighted normalised scores (BM25"
        " over the best, cosine min-max) or reciprocal ranks. Weighted measured better on"
        " LoCoMo (docs/benchmarks.md).",
    )
    vector_weight: float = Field(default=0.4, ge=0, description="Weight of the vector score.")
    text_weight: float = Field(default=0.6, ge=0, description="Weight of the BM25 score.")
    rrf_k: int = Field(default=60, gt=0, description="Rank offset of reciprocal-rank fusion.")
    graph_weight: float = Field(
        default=0.3,
        ge=0,
        description="Weight of the entity graph in recall: memories one hop from an entity the"
        " query or its best hits name gain this times their relation's score; 0 turns the"
        " graph step off.",
    )
    # The relevance floor (#23, cortex_mcp/engine/recall/floor.py; docs/benchmarks.md).
    floor_coverage: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Relevance floor: an answer stands only when something in it holds this"
        " share of the query's words, or is this close to it by vector (floor_cosine); else"
        " recall answers nothing rather than something unrelated. 0 turns the floor off.",
    )
    floor_cosine: float | None = Field(
        default=None,
        ge=-1,
        le=1.01,
        description="Relevance floor by vectors: the cosine similarity to the query at which a"
        " memory counts as plainly about it (see floor_coverage). Unset: the value measured"
        " for the embedding model in use (multilingual-e5-small: 0.81); for a model never"
        " measured a vector hit always counts (cosines differ too much between models).",
    )
    # Questions rank below statements (#23, engine/recall/rank.py; docs/benchmarks.md).
    question_weight: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description='Relevance of a memory that ends asking a question ("Cool! What did it'
        ' look like?") against one that states something: a question rarely holds the answer.'
        " 0.7 chosen leaving one LoCoMo dev conversation out (docs/benchmarks.md); 1 turns it"
        " off.",
    )


class SieveSettings(Section):
    """Extraction from conversations: cortex_ingest and cortex_flush."""

    redact_secrets: bool = Field(
        default=True, description="Replace keys, tokens, passwords and card numbers before storing."
    )
    additional_instructions: str = Field(
        default="", description="Extra guidance appended to the extraction prompt."
    )
    working_ttl_hours: float = Field(
        default=48.0, gt=0, description="How long deep-channel (working) memories live."
    )
    max_message_chars: int = Field(
        default=32_000, gt=0, description="Longest single message accepted by ingest/flush."
    )
    max_flush_messages: int = Field(default=2000, gt=0, description="Most messages per flush.")
    flush_batch_tokens: int = Field(
        default=4000, ge=500, description="Token cap of one extraction batch during a flush."
    )
    retry_interval_s: float = Field(
        default=60.0, gt=0, description="How often queued extractions are retried."
    )
    retry_max_backoff_s: float = Field(
        default=6 * 3600.0, gt=0, description="Longest wait between retries of one extraction."
    )
    llm_max_tokens: int = Field(default=1200, gt=0, description="Answer budget of an extraction.")
    conversation_retention_days: int = Field(
        default=0,
        ge=0,
        description="Days the conversation log keeps each message; 0 keeps them for ever.",
    )


PersonalKind = Literal["phone", "email", "address", "id_number"]


class RedactionSettings(Section):
    """Personal data kept out of memory, on top of the secrets always redacted."""

    kinds: list[PersonalKind] = Field(
        default_factory=list,
        description="Personal-data kinds never to remember (phone, email, address, id_number);"
        ' the user\'s profile words ("never remember my phone number") add to these.',
    )


LLMProviderName = Literal["anthropic", "openai", "sampling"]


class LLMSettings(Section):
    """Which chat model extracts, merges and summarises memories; none is needed."""

    provider: Literal["auto", "anthropic", "openai", "openai-compatible", "sampling", "none"] = (
        Field(
            default="auto",
            description=(
                "LLM provider. `auto` tries `order`, using each provider only when its key or"
                " base URL is set; `none` uses regex extraction only."
            ),
        )
    )
    order: list[LLMProviderName] = Field(
        default=["anthropic", "openai", "sampling"],
        description=(
            "Providers tried by `auto`, first to last. `openai` covers any OpenAI-compatible"
            " server set by base URL; `sampling` asks the connected MCP client, as a last resort."
        ),
    )
    openai_model: str = Field(
        default="gpt-4o-mini",
        description="Model for OpenAI or an OpenAI-compatible server (e.g. `llama3.2` on Ollama).",
    )
    anthropic_model: str = Field(default="claude-haiku-4-5", description="Model for Anthropic.")
    base_url: str | None = Field(
        default=None,
        description=(
            "Overrides ANTHROPIC_BASE_URL or OPENAI_BASE_URL for the chosen provider"
            " (with `auto`, OPENAI_BASE_URL)."
        ),
    )
    api_key: SecretStr | None = Field(
        default=None,
        description=(
            "Overrides ANTHROPIC_API_KEY or OPENAI_API_KEY for the chosen provider"
            " (with `auto`, OPENAI_API_KEY)."
        ),
    )
    timeout_s: float = Field(
        default=20.0, gt=0, description="Seconds each provider gets before the next is tried."
    )


class EmbeddingSettings(Section):
    """Which model turns memories into vectors for semantic search; none is needed (BM25 only)."""

    provider: Literal["auto", "openai", "openai-compatible", "local", "none"] = Field(
        default="auto",
        description=(
            "Embedding provider. `auto`: OpenAI when OPENAI_API_KEY or OPENAI_BASE_URL is set,"
            " else `local` when installed, else none (keyword search only)."
        ),
    )
    model: str = Field(
        default="text-embedding-3-small",
        description="Model for OpenAI or an OpenAI-compatible server; `local` is always e5-small.",
    )
    base_url: str | None = Field(default=None, description="Overrides OPENAI_BASE_URL.")
    api_key: SecretStr | None = Field(default=None, description="Overrides OPENAI_API_KEY.")
    dimensions: int | None = Field(
        default=None,
        gt=0,
        description="Vector length to ask for (text-embedding-3 models only); unset: the model's.",
    )
    batch_size: int = Field(
        default=64, gt=0, le=2048, description="Texts sent in one embeddings request."
    )
    timeout_s: float = Field(
        default=10.0, gt=0, description="Seconds an embeddings call may take before it is skipped."
    )
    local_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="CPU threads the local model uses for one text. 2 embeds a lone query a "
        "third faster where cores are idle; on a busy or 2-core machine it gains nothing or "
        "loses.",
    )
    drop_function_words: bool = Field(
        default=False,
        description="Embed a query without its English question words, articles and "
        "auxiliaries: the local model costs time per token (about 2 ms each on one core), and "
        "LoCoMo questions lose 2.7 tokens on average. Off by default: the whole question "
        "measured better (recall@10 0.771 against 0.766, MRR 0.575 against 0.561, better in "
        "4 of 5 conversations; docs/benchmarks.md).",
    )


class LifecycleSettings(Section):
    """The nightly lifecycle: promote, merge, decay, archive, compress, profile, mirror."""

    enabled: bool = Field(
        default=True, description="Run the lifecycle on its schedule inside the server."
    )
    schedule: str = Field(
        default="0 3 * * *",
        description="Cron expression of the runs; a run missed while the server was down runs "
        "at the next start.",
    )
    timezone: str = Field(
        default="local",
        description="IANA time zone the schedule is read in (`local`: the system's).",
    )
    lease_ttl_s: float = Field(
        default=600.0,
        gt=0,
        description="How long a process's claim on a run lasts unless renewed; another process "
        "takes over only after it expires.",
    )
    poll_interval_s: float = Field(
        default=300.0, gt=0, description="Longest wait between two checks of the schedule."
    )
    startup_delay_s: float = Field(
        default=30.0,
        ge=0,
        description="Wait after the server starts before the first check (and catch-up run).",
    )
    promote_threshold: float = Field(
        default=0.5, ge=0, le=1, description="Promotion score from which working goes to core."
    )
    promote_min_age_hours: float = Field(
        default=24.0, ge=0, description="Working memories younger than this are not judged yet."
    )
    promote_max_per_run: int = Field(
        default=5,
        ge=1,
        description="Most working memories one run promotes to core per agent, best scores "
        "first (seed 004); the rest wait for the next run, and the report lists them.",
    )
    merge_llm_similarity: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Term overlap from which a cluster is shown to the LLM to decide a merge.",
    )
    merge_max_cluster: int = Field(
        default=8, ge=2, le=50, description="Most memories resolved together in one merge."
    )
    archive_threshold: float = Field(
        default=0.2, ge=0, le=1, description="Decay score below which core moves to archive."
    )
    archive_ttl_days: float = Field(
        default=90.0,
        gt=0,
        description="Days in archive before entries are compressed into a monthly summary.",
    )
    delete_compressed_archive: bool = Field(
        default=False,
        description="Soft-delete archive entries once compressed (restorable; never purged).",
    )
    profile_max_memories: int = Field(
        default=60, gt=0, description="Most memories the profile is synthesized from."
    )

    @field_validator("schedule")
    @classmethod
    def _valid_cron(cls, value: str) -> str:
        from croniter import croniter

        if not croniter.is_valid(value):
            raise ValueError(f"not a cron expression: {value!r}")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        if value not in ("local", "UTC"):
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError) as err:
                raise ValueError(f"unknown time zone: {value!r}") from err
        return value


class MirrorSettings(Section):
    """The Markdown mirror of memory in the data directory (MEMORY.md and memory/)."""

    enabled: bool = Field(default=True, description="Keep Markdown files in step with the store.")
    debounce_s: float = Field(
        default=5.0, ge=0, description="Quiet time after a change before the mirror is rewritten."
    )
    max_lines: int = Field(
        default=200, ge=20, description="Line budget of MEMORY.md (agents load the first 200)."
    )
    max_bytes: int = Field(
        default=25_000, ge=2000, description="Size budget of MEMORY.md in bytes."
    )
    extra_memory_md: Path | None = Field(
        default=None,
        description="Also write MEMORY.md here (e.g. an agent workspace); nowhere else.",
    )

    @field_validator("extra_memory_md")
    @classmethod
    def _expand_extra(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None


class TokenGrant(Section):
    """One bearer token and what it may do (remote transports)."""

    token: SecretStr = Field(description="The bearer token.")
    agents: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:@-]{1,64}$")]] = Field(
        min_length=1, description="Agent ids this token may act for; the first is its default."
    )
    shared: Literal["none", "read", "write"] = Field(
        default="read",
        description="Shared memory (scope=shared): `none` neither sees nor writes it, `read` "
        "sees it, `write` also writes it.",
    )


class RemoteSettings(Section):
    """Limits of the SSE and streamable HTTP transports, so no client can starve the others."""

    header_timeout_s: float = Field(
        default=10.0, gt=0, description="A connection must send its request headers within this."
    )
    idle_timeout_s: int = Field(
        default=5, gt=0, description="An idle keep-alive connection is closed after this."
    )
    max_connections: int = Field(
        default=200,
        gt=0,
        description="Open connections at most (and below the process's file descriptor limit); "
        "beyond it the oldest connection still waiting to send a request is closed.",
    )
    max_sessions: int = Field(
        default=100,
        gt=0,
        description="Concurrent MCP sessions (SSE streams, HTTP sessions); a new one past it"
        " ends the session idle longest.",
    )
    max_sessions_per_client: int = Field(
        default=20,
        gt=0,
        description="Sessions one client (one token; without tokens, one address) may hold;"
        " a new one past it ends that client's session idle longest.",
    )
    body_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="A request's body must arrive within this after its headers (else 408).",
    )
    session_idle_timeout_s: float = Field(
        default=1800.0, gt=0, description="A session with no message for this long is closed."
    )


class HooksSettings(Section):
    """The host hooks (`cortex-mcp-hook`): the local socket they reach this server on, what
    each moment may inject, and which moments run (README: Hooks)."""

    socket: bool = Field(
        default=True,
        description="Listen on <home>/hooks/cortex.sock (0600, this user only) for the hook "
        "command; off: hooks fall back to MEMORY.md and the spool.",
    )
    session_start_tokens: int = Field(
        default=400, ge=0, le=8000, description="Budget of the SessionStart digest (0: none)."
    )
    prompt_tokens: int = Field(
        default=300, ge=0, le=8000, description="Budget of what one prompt gets (0: none)."
    )
    relevance_floor: float = Field(
        default=0.95,
        ge=0,
        le=10,
        description="A recalled memory is injected into a prompt only at this recall score or "
        "above (bench/hooks_floor.py picks it on LoCoMo).",
    )
    shared_words: int = Field(
        default=2,
        ge=0,
        le=10,
        description="What is injected into a prompt must also share this many content words "
        "with it (all of them when it has fewer): recall always ranks something first. The "
        "memory recall ranks first, 0.1 above relevance_floor, needs one and a third of them; "
        'the answer to a slot the prompt asks about ("what is my name?"), none.',
    )
    recent_messages: int = Field(
        default=2, ge=0, le=10, description="Transcript messages added to a prompt's query."
    )
    tool_result_chars: int = Field(
        default=2000, ge=0, description="A tool call's input or result is cut to this length."
    )
    session_start: bool = Field(default=True, description="Inject the digest at SessionStart.")
    prompt: bool = Field(default=True, description="Recall for each prompt (UserPromptSubmit).")
    stop: bool = Field(default=True, description="Ingest each finished exchange (Stop).")
    pre_compact: bool = Field(default=True, description="Flush before compaction (PreCompact).")
    session_end: bool = Field(default=True, description="Flush the rest at SessionEnd.")


class WorkspaceSettings(Section):
    """What an agent works on (#26): the project its memories belong to, the scratchpad it
    keeps per project, and the one budget core memory is shown in (cortex://core, the
    cortex_context prompt and MEMORY.md)."""

    core_tokens: int = Field(
        default=1500,
        ge=100,
        le=50_000,
        description="Budget of core memory in cortex://core, the cortex_context prompt and "
        "MEMORY.md; the most important first, then 'N more: ask cortex_recall'.",
    )
    scratchpad_chars: int = Field(
        default=2000, ge=100, le=20_000, description="Longest scratchpad (per agent and project)."
    )
    scratchpad_tokens: int = Field(
        default=500, ge=0, le=8000, description="Budget of the scratchpad in the digest."
    )
    project_boost: float = Field(
        default=1.5,
        ge=1,
        le=10,
        description="Recall score factor of the current project's memories (other projects' "
        "memories are divided by it).",
    )


class Settings(BaseSettings):
    """Every knob of cortex-mcp. Env CORTEX_* (nested with __), then <home>/config.toml."""

    model_config = SettingsConfigDict(
        env_prefix="CORTEX_",
        env_nested_delimiter="__",
        extra="forbid",
        nested_model_default_partial_update=True,
        env_ignore_empty=True,
    )

    home: Path = Field(
        default_factory=home_from_environment,
        description="Data folder: the database, config.toml, MEMORY.md and memory/. An absolute"
        " path or one starting with ~ (a relative one is refused); empty counts as unset.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="WARNING", description="Log level; logs go to stderr, never stdout."
    )
    auth_token: SecretStr | None = Field(
        default=None,
        description="Bearer token required by SSE/HTTP; needed to bind a non-loopback host.",
    )
    auth_tokens: list[TokenGrant] = Field(
        default_factory=list,
        description="Per-token agents for SSE/HTTP: a JSON list of {token, agents, shared}; "
        "each token may act only for its agents (README: Remote transports).",
    )
    host: str = Field(default="127.0.0.1", description="Address the SSE/HTTP transports bind.")
    port: int = Field(default=DEFAULT_PORT, gt=0, lt=65536, description="Port of SSE/HTTP.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Extra Host headers accepted over HTTP (DNS-rebinding protection).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list, description="Extra Origin headers accepted over HTTP."
    )
    tools: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Expose only these tools (comma-separated names); empty = all.",
    )
    store: StoreSettings = StoreSettings()
    database: DatabaseSettings = DatabaseSettings()
    memory: MemorySettings = MemorySettings()
    search: SearchSettings = SearchSettings()
    sieve: SieveSettings = SieveSettings()
    redaction: RedactionSettings = RedactionSettings()
    llm: LLMSettings = LLMSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    lifecycle: LifecycleSettings = LifecycleSettings()
    mirror: MirrorSettings = MirrorSettings()
    remote: RemoteSettings = RemoteSettings()
    hooks: HooksSettings = HooksSettings()
    workspace: WorkspaceSettings = WorkspaceSettings()

    @field_validator("tools", mode="before")
    @classmethod
    def _split_tools(cls, value: object) -> object:
        if isinstance(value, str):
            return [name.strip() for name in value.split(",") if name.strip()]
        return value

    @field_validator("home")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        value = value.expanduser()
        if not value.is_absolute():
            raise ValueError(
                f"must be an absolute path (or start with ~), not {str(value)!r}: a relative"
                " one would depend on the folder the client starts in"
            )
        return value

    @property
    def database_path(self) -> Path:
        """Where the SQLite file lives."""
        return self.home / self.store.filename

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,  # called by keyword: keep every name
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then the environment, then <home>/config.toml, then defaults."""
        toml = home_from_environment() / "config.toml"
        return (
            init_settings,
            env_settings,
            DatabaseUrlSource(settings_cls),
            TomlConfigSettingsSource(settings_cls, toml_file=toml),
        )


PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


def cortex_variables() -> dict[str, str]:
    """The CORTEX_* variables set and not empty, as typed (for `cortex-mcp config`'s sources)."""
    return {k: v for k, v in os.environ.items() if k.upper().startswith("CORTEX_") and v}


def provider_environment() -> dict[str, str]:
    """The ecosystem's standard provider variables, as set in the environment."""
    return {name: os.environ[name] for name in PROVIDER_VARIABLES if os.environ.get(name)}


def load_settings(**overrides: Any) -> Settings:
    """Read the settings once, with `overrides` (from CLI flags) taking precedence.

    Raises ConfigError naming the variable, `config.toml:<line>` or the flag at fault.
    """
    toml = config_toml()
    try:
        return Settings(**overrides)
    except SettingsError as err:  # a complex value (a list, a table) that is not JSON
        raise unparsable(err) from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(str(toml), f"not valid TOML ({err})", "fix that line") from err
    except OSError as err:
        raise ConfigError(
            str(toml), f"cannot be read ({err.strerror})", "fix its permissions"
        ) from err
    except ValidationError as err:
        raise explain(err, toml, overrides) from err


def config_toml() -> Path:
    """The config.toml the settings are read from: in the home CORTEX_HOME names."""
    return home_from_environment() / "config.toml"


def unparsable(err: SettingsError) -> ConfigError:
    """A variable holding a list or a table that is not valid JSON, as one line naming it."""
    field = re.search(r'field "([^"]+)"', str(err))
    name = field.group(1) if field else "settings"
    variable = next(
        (typed for typed in os.environ if typed.upper() == f"CORTEX_{name}".upper()),
        f"CORTEX_{name}".upper(),
    )
    example = JSON_EXAMPLES.get(name, "")
    detail = f" ({err.__cause__})" if err.__cause__ else ""
    return ConfigError(
        variable, f"must be valid JSON{example}{detail}", "fix or unset the variable"
    )


JSON_EXAMPLES = {
    "auth_tokens": ', a list such as [{"token": "…", "agents": ["me"], "shared": "read"}]',
    "allowed_hosts": ', a list such as ["example.com"]',
    "allowed_origins": ', a list such as ["https://example.com"]',
}
"""What a list-valued variable looks like, for the error when it is not JSON."""


def explain(err: ValidationError, toml: Path, overrides: dict[str, Any]) -> ConfigError:
    """The first problem of `err` as a ConfigError naming where the value was typed."""
    problems = err.errors()
    first = problems[0]
    keys = [str(part) for part in first["loc"]]
    variable = "CORTEX_" + "__".join(keys).upper()
    typed = {name.upper(): name for name in os.environ}
    rule = str(first["msg"]).removeprefix("Value error, ").replace("Input should be", "must be")
    unknown = first["type"] == "extra_forbidden"
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    if keys and keys[0] in overrides:
        return ConfigError(f"--{keys[0]}", rule + more, "change the flag")
    if variable in typed:
        rule = "not a setting" + _did_you_mean(variable) if unknown else rule
        return ConfigError(typed[variable], rule + more, "fix or unset the variable")
    line = toml_line(toml, keys)
    rule = "not a setting" + _did_you_mean_in_toml(keys) if unknown else rule
    if line is not None:
        return ConfigError(f"{toml}:{line}", f"{'.'.join(keys)}: {rule}{more}", "fix that line")
    return ConfigError(".".join(keys) or "settings", rule + more, "fix the setting")


def toml_line(toml: Path, keys: list[str]) -> int | None:
    """The line of config.toml where `keys` (section, then key) is set, or where the table
    `[keys]` opens, if it is there."""
    try:
        lines = toml.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    section, wanted = ".".join(keys[:-1]), keys[-1] if keys else ""
    current = ""
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            current = line.strip("[]").strip().strip('"')
            if current == ".".join(keys):
                return number
        elif line.split("=", 1)[0].strip().strip('"') == wanted and current == section:
            return number
    return None


def _did_you_mean_in_toml(keys: list[str]) -> str:
    """The closest key config.toml could have meant: a table (`[search]`) or a key of the
    same table, written as it is written in the file."""
    if len(keys) == 1:
        tables = [name for name, field in Settings.model_fields.items() if is_section(field)]
        plain = [name for name, field in Settings.model_fields.items() if not is_section(field)]
        close = difflib.get_close_matches(keys[0].lower(), tables + plain, n=1, cutoff=0.6)
        if not close:
            return ""
        return (
            f" (did you mean [{close[0]}]?)"
            if close[0] in tables
            else f" (did you mean {close[0]}?)"
        )
    section = Settings.model_fields.get(keys[0])
    annotation = section.annotation if section is not None else None
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return ""
    close = difflib.get_close_matches(keys[-1].lower(), list(annotation.model_fields), n=1)
    return f" (did you mean {close[0]} in [{keys[0]}]?)" if close else ""


def is_section(field: FieldInfo) -> bool:
    """Whether a setting is a table of settings (`[search]`), not a value."""
    return isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)


def known_variables() -> list[str]:
    """Every CORTEX_* variable that names a setting."""
    names = []
    for name, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names += [f"CORTEX_{name}__{sub}".upper() for sub in annotation.model_fields]
        else:
            names.append(f"CORTEX_{name}".upper())
    return names


def _did_you_mean(variable: str) -> str:
    close = difflib.get_close_matches(variable, known_variables(), n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_variables() -> list[str]:
    """Warnings, one line each, for CORTEX_* variables that set nothing (a typo is ignored
    by the settings loader when it names no section)."""
    known = set(known_variables()) | OTHER_VARIABLES | {DatabaseUrlSource.VARIABLE}
    sections = {
        f"CORTEX_{name}__".upper()
        for name, field in Settings.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
    }
    warnings = []
    for name in sorted(os.environ):
        upper = name.upper()
        if not upper.startswith("CORTEX_") or upper in known:
            continue
        if any(upper.startswith(prefix) for prefix in sections):
            continue  # a section's unknown key is an error the loader reports
        warnings.append(f"{name}: not a setting, ignored{_did_you_mean(upper)}")
    return warnings


def debug_requested() -> bool:
    """True when CORTEX_LOG_LEVEL asks for DEBUG (read raw: the settings may be what failed)."""
    return os.environ.get("CORTEX_LOG_LEVEL", "").strip().upper() == "DEBUG"


def empty_home_warning() -> str | None:
    """The warning for `CORTEX_HOME=` (empty: an unset `${env:CORTEX_HOME}` in a client)."""
    if os.environ.get("CORTEX_HOME") == "":
        return f"CORTEX_HOME is empty, so the default home {DEFAULT_HOME} is used"
    return None


def settings_markdown() -> str:
    """The settings reference (docs/configuration.md): every field, default, env var, meaning."""
    lines = [
        "# Configuration",
        "",
        "Generated by `cortex-mcp config --markdown`; a test keeps it in step with the code.",
        "",
        "Set any of these as environment variables, or in `<home>/config.toml` (sections as",
        "tables, e.g. `[search]`). Precedence: command-line flags > environment > config.toml >",
        "defaults. Unknown keys in config.toml are an error.",
        "",
        "| setting | environment variable | default | meaning |",
        "|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for sub_name, sub_field in annotation.model_fields.items():
                lines.append(_row(f"{name}.{sub_name}", f"{name}__{sub_name}", sub_field))
        else:
            lines.append(_row(name, name, field))
    return "\n".join(lines) + "\n"


def _row(dotted: str, env: str, field: FieldInfo) -> str:
    default = field.get_default(call_default_factory=False)
    if dotted == "home":
        shown = "the platform's user data folder (`~/.local/share/cortex-mcp` on Linux)"
    elif default is None:
        shown = "unset"
    elif field.default_factory is not None:
        shown = "`[]`"
    elif default == "":
        shown = 'empty (`""`)'
    else:
        shown = f"`{default}`"
    return f"| `{dotted}` | `CORTEX_{env.upper()}` | {shown} | {field.description or ''} |"
