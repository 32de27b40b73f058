"""`homeagent doctor`'s look at the house: configured? token found? with --probe, reachable?

Without `probe` nothing touches the network. With it, `GET <url>/api/config` with the
token says whether Home Assistant answers and accepts the token (and its version). The
token is never printed; error text is scrubbed of it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from homeagent.checks import Check
from homeagent.config import HomeAssistantConfig
from homeagent.home import token_for
from homeagent.llm.credentials import CredentialStore


def home_checks(cfg: HomeAssistantConfig, credentials: CredentialStore, *, probe: bool = False) -> list[Check]:
    if not cfg.url:
        return [Check("home_assistant", True, "not configured (home_assistant.url is empty): no device tools")]
    token = token_for(cfg, credentials)
    if not token:
        return [Check(
            "home_assistant", False, f"{cfg.url}: no access token found",
            f"create a long-lived access token in Home Assistant (profile → Security) and set "
            f"{credentials.where(cfg.credential)}, or home_assistant.token",
        )]  # fmt: skip
    if not probe:
        return [Check("home_assistant", True, f"{cfg.url} with a token (run with --probe to contact it)")]
    request = urllib.request.Request(
        cfg.url.rstrip("/") + "/api/config", headers={"Authorization": f"Bearer {token.reveal()}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=cfg.connect_timeout) as resp:
            body = json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as err:
        if err.code == 401:
            return [Check("home_assistant", False, f"{cfg.url} refused the access token (401)",
                              "create a new long-lived access token and store it again")]
        return [Check("home_assistant", False, f"{cfg.url} answered HTTP {err.code}",
                          "check that home_assistant.url is Home Assistant's address")]
    except (OSError, ValueError) as err:
        return [Check("home_assistant", False, f"{cfg.url} cannot be reached: {token.scrub(str(err))}",
                          "start Home Assistant, or fix home_assistant.url; HomeAgent retries while it runs")]
    return [Check("home_assistant", True,
                      f"{cfg.url} answers: Home Assistant {body.get('version', '?')}, {body.get('state', '?')}")]
