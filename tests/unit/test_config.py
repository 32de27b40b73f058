"""homeagent.config: YAML → typed config, env expansion, key-path errors, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from homeagent.config import (
    Config,
    Duration,
    LLMConfig,
    expand_env,
    load_config,
    parse_duration,
)
from homeagent.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "homeagent.yaml"


def write(tmp_path: Path, text: str, name: str = "homeagent.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> Config:
    return load_config(write(tmp_path, text), env=env or {})


def config_error(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_text(tmp_path, text, env)
    return str(info.value)


# -- loading ----------------------------------------------------------------------------


def test_values_from_yaml_are_typed(tmp_path: Path) -> None:
    cfg = load_text(
        tmp_path,
        """
daemon:
  listen_addr: "0.0.0.0:9000"
llm:
  provider: echo
  model: 小模型
  max_tokens: 64
  temperature: 1
  prefix_cache: false
api:
  cors_origins: ["http://a.local", "http://b.local"]
log:
  level: debug
  format: json
""",
    )
    assert cfg.listen == ("0.0.0.0", 9000)
    assert cfg.llm.provider == "echo"
    assert cfg.llm.model == "小模型"
    assert cfg.llm.max_tokens == 64
    assert cfg.llm.temperature == 1.0 and isinstance(cfg.llm.temperature, float)
    assert cfg.llm.prefix_cache is False
    assert cfg.api.cors_origins == ("http://a.local", "http://b.local")
    assert (cfg.log.level, cfg.log.format) == ("debug", "json")
    # Untouched keys keep their defaults.
    assert cfg.llm.top_p == LLMConfig().top_p
    assert cfg.source == str((tmp_path / "homeagent.yaml").resolve())


@pytest.mark.parametrize("text", ["", "# only a comment\n", "llm:\n"])
def test_empty_file_or_section_gives_defaults(tmp_path: Path, text: str) -> None:
    cfg = load_text(tmp_path, text)
    assert cfg.llm == LLMConfig()
    assert cfg.agent.max_tool_rounds == 5


def test_invalid_yaml_is_a_config_error(tmp_path: Path) -> None:
    message = config_error(tmp_path, "llm: [unclosed\n")
    assert "not valid YAML" in message
    assert "homeagent.yaml" in message


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_top_level_must_be_a_mapping(tmp_path: Path, text: str) -> None:
    assert "top level must be a mapping" in config_error(tmp_path, text)


def test_section_must_be_a_mapping(tmp_path: Path) -> None:
    message = config_error(tmp_path, "llm: 3\n")
    assert message.startswith("llm:")
    assert "mapping" in message


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml", env={})


def test_non_utf8_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "homeagent.yaml"
    path.write_bytes(b"llm:\n  model: \xff\xfe\n")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(path, env={})


# -- environment expansion --------------------------------------------------------------


def test_env_var_is_expanded(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "llm:\n  api_key: ${MY_KEY}\n", env={"MY_KEY": "k-123"})
    assert cfg.llm.api_key == "k-123"


def test_env_var_inside_a_longer_string(tmp_path: Path) -> None:
    cfg = load_text(
        tmp_path,
        'llm:\n  base_url: "http://${HOST}:${PORT:-11434}/v1"\n',
        env={"HOST": "nas.local"},
    )
    assert cfg.llm.base_url == "http://nas.local:11434/v1"


def test_env_default_used_only_when_unset(tmp_path: Path) -> None:
    text = "llm:\n  model: ${MODEL:-fallback}\n"
    assert load_text(tmp_path, text).llm.model == "fallback"
    assert load_text(tmp_path, text, env={"MODEL": "real"}).llm.model == "real"
    # Set but empty is still set.
    assert load_text(tmp_path, text, env={"MODEL": ""}).llm.model == ""


def test_empty_env_default(tmp_path: Path) -> None:
    assert load_text(tmp_path, "llm:\n  api_key: ${NOPE:-}\n").llm.api_key == ""


def test_unset_env_var_names_variable_and_key_path(tmp_path: Path) -> None:
    message = config_error(tmp_path, "llm:\n  api_key: ${DEEPSEEK_API_KEY}\n")
    assert "DEEPSEEK_API_KEY" in message
    assert message.startswith("llm.api_key:")
    assert "${DEEPSEEK_API_KEY:-default}" in message


def test_unset_env_var_in_a_list_names_key_path(tmp_path: Path) -> None:
    message = config_error(tmp_path, "api:\n  cors_origins: ['${ORIGIN}']\n")
    assert "ORIGIN" in message and "api.cors_origins" in message


def test_env_values_are_not_expanded_twice(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "llm:\n  api_key: ${A}\n", env={"A": "${B}"})
    assert cfg.llm.api_key == "${B}"


def test_env_value_for_numeric_and_bool_keys(tmp_path: Path) -> None:
    cfg = load_text(
        tmp_path,
        "llm:\n  max_tokens: ${MAX:-128}\n  temperature: ${TEMP}\n  prefix_cache: ${PC}\n",
        env={"TEMP": "0.25", "PC": "false"},
    )
    assert cfg.llm.max_tokens == 128
    assert cfg.llm.temperature == 0.25
    assert cfg.llm.prefix_cache is False


def test_env_value_of_wrong_type_is_rejected(tmp_path: Path) -> None:
    message = config_error(tmp_path, "llm:\n  max_tokens: ${MAX}\n", env={"MAX": "lots"})
    assert "llm.max_tokens" in message and "integer" in message


def test_env_value_for_duration(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "agent:\n  tool_timeout: ${T:-500ms}\n")
    assert cfg.agent.tool_timeout == pytest.approx(0.5)


def test_expand_env_function_directly() -> None:
    assert expand_env("a${X}b${Y:-z}", "k", {"X": "1"}) == "a1bz"
    assert expand_env("no refs $HOME {X}", "k", {}) == "no refs $HOME {X}"
    with pytest.raises(ConfigError, match="section.key: environment variable X"):
        expand_env("${X}", "section.key", {})


# -- unknown keys and wrong types -------------------------------------------------------


def test_unknown_key_names_dotted_path(tmp_path: Path) -> None:
    message = config_error(tmp_path, "llm:\n  modle: x\n")
    assert message.startswith("llm.modle:")
    assert "unknown key" in message
    assert "model" in message  # the known keys are listed as the fix


def test_unknown_section_is_rejected(tmp_path: Path) -> None:
    message = config_error(tmp_path, "memroy:\n  k: 30\n")
    assert message.startswith("memroy:") and "unknown key" in message


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("llm:\n  max_tokens: true\n", "llm.max_tokens", "an integer"),
        ("llm:\n  max_tokens: 1.5\n", "llm.max_tokens", "an integer"),
        ("llm:\n  max_tokens: '12'\n", "llm.max_tokens", "an integer"),
        ("llm:\n  prefix_cache: 1\n", "llm.prefix_cache", "true or false"),
        ("llm:\n  prefix_cache: 'yes please'\n", "llm.prefix_cache", "true or false"),
        ("llm:\n  temperature: warm\n", "llm.temperature", "a number"),
        ("llm:\n  temperature: false\n", "llm.temperature", "a number"),
        ("llm:\n  model: [a, b]\n", "llm.model", "a string"),
        ("llm:\n  model: null\n", "llm.model", "a string"),
        ("llm:\n  model: true\n", "llm.model", "a string"),
        ("api:\n  cors_origins: http://x\n", "api.cors_origins", "a list of strings"),
        ("api:\n  cors_origins: [1, 2]\n", "api.cors_origins", "a list of strings"),
        ("llm:\n  provider: gpt\n", "llm.provider", "one of 'llama_cpp', 'echo'"),
        ("log:\n  level: verbose\n", "log.level", "one of"),
        ("agent:\n  tool_timeout: soon\n", "agent.tool_timeout", "duration"),
        ("agent:\n  tool_timeout: 10 minutes\n", "agent.tool_timeout", "duration"),
        ("agent:\n  tool_timeout: true\n", "agent.tool_timeout", "duration"),
        ("agent:\n  tool_timeout: -5\n", "agent.tool_timeout", "negative"),
        ("agent:\n  tool_timeout: .inf\n", "agent.tool_timeout", "finite"),
        ("daemon:\n  data_dir: 5\n", "daemon.data_dir", "a path"),
    ],
)
def test_wrong_type_names_key_path_and_expected_type(
    tmp_path: Path, text: str, path: str, expected: str
) -> None:
    message = config_error(tmp_path, text)
    assert message.startswith(f"{path}:"), message
    assert expected in message, message


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("daemon:\n  listen_addr: '8080'\n", "daemon.listen_addr"),
        ("daemon:\n  listen_addr: 'host:99999'\n", "daemon.listen_addr"),
        ("agent:\n  max_tool_rounds: 0\n", "agent.max_tool_rounds"),
        ("llm:\n  max_tokens: 0\n", "llm.max_tokens"),
        ("llm:\n  n_ctx: 16\n", "llm.n_ctx"),
        ("llm:\n  temperature: 3\n", "llm.temperature"),
        ("api:\n  max_body_bytes: 10\n", "api.max_body_bytes"),
        ("actions:\n  top_k: 0\n", "actions.top_k"),
        ("actions:\n  top_k_local: 0\n", "actions.top_k_local"),
    ],
)
def test_out_of_range_values_are_rejected(tmp_path: Path, text: str, path: str) -> None:
    assert config_error(tmp_path, text).startswith(f"{path}:")


def test_listen_addr_ipv6_and_empty_host(tmp_path: Path) -> None:
    assert load_text(tmp_path, "daemon:\n  listen_addr: '[::1]:8081'\n").listen == ("::1", 8081)
    assert load_text(tmp_path, "daemon:\n  listen_addr: ':8082'\n").listen == ("0.0.0.0", 8082)


# -- durations --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        ("15s", 15.0),
        ("30m", 1800.0),
        ("1h", 3600.0),
        ("500ms", 0.5),
        ("2d", 172800.0),
        ("1.5h", 5400.0),
        (".5s", 0.5),
        (" 10 s ", 10.0),
        ("45", 45.0),
        (45, 45.0),
        (0.25, 0.25),
        (0, 0.0),
    ],
)
def test_parse_duration(raw: object, seconds: float) -> None:
    value = parse_duration(raw, "x.y")
    assert isinstance(value, Duration)
    assert value == pytest.approx(seconds)


@pytest.mark.parametrize("raw", ["", "s", "10x", "1h30m", "-1s", "ten", None, [1], True])
def test_parse_duration_rejects(raw: object) -> None:
    with pytest.raises(ConfigError, match=r"^x\.y:"):
        parse_duration(raw, "x.y")


def test_durations_in_file(tmp_path: Path) -> None:
    cfg = load_text(
        tmp_path,
        "daemon:\n  heartbeat_interval: 30m\n  check_interval: 500ms\n"
        "agent:\n  tool_timeout: 2\n  turn_timeout: 1h\n",
    )
    assert cfg.daemon.heartbeat_interval == 1800
    assert cfg.daemon.check_interval == pytest.approx(0.5)
    assert cfg.agent.tool_timeout == 2
    assert cfg.agent.turn_timeout == 3600


# -- paths ------------------------------------------------------------------------------


def test_relative_paths_resolve_against_config_dir(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "daemon:\n  data_dir: ../state\nagent:\n  personality_file: me.md\n"
        "knowledge:\n  dir: ./kb\n",
        name="etc/homeagent.yaml",
    )
    cfg = load_config(path, env={})
    assert cfg.data_dir == tmp_path / "state"
    assert Path(cfg.agent.personality_file) == tmp_path / "etc" / "me.md"
    assert Path(cfg.knowledge.dir) == tmp_path / "etc" / "kb"


def test_default_paths_resolve_against_config_dir(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "", name="conf/homeagent.yaml"), env={})
    assert cfg.data_dir == tmp_path / "conf" / "data"
    assert Path(cfg.agent.personality_file) == tmp_path / "personal.md"
    assert Path(cfg.knowledge.dir) == tmp_path / "knowledge"


def test_relative_paths_do_not_depend_on_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "daemon:\n  data_dir: data\n", name="a/homeagent.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(path, env={}).data_dir == tmp_path / "a" / "data"


def test_absolute_path_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "abs" / "data"
    cfg = load_text(tmp_path, f"daemon:\n  data_dir: {target}\n")
    assert cfg.data_dir == target


def test_empty_model_path_stays_empty(tmp_path: Path) -> None:
    assert load_text(tmp_path, "llm:\n  model_path: ''\n").llm.model_path == ""


# -- overrides --------------------------------------------------------------------------


def test_homeagent_config_env_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "llm:\n  model: from-env-file\n", name="other.yaml")
    cfg = load_config(env={"HOMEAGENT_CONFIG": str(path)})
    assert cfg.llm.model == "from-env-file"
    assert cfg.source == str(path.resolve())


def test_explicit_path_wins_over_homeagent_config(tmp_path: Path) -> None:
    chosen = write(tmp_path, "llm:\n  model: explicit\n", name="a.yaml")
    other = write(tmp_path, "llm:\n  model: env\n", name="b.yaml")
    cfg = load_config(chosen, env={"HOMEAGENT_CONFIG": str(other)})
    assert cfg.llm.model == "explicit"


def test_homeagent_config_pointing_nowhere_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="HOMEAGENT_CONFIG"):
        load_config(env={"HOMEAGENT_CONFIG": str(tmp_path / "missing.yaml")})


def test_homeagent_data_dir_replaces_data_dir(tmp_path: Path) -> None:
    path = write(tmp_path, "daemon:\n  data_dir: ../somewhere\n")
    target = tmp_path / "override"
    cfg = load_config(path, env={"HOMEAGENT_DATA_DIR": str(target)})
    assert cfg.data_dir == target


def test_relative_homeagent_data_dir_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = load_config(write(tmp_path, ""), env={"HOMEAGENT_DATA_DIR": "rel"})
    assert cfg.data_dir == tmp_path / "rel"
    assert cfg.data_dir.is_absolute()


def test_cli_overrides_merge_per_section(tmp_path: Path) -> None:
    path = write(tmp_path, "llm:\n  model: file\n  max_tokens: 64\n")
    cfg = load_config(path, env={}, overrides={"llm": {"model": "flag"}})
    assert cfg.llm.model == "flag"
    assert cfg.llm.max_tokens == 64


def test_cli_overrides_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^llm\.max_tokens:"):
        load_config(write(tmp_path, ""), env={}, overrides={"llm": {"max_tokens": "many"}})


def test_no_file_anywhere_uses_defaults_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # /etc/homeagent/homeagent.yaml is one default location; skip if this box has one.
    if Path("/etc/homeagent/homeagent.yaml").is_file():
        pytest.skip("a system config exists")
    cfg = load_config(env={})
    assert cfg.source == ""
    assert cfg.data_dir == tmp_path / "data"
    assert Path(cfg.agent.personality_file) == tmp_path / "personal.md"


def test_config_is_frozen(tmp_path: Path) -> None:
    cfg = load_text(tmp_path, "")
    with pytest.raises(AttributeError):
        cfg.llm.model = "x"  # type: ignore[misc]


# -- the shipped config -----------------------------------------------------------------


def test_shipped_config_loads_without_secrets_in_env() -> None:
    cfg = load_config(SHIPPED, env={})
    assert cfg.llm.api_key == ""
    assert cfg.api.token == ""
    assert cfg.llm.provider == "llama_cpp"
    assert cfg.data_dir == REPO / "data"
    assert Path(cfg.agent.personality_file) == REPO / "personal.md"
    assert Path(cfg.knowledge.dir) == REPO / "knowledge"


def test_shipped_config_takes_the_key_from_env() -> None:
    cfg = load_config(SHIPPED, env={"DEEPSEEK_API_KEY": "sk-test"})
    assert cfg.llm.api_key == "sk-test"


def test_every_shipped_key_is_a_real_key() -> None:
    raw = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    cfg = load_config(SHIPPED, env={})
    for section, values in raw.items():
        assert hasattr(cfg, section), section
        for key in values or {}:
            assert hasattr(getattr(cfg, section), key), f"{section}.{key}"


def test_shipped_config_documents_every_key() -> None:
    """Every config key exists in the shipped file, so the file documents them all."""
    import dataclasses

    raw = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    for section in dataclasses.fields(Config):
        if section.name == "source":
            continue
        section_type = type(getattr(Config(), section.name))
        for key in dataclasses.fields(section_type):
            assert key.name in raw[section.name], f"{section.name}.{key.name}"
