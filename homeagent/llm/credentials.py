"""API keys: where they come from, and the wrapper that keeps them out of every output.

A provider's key comes from its `api_key` config value (usually `${DEEPSEEK_API_KEY:-}`,
so from the environment) or from a named `credential`, looked up first in the
environment variable `HOMEAGENT_CREDENTIAL_<NAME>` and then in the credential file (YAML
`name: key`). The file must be readable by its owner only (mode 0600 or stricter); a
looser one is refused with the `chmod` that fixes it, because it holds secrets.

Keys travel as `Secret`: its repr and str are masked, so a key cannot reach a log line,
a trace, a status or an API response by accident; `reveal()` is called only where the
Authorization header is built. `Secret.scrub` masks the key (and anything that looks
like a key) in upstream error text before that text goes anywhere.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

import yaml

from homeagent.errors import ConfigError
from homeagent.log import REDACTED, redact_text

ENV_PREFIX = "HOMEAGENT_CREDENTIAL_"


class Secret:
    """A credential value whose every printable form is masked."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('****')"

    __str__ = __repr__

    def __reduce__(self) -> tuple:  # pragma: no cover - defensive
        raise TypeError("a Secret cannot be pickled")

    def scrub(self, text: str) -> str:
        """`text` with this key and anything key-like masked."""
        if self._value and len(self._value) >= 4:
            text = text.replace(self._value, REDACTED)
        return redact_text(text)


def env_name(credential: str) -> str:
    return ENV_PREFIX + re.sub(r"[^A-Z0-9]", "_", credential.upper())


def check_private(path: Path) -> None:
    """Refuse a credential file that others than its owner may read or write."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(
            f"credential file {path} has permissions {mode:04o}, but it holds API keys and "
            f"must be private to its owner: run `chmod 600 {path}`"
        )


def load_credential_file(path: Path) -> dict[str, str]:
    """The `name: key` entries of a credential file; errors never quote a value."""
    try:
        check_private(path)
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise ConfigError(f"credential file {path} does not exist (llm.credentials_file)") from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"credential file {path} cannot be read: {type(err).__name__}") from err
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as err:
        # The parser's message may quote a line, and a line may hold a key.
        raise ConfigError(f"credential file {path} is not valid YAML (`name: key` lines)") from err
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"credential file {path}: expected `name: key` lines")
    entries: dict[str, str] = {}
    for name, value in loaded.items():
        if not isinstance(name, str) or not isinstance(value, str | int) or isinstance(value, bool):
            raise ConfigError(f"credential file {path}: entry {name!r} must be `name: key` text")
        entries[name] = str(value).strip()
    return entries


class CredentialStore:
    """Resolves a provider's key from its config, the environment or the credential file."""

    def __init__(self, *, env: Mapping[str, str] | None = None, file: Path | None = None):
        self._env = os.environ if env is None else env
        self._file = file
        self._entries: dict[str, str] | None = None

    @property
    def file(self) -> Path | None:
        return self._file

    def _file_entries(self) -> dict[str, str]:
        if self._entries is None:
            self._entries = (
                load_credential_file(self._file) if self._file and self._file.exists() else {}
            )
        return self._entries

    def resolve(self, *, api_key: str = "", credential: str = "") -> Secret:
        """The key to use; an empty `Secret` when none is configured (never an error)."""
        if api_key:
            return Secret(api_key.strip())
        if not credential:
            return Secret("")
        from_env = self._env.get(env_name(credential), "").strip()
        if from_env:
            return Secret(from_env)
        return Secret(self._file_entries().get(credential, ""))

    def where(self, credential: str) -> str:
        """Where a credential is looked up, for "missing credential" messages."""
        places = [f"${env_name(credential)}"]
        if self._file is not None:
            places.append(str(self._file))
        return " or ".join(places)
