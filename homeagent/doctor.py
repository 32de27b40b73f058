"""`homeagent doctor`: check what the daemon needs, print each problem with its fix."""

from __future__ import annotations

import socket
import sqlite3
import tempfile
from pathlib import Path

from homeagent.checks import Check
from homeagent.config import Config, load_config
from homeagent.errors import HomeAgentError
from homeagent.schema import all_migrations
from homeagent.store.inspect import inspect_file


def _check_data_dir(cfg: Config) -> Check:
    path = Path(cfg.data_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as err:
        return Check("data_dir", False, f"{path} is not writable: {err.strerror or err}",
                     "create it and give the daemon's user write access, or set HOMEAGENT_DATA_DIR")
    return Check("data_dir", True, f"{path} is writable")


def _check_db(cfg: Config) -> Check:
    path = Path(cfg.data_dir) / "homeagent.db"
    latest = max(m.version for m in all_migrations())
    if not path.exists():
        return Check("database", True, f"{path} will be created at first start (schema {latest})")
    try:
        state = inspect_file(path)
    except sqlite3.Error as err:
        return Check("database", False, f"{path} cannot be read: {err}", "restore a backup or move the file away")
    version, integrity = state.schema_version, state.integrity
    if version > latest:
        return Check("database", False, f"{path} has schema {version}, newer than this HomeAgent ({latest})",
                     "upgrade HomeAgent or restore a backup made by this version")
    if integrity != "ok":
        return Check("database", False, f"{path} failed its integrity check: {integrity}", "restore a backup")
    return Check("database", True, f"{path} schema {version}/{latest}, integrity ok")


def _check_personality(cfg: Config) -> Check:
    path = Path(cfg.agent.personality_file)
    if not path.is_file():
        return Check("personality", False, f"{path} does not exist", "create personal.md or set agent.personality_file")
    if not path.read_text(encoding="utf-8", errors="replace").strip():
        return Check("personality", False, f"{path} is empty", "write the agent's personality into it")
    return Check("personality", True, f"{path} ({path.stat().st_size} bytes)")


def _check_model(cfg: Config) -> Check:
    if cfg.llm.provider != "llama_cpp":
        return Check("model", True, f"provider {cfg.llm.provider} needs no model file")
    from homeagent.llm.models import resolve_model_path

    try:
        path = resolve_model_path(str(cfg.llm.model_path))
    except HomeAgentError as err:
        return Check("model", False, str(err), "run `make venv`, or set llm.model_path to a GGUF file")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        return Check("model", False, f"{path} is not a GGUF file", "point llm.model_path at a .gguf model")
    from homeagent.llm.models import engine_import_error

    if (problem := engine_import_error()) is not None:
        return Check("model", False, f"llama-cpp-python cannot be imported: {problem}", "run `make venv` to build it")
    return Check("model", True, f"{path} ({path.stat().st_size // (1024 * 1024)} MiB)")


def _check_port(cfg: Config) -> Check:
    host, port = cfg.listen
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as err:
            return Check("port", False, f"cannot listen on {host}:{port}: {err.strerror or err}",
                         "stop what uses the port (perhaps a running daemon) or change daemon.listen_addr")
    if host not in ("127.0.0.1", "::1", "localhost") and not cfg.api.token:
        return Check("port", False, f"{host}:{port} is not loopback but api.token is empty",
                     "set api.token (e.g. ${HOMEAGENT_API_TOKEN}) or listen on 127.0.0.1")
    return Check("port", True, f"{host}:{port} is free")


def run_checks(config_path: str | None, probe: bool = False) -> list[Check]:
    try:
        cfg = load_config(config_path)
    except HomeAgentError as err:
        return [Check("config", False, str(err), "fix the config file as the message says")]
    source = cfg.source or "built-in defaults"
    checks = [Check("config", True, f"{source} is valid")]
    for check in (_check_data_dir, _check_db, _check_personality, _check_model, _check_port):
        try:
            checks.append(check(cfg))
        except OSError as err:
            checks.append(Check(check.__name__.removeprefix("_check_"), False, str(err)))
    checks += _provider_checks(cfg, probe)
    checks += _ext_checks(cfg, probe)
    checks += _home_checks(cfg, probe)
    return checks


def _ext_checks(cfg: Config, probe: bool) -> list[Check]:
    """Skills, plugins, adapters and backups (homeagent/ext/checks.py)."""
    from homeagent.ext.checks import ext_checks

    return ext_checks(cfg, probe)


def _home_checks(cfg: Config, probe: bool) -> list[Check]:
    """Home Assistant: configured, a token found, and with --probe whether it answers."""
    from homeagent.home.checks import home_checks
    from homeagent.llm.factory import credential_store

    try:
        found = home_checks(cfg.home_assistant, credential_store(cfg), probe=probe)
    except HomeAgentError as err:
        return [Check("home_assistant", False, str(err), "fix the credential file as the message says")]
    return found


def _provider_checks(cfg: Config, probe: bool) -> list[Check]:
    """One line per provider of the chain: configured, skipped (no key), or reachable."""
    from homeagent.llm.checks import provider_checks

    try:
        found = provider_checks(cfg, probe=probe)
    except HomeAgentError as err:
        return [Check("providers", False, str(err), "fix the llm section of the config")]
    return found
