"""Home Assistant as the house: the link (REST/WebSocket, state cache), the device tools.

    link = link_from_config(cfg.home_assistant, credentials)   # None: no house configured
    tg.start_soon(link.run)                                     # connects, reconnects with backoff
    for spec in device_tools(link, cfg.home_assistant.confirm_domains): registry.register(spec)
    link.status()                                               # for /healthz and the doctor
"""

from __future__ import annotations

from homeagent.config import HomeAssistantConfig
from homeagent.home.house import Area, Entity, House, Resolution
from homeagent.home.link import HomeLink, LinkSettings
from homeagent.home.tools import PERMISSION_DEFAULTS, device_tools, live_context
from homeagent.llm.credentials import CredentialStore, Secret


def token_for(cfg: HomeAssistantConfig, credentials: CredentialStore) -> Secret:
    """The access token: `token` when set, else the named credential."""
    return credentials.resolve(api_key=cfg.token, credential=cfg.credential)


def link_from_config(cfg: HomeAssistantConfig, credentials: CredentialStore) -> HomeLink | None:
    if not cfg.url:
        return None
    token = token_for(cfg, credentials)
    # A missing token does not stop the daemon: the link reports it (healthz, doctor, tools).
    missing = (
        "" if token else f"no access token: set {credentials.where(cfg.credential)} "
        f"(credential {cfg.credential!r}) or home_assistant.token"
    )
    settings = LinkSettings(
        url=cfg.url.rstrip("/"), include=cfg.entities, exclude=cfg.exclude,
        connect_timeout=cfg.connect_timeout, call_timeout=cfg.call_timeout,
        reconnect_min=cfg.reconnect_min, reconnect_max=cfg.reconnect_max,
    )  # fmt: skip
    return HomeLink(settings, token, missing_token=missing)


__all__ = [
    "Area", "Entity", "House", "Resolution", "HomeLink", "LinkSettings", "PERMISSION_DEFAULTS",
    "device_tools", "live_context", "link_from_config", "token_for",
]
