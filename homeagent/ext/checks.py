"""What `homeagent doctor` checks of the extensions: skills, plugins, adapters, backups.

Each check is (name, ok, detail, fix). With `probe`, each plugin is started once and its
tools listed, as the daemon would.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from homeagent.checks import Check
from homeagent.config import Config, PluginConfig
from homeagent.ext.lua import AdapterError, adapter_folders, read_manifest
from homeagent.ext.mcp_client import mcp_available
from homeagent.ext.skills import discover, skill_dirs


def _skills(cfg: Config) -> list[Check]:
    found, problems = discover(skill_dirs(Path(cfg.skills.dir), Path(cfg.data_dir)))
    out = [Check("skills", True, f"{len(found)} found: {', '.join(sorted(found)) or 'none'}")]
    out += [Check("skills", False, p, "fix the SKILL.md as the message says") for p in problems]
    return out


def _probe_plugin(name: str, server: PluginConfig) -> tuple[bool, str]:
    import anyio

    from homeagent.ext.mcp_client import McpPlugin
    from homeagent.tools.registry import ToolRegistry

    async def once() -> tuple[bool, str]:
        plugin = McpPlugin(name, server, ToolRegistry())
        try:
            with anyio.fail_after(max(30.0, server.timeout)):
                tools = await plugin.probe()
        except Exception as err:  # noqa: BLE001 - the probe reports what went wrong
            return False, f"did not start: {type(err).__name__}: {err}"
        return True, f"answered with {len(tools)} tool(s): {', '.join(tools)}"

    return anyio.run(once)


def _plugins(cfg: Config, probe: bool) -> list[Check]:
    servers = cfg.plugins.servers
    if not servers:
        return []
    if not mcp_available():
        return [Check("plugins", False, "plugins are configured but the mcp package is not installed",
                         "pip install 'homeagent[ext]' (or `make ext-deps`)")]
    out = []
    for name, server in servers.items():
        where = f"plugin {name}"
        if not server.enabled:
            out.append(Check(where, True, "disabled in config"))
            continue
        if shutil.which(server.command) is None:
            out.append(Check(where, False, f"command {server.command!r} is not found",
                                f"install it or give its full path in plugins.servers.{name}.command"))
            continue
        missing = [env for env in server.env if env not in os.environ]
        if missing:
            out.append(Check(where, False, f"declared environment variables not set: {', '.join(missing)}",
                                "set them in the daemon's environment (e.g. the systemd unit's Environment=)"))
            continue
        if probe:
            ok, detail = _probe_plugin(name, server)
            out.append(Check(where, ok, detail, "" if ok else "run the command by hand to see its error"))
        else:
            out.append(Check(where, True, f"{server.command} {' '.join(server.args)} (grant {server.grant})"))
    return out


def _adapters(cfg: Config) -> list[Check]:
    enabled = cfg.adapters.enabled
    if not enabled:
        return []
    try:
        import lupa  # noqa: F401
    except ImportError:
        return [Check("adapters", False, "adapters are enabled but the lupa package is not installed",
                         "pip install 'homeagent[ext]' (or `make ext-deps`)")]
    dirs = [Path(cfg.adapters.dir), Path(cfg.data_dir) / "adapters"]
    folders = {f.name: f for f in adapter_folders(dirs, enabled)}
    out = []
    for name in enabled:
        if name not in folders:
            out.append(Check(f"adapter {name}", False, f"no folder {name}/ with adapter.yaml in "
                                f"{' or '.join(str(d) for d in dirs)}", "copy the adapter there or remove it from adapters.enabled"))
            continue
        try:
            manifest = read_manifest(folders[name])
        except AdapterError as err:
            out.append(Check(f"adapter {name}", False, str(err), "fix the manifest as the message says"))
            continue
        out.append(Check(f"adapter {name}", True, f"{len(manifest.tools)} tool(s), hosts {', '.join(manifest.hosts) or 'none'}"))
    return out


def _backups(cfg: Config) -> list[Check]:
    from homeagent.store.backup import list_backups

    folder = Path(cfg.backup.dir) if cfg.backup.dir else Path(cfg.data_dir) / "backups"
    found = list_backups(folder)
    if cfg.backup.interval <= 0:
        return [Check("backups", True, f"daily backups are off; {len(found)} backup(s) in {folder}")]
    latest = found[-1].path.name if found else "none yet"
    return [Check("backups", True, f"every {cfg.backup.interval:g} s, keep {cfg.backup.keep}; latest: {latest}")]


def ext_checks(cfg: Config, probe: bool = False) -> list[Check]:
    return [*_skills(cfg), *_plugins(cfg, probe), *_adapters(cfg), *_backups(cfg)]
