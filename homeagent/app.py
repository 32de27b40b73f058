"""The composition root: the one place that knows every piece.

`App` opens every resource in order (data dir, personality, database, provider, tools,
agent) and closes them in reverse through one `AsyncExitStack`. `App.run()` owns the
long-lived tasks in one task group: the agent's inbox consumer, the HTTP server and the
systemd watchdog. Tests swap parts through constructor parameters, never `patch()`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import anyio
from anyio.abc import TaskStatus

from homeagent.actions import ActionSettings, HouseholdMode, register_actions
from homeagent.actions.dates import preload as preload_dates
from homeagent.agent.conversation import Conversation, StoredMessage
from homeagent.agent.core import Agent
from homeagent.agent.personality import Personality
from homeagent.agent.prompt import PromptBuilder
from homeagent.agent.runs import RunHub
from homeagent.api.deps import ApiDeps, Health
from homeagent.api.web_deps import WebDeps
from homeagent.clock import Clock, SystemClock
from homeagent.config import Config
from homeagent.errors import ConfigError, StartupError
from homeagent.ext.changes import ChangeTracker
from homeagent.ext.lua import LuaAdapter, adapter_folders
from homeagent.ext.mcp_client import McpPlugin, PluginHost
from homeagent.ext.mqtt import MqttPublisher
from homeagent.ext.skills import SkillSet, load_skillset, skill_dirs
from homeagent.ext.supervisor import Supervisor
from homeagent.home import PERMISSION_DEFAULTS as HOME_PERMISSIONS
from homeagent.home import HomeLink, device_tools, link_from_config
from homeagent.intent import IntentLayer, IntentSettings
from homeagent.io import DeviceRegistry, Inbox
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.browser import BrowserChannel
from homeagent.io.notify import NotifyChannel
from homeagent.io.ollama import OllamaChannel
from homeagent.io.openai import OpenAIChannel
from homeagent.io.push import PushChannel
from homeagent.io.runs import RunsChannel
from homeagent.io.speech import SpeechChannel
from homeagent.knowledge import KnowledgeBase, knowledge_tools
from homeagent.llm.base import Provider
from homeagent.llm.factory import build_provider, credential_store, native
from homeagent.llm.usage import UsageMeter
from homeagent.log import get_logger, redact
from homeagent.members import MemberStore
from homeagent.memory.heartbeat import HeartbeatReport, heartbeat_loop
from homeagent.memory.profiles import ProfileStore
from homeagent.memory.rebuild import rebuild_from_textlog
from homeagent.memory.service import MemoryService, memory_settings
from homeagent.schedule import Scheduler, reminder_tools
from homeagent.schema import all_migrations
from homeagent.store import Database
from homeagent.store.backup import BackupFile, backup_now
from homeagent.tools.audit import AuditLog
from homeagent.tools.builtin import builtin_tools
from homeagent.tools.permissions import (
    PermissionBroker,
    PermissionGate,
    PermissionPolicy,
)
from homeagent.tools.registry import ToolRegistry, ToolSpec
from homeagent.voice import VoiceService, VoiceSettings

INTENT_MODEL_FILE = "intent-model.npz"  # the intent layer's trained model, in the data dir

if TYPE_CHECKING:
    from homeagent.api.early import EarlyListener
    from homeagent.io.wyoming import WyomingChannel
    from homeagent.memory.dense import Embedder

log = get_logger("homeagent.app")


def _clock_for(config: Config) -> Clock:
    if not config.daemon.timezone:
        return SystemClock()
    try:
        return SystemClock(ZoneInfo(config.daemon.timezone))
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ConfigError(
            f"daemon.timezone: unknown timezone {config.daemon.timezone!r}; "
            "use an IANA name such as Asia/Shanghai"
        ) from err


class App:
    def __init__(
        self,
        config: Config,
        *,
        provider: Provider | None = None,
        clock: Clock | None = None,
        extra_tools: tuple[ToolSpec, ...] = (),
        prime_on_open: bool = True,
        preloaded: Mapping[str, Provider] | None = None,
    ):
        self.config = config
        self._preloaded = preloaded  # engines `homeagent serve` began loading (llm.specs.preload_local)
        # False: `run()` opens HTTP first and primes the engine behind it (`homeagent serve`).
        self._prime_on_open = prime_on_open
        self.engine_ready = anyio.Event()  # set once the turn path is warm (`warm()`)
        self._provider_override = provider
        self.clock = clock or _clock_for(config)
        self._extra_tools = extra_tools
        self._stack = contextlib.AsyncExitStack()
        self.health = Health(started_at=time.time())
        self.inbox = Inbox()

    async def __aenter__(self) -> App:
        try:
            await self._open()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        with anyio.CancelScope(shield=True):
            await self._stack.aclose()
        log.info("app.closed")

    async def _open(self) -> None:
        cfg = self.config
        data_dir = Path(cfg.data_dir)
        if cfg.actions.intent:  # its warm-up parses dates: the library loads while the engine does
            preload_dates()
        self.personality = await anyio.to_thread.run_sync(self._prepare_files, data_dir)

        self.db = await self._stack.enter_async_context(
            Database(data_dir / "homeagent.db", all_migrations(), move_corrupt=True)
        )

        self.meter = UsageMeter(self.db, self.clock)
        if self._provider_override is not None:
            self.provider = native(self._provider_override, cfg)
        else:
            self.provider = build_provider(cfg, meter=self.meter, clock=self.clock, notices="event",
                                           preloaded=self._preloaded)
        await self.provider.start()
        self._stack.push_async_callback(self.provider.aclose)

        self.conversation = Conversation(self.db)
        self.devices = DeviceRegistry(self.db)
        self.tools = ToolRegistry(default_timeout=cfg.agent.tool_timeout)
        for spec in builtin_tools():
            self.tools.register(spec, shipped=True)
        for spec in self._extra_tools:
            self.tools.register(spec)

        self.memory = MemoryService(self.db, data_dir, self.clock, memory_settings(cfg))
        await self._stack.enter_async_context(self.memory.opened())
        if self.db.created_fresh:  # a missing or zero-length database: the text log has the words
            await rebuild_from_textlog(self.db, self.memory.textlog, self.memory.context)
        self.profiles = ProfileStore(self.db, self.memory.graph)
        for spec in self.memory.tools():
            self.tools.register(spec, shipped=True)

        acfg = cfg.actions
        self.modes = HouseholdMode(self.db, self.clock, acfg.modes)
        register_actions(
            self.tools, db=self.db, clock=self.clock, modes=self.modes, channels=self.devices,
            settings=ActionSettings(
                currency=acfg.currency, language=acfg.language, page_size=acfg.page_size,
                modes=acfg.modes, water_goal_ml=acfg.water_goal_ml, search_url=acfg.search_url,
            ),
        )  # fmt: skip
        # The house (Home Assistant): its device tools, when a url is configured.
        self.home: HomeLink | None = link_from_config(cfg.home_assistant, credential_store(cfg))
        if self.home is not None:
            for spec in device_tools(self.home, cfg.home_assistant.confirm_domains):
                self.tools.register(spec, shipped=True)
            self.health.sections["home_assistant"] = self.home.status
            if cfg.home_assistant.notify:
                # Reminders as Home Assistant notifications, each member's to their own service.
                rules = (rule.partition("=") for rule in cfg.home_assistant.notify)
                targets = {("" if who == "household" else who): service for who, _, service in rules}
                self._stack.callback(self.devices.register_channel(NotifyChannel("home_assistant", self.home, targets)))
        pcfg = cfg.permissions
        self.permissions = PermissionGate(
            PermissionPolicy.from_config(
                {name: getattr(pcfg.classes, name) for name in ("read", "write", "delete", "network", "secrets")},
                # The user's rules come last and win.
                (*HOME_PERMISSIONS, *self._plugin_grants(), *pcfg.tools),
            ),
            timeout=pcfg.confirm_timeout,
        )
        self.broker = PermissionBroker()
        plg = cfg.plugins
        self.plugins = PluginHost([
            McpPlugin(name, server, self.tools, restart_initial=plg.restart_initial,
                      restart_max=plg.restart_max, ping_interval=plg.ping_interval)
            for name, server in plg.servers.items() if server.enabled
        ])  # fmt: skip
        self.adapters = await anyio.to_thread.run_sync(self._load_adapters, data_dir)
        self.supervisor = self._supervise()
        # The dashboard confirms for any channel while a page is open.
        self.browser = BrowserChannel()
        self.broker.add_answerer(self.browser.present)
        self.heartbeats: deque[dict[str, Any]] = deque(maxlen=50)
        self.audit = AuditLog(self.db)

        self.changes = ChangeTracker(self.db)
        kcfg = cfg.knowledge
        self.knowledge = KnowledgeBase(
            Path(kcfg.dir), self.db, max_file_bytes=kcfg.max_file_bytes,
            chunk_tokens=kcfg.chunk_tokens, prompt_min_score=kcfg.prompt_min_score, prompt_k=kcfg.prompt_k,
            before_write=lambda path, text: self.changes.record_sync(path, text, "knowledge"),
        )
        await self.knowledge.open()
        for spec in knowledge_tools(self.knowledge):
            self.tools.register(spec, shipped=True)

        scfg = cfg.skills
        self.skills: SkillSet = await anyio.to_thread.run_sync(lambda: load_skillset(
            skill_dirs(Path(scfg.dir), data_dir), configured=scfg.enabled, data_dir=data_dir,
            registry=self.tools, min_score=scfg.min_score, max_active=scfg.max_active,
        ))  # fmt: skip
        await anyio.to_thread.run_sync(self.skills.prepare_sync)
        # Reminders: delivered to every channel that receives unasked messages; the push
        # channel (GET /api/events) stores them, also before the server is up, for
        # subscriptions that reconnect.
        self.push = PushChannel(self.db, self.clock)
        self._stack.callback(self.devices.register_channel(self.push))
        self.scheduler = Scheduler(self.db, self.clock, self.devices, self.modes, cfg.schedule)
        for spec in reminder_tools(self.scheduler):
            self.tools.register(spec, shipped=True)

        self.prompt = PromptBuilder(self.personality)

        self.members = MemberStore(self.db)
        await self.members.load()
        self.runs = RunHub(self.db)
        await self.runs.recover()
        # Called when a user asks to forget a message; memory tiers add theirs.
        self.forgetters: list[Callable[[StoredMessage], Awaitable[dict[str, int]]]] = []
        self.intent: IntentLayer | None = None
        if acfg.intent:
            # The intent layer, trained from the registry (a worker thread, 2-5 s) or loaded
            # from the model saved by the last start; `homeagent serve` does it behind HTTP.
            self.intent = IntentLayer(self.tools, clock=self.clock, personality=self.personality.text, db=self.db,
                                      settings=IntentSettings(top_k=acfg.top_k), cache=data_dir / INTENT_MODEL_FILE)
            scheduler = self.scheduler

            async def reminder_waiting(member: str) -> bool:
                return await scheduler.last_delivered(member) is not None

            self.intent.reminder_waiting = reminder_waiting
        self.agent = Agent(
            provider=self.provider,
            registry=self.tools,
            prompt=self.prompt,
            conversation=self.conversation,
            clock=self.clock,
            config=cfg.agent,
            temperature=cfg.llm.temperature,
            max_tokens=cfg.llm.max_tokens,
            runs=self.runs,
            snapshot=self._snapshot(),
            context_sources=[
                self.profiles.section, self.memory.graph_section, self.memory.documents_section,
                self._knowledge_section, self.skills.section,
            ],
            history_source=self.memory.history,
            after_turn=[self.memory.after_turn],
            gate=self.permissions,
            broker=self.broker,
            audit=self.audit,
            tool_scope=self.skills.allowed_tools,
            intent=self.intent,
            foresee=[self.memory.foresee],
        )
        self.forgetters.append(self.memory.forget_message)
        self._open_voice(data_dir)
        if self._prime_on_open:  # else `run()` warms it behind HTTP (`homeagent serve`)
            await self.warm()
        log.info(
            "app.opened",
            data_dir=str(data_dir),
            provider=self.provider.name,
            model=self.provider.model,
            tools=len(self.tools),
        )

    async def reload(self, new: Config) -> dict[str, list[str]]:
        """Apply a new, already validated config (SIGHUP): skills, adapters, permissions and
        backups change at once; sections that need a restart are named in the log."""
        changed = [f.name for f in dataclasses.fields(Config)
                   if f.name != "source" and getattr(new, f.name) != getattr(self.config, f.name)]
        live = {"skills", "adapters", "permissions", "backup"}
        restart = [name for name in changed if name not in live]
        self.config = new
        data_dir = Path(self.config.data_dir)
        if "skills" in changed or "adapters" in changed:
            old = self.adapters
            for adapter in old:
                adapter.unload()
            self.adapters = await anyio.to_thread.run_sync(self._load_adapters, data_dir)
        scfg = new.skills
        fresh = await anyio.to_thread.run_sync(lambda: load_skillset(
            skill_dirs(Path(scfg.dir), data_dir), configured=scfg.enabled, data_dir=data_dir,
            registry=self.tools, min_score=scfg.min_score, max_active=scfg.max_active,
        ))  # fmt: skip
        self.skills.replace_with(fresh)
        if "permissions" in changed or "adapters" in changed:
            pcfg = new.permissions
            self.permissions.policy = PermissionPolicy.from_config(
                {name: getattr(pcfg.classes, name) for name in ("read", "write", "delete", "network", "secrets")},
                (*HOME_PERMISSIONS, *self._plugin_grants(), *pcfg.tools),
            )
        applied = [name for name in changed if name in live]
        log.info("daemon.reloaded", applied=applied, needs_restart=restart,
                 skills=[s.name for s in self.skills.skills])
        return {"applied": applied, "needs_restart": restart}

    def _supervise(self) -> Supervisor:
        """Health checks of every part, every daemon.check_interval (shown in /healthz)."""
        sup = Supervisor(self.config.daemon.check_interval)

        async def database() -> tuple[bool, str]:
            result = await self.db.check()
            return result == "ok", f"integrity {result}"

        async def provider() -> tuple[bool, str]:
            status = self.provider.status()
            return status.state == "ready", f"{status.name}: {status.state} {status.detail}".strip()

        sup.add("database", check=database)
        sup.add("provider", check=provider)
        # Adapters: each probe also loads a changed script or manifest again.
        sup.add("adapters", check=self._check_adapters)
        return sup

    async def _check_adapters(self) -> tuple[bool, str]:
        results = [(a.name, *(await a.check())) for a in self.adapters]
        bad = [f"{name}: {detail}" for name, ok, detail in results if not ok]
        return not bad, "; ".join(bad) or f"{len(results)} adapter(s) ready"

    def subsystems(self) -> dict[str, dict[str, Any]]:
        """The health of the supervised parts, for /healthz."""
        parts = self.supervisor.status()
        parts.update({f"plugin:{name}": status for name, status in self.plugins.status().items()})
        parts.update({f"adapter:{a.name}": a.status.as_dict() for a in self.adapters})
        return parts

    def _plugin_grants(self) -> list[str]:
        """`<plugin>__*=<grant>` for each plugin (confirm unless config grants more) and
        each adapter; an explicit `permissions.tools` entry for the pattern wins."""
        named = {rule.partition("=")[0].strip() for rule in self.config.permissions.tools}
        grants = {f"{name}__*": server.grant for name, server in self.config.plugins.servers.items()}
        grants.update({f"{name}__*": self.config.adapters.grant for name in self.config.adapters.enabled})
        return [f"{pattern}={grant}" for pattern, grant in grants.items() if pattern not in named]

    def _load_adapters(self, data_dir: Path) -> list[LuaAdapter]:
        acfg = self.config.adapters
        shipped = Path(acfg.dir)
        if not shipped.is_dir():
            shipped = Path(sys.prefix) / "share" / "homeagent" / "adapters"
        mqtt = self._mqtt_publisher() if acfg.enabled else None
        adapters = []
        for folder in adapter_folders([shipped, data_dir / "adapters"], acfg.enabled):
            adapter = LuaAdapter(folder, self.tools, data_dir / "adapters-state",
                                 instruction_budget=acfg.instruction_budget,
                                 memory_limit_mb=acfg.memory_limit_mb, http_timeout=acfg.http_timeout,
                                 mqtt=mqtt)
            adapter.load()
            adapters.append(adapter)
        missing = set(acfg.enabled) - {a.name for a in adapters}
        for name in sorted(missing):
            log.warning("ext.lua.not_found", adapter=name, looked_in=[str(shipped), str(data_dir / "adapters")])
        return adapters

    def _mqtt_publisher(self) -> MqttPublisher | None:
        """The broker adapters publish to (`adapters.mqtt`); None while its host is empty."""
        mcfg = self.config.adapters.mqtt
        if not mcfg.host:
            return None
        password = ""
        if mcfg.username:
            try:
                password = credential_store(self.config).resolve(
                    api_key=mcfg.password, credential=mcfg.credential).reveal()
            except ConfigError as err:
                log.warning("ext.mqtt.credential_unreadable", error=str(err))
            if not password:
                log.warning("ext.mqtt.no_password", user=mcfg.username,
                            looked_in=credential_store(self.config).where(mcfg.credential))
        log.info("ext.mqtt.configured", broker=f"{mcfg.host}:{mcfg.port}", user=mcfg.username or None,
                 password_set=bool(password))
        return MqttPublisher(mcfg.host, mcfg.port, username=mcfg.username, password=password,
                             client_id=mcfg.client_id, timeout=mcfg.timeout)

    def backup_dir(self) -> Path:
        return Path(self.config.backup.dir) if self.config.backup.dir else Path(self.config.data_dir) / "backups"

    async def backup(self) -> BackupFile:
        """An online backup of the database now (also `homeagent backup`)."""
        return await anyio.to_thread.run_sync(
            lambda: backup_now(self.db.path, self.backup_dir(), self.config.backup.keep)
        )

    async def _backup_loop(self) -> None:
        while True:
            await anyio.sleep(self.config.backup.interval)
            try:
                await self.backup()
            except Exception as err:  # noqa: BLE001 - the next backup is tried on schedule
                log.warning("store.backup.failed", error=str(err))
    def _open_voice(self, data_dir: Path) -> None:
        """Speech (built without the extra too: it then says what is missing) and, when
        `io.wyoming.enabled`, the Wyoming channel `run` serves (its protocol library is
        imported only then)."""
        vcfg = self.config.voice
        self.voice = VoiceService(
            VoiceSettings(
                language=vcfg.language,
                stt=tuple((lang, spec) for lang, spec in (("en", vcfg.stt_en), ("zh", vcfg.stt_zh)) if spec),
                tts=tuple((lang, spec) for lang, spec in (("en", vcfg.tts_en), ("zh", vcfg.tts_zh)) if spec),
                threads=vcfg.threads, beam_size=vcfg.beam_size, compute_type=vcfg.compute_type,
                max_audio_seconds=vcfg.max_audio_seconds, varied=vcfg.varied,
            ),
            data_dir / "models",
        )
        self.wyoming: WyomingChannel | None = None
        if self.config.io.wyoming.enabled:
            from homeagent.io.wyoming import WyomingChannel

            self.wyoming = WyomingChannel(
                self.inbox, self.devices, self.config.io.wyoming, self.voice,
                max_audio_seconds=vcfg.max_audio_seconds,
            )

    async def _serve_wyoming(self, channel: WyomingChannel, *,
                             task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """The Wyoming server, its channel registered while it serves; a failure to
        listen is logged and leaves the rest of the daemon running."""
        unregister = self.devices.register_channel(channel)
        try:
            await channel.serve(task_status=task_status)
        except OSError as err:
            wy = self.config.io.wyoming
            log.error("wyoming.listen.failed", host=wy.host, port=wy.port, error=str(err))
            if not channel.port:  # it never listened: let the daemon go on starting
                task_status.started(0)
        finally:
            unregister()

    async def _preload_voice(self) -> None:
        try:
            await self.voice.preload()
        except Exception as err:  # noqa: BLE001 - speech that cannot load never stops the daemon
            log.warning("voice.preload.failed", error=str(err))
        else:
            log.info("voice.preloaded")
    async def prime(self) -> None:
        """Evaluate (or restore) the engine's stable prefix, so the first turn pays neither
        for it nor for the tool index. A failed prime leaves an engine that still answers."""
        started = time.monotonic()
        try:
            await self.provider.prime(self.prompt.stable_prefix(), self.tools.definitions())
        except Exception as err:  # noqa: BLE001 - turns then evaluate the whole prompt
            log.warning("engine.prime_failed", error=repr(err))
        log.info("engine.ready", duration_ms=round((time.monotonic() - started) * 1000, 1))

    async def warm(self) -> None:
        """Make the turn path ready: the engine primed (and the next turn's start prepared)
        and the intent layer trained (or its saved model loaded) and warmed up, side by
        side. Then `/healthz` says `engine: ready`. Nothing Python-heavy is left for
        after: a worker thread's Python holds the interpreter against the event loop,
        and a first turn served beside it waited 130-570 ms before its handler ran."""
        if not self.engine_ready.is_set():
            intent = self.intent
            async def engine() -> None:
                await self.prime()
                # Then what a first turn starts with beyond the prefix: the history (after
                # a restart) and the clock line, so it evaluates only its own words.
                await self.agent.prepare_next()

            dense = self.memory.documents.dense
            async with anyio.create_task_group() as tg:
                tg.start_soon(engine)
                if intent is not None:
                    tg.start_soon(self._warm_intent, intent)
                if dense is not None:  # else a restart's first question loads the model
                    tg.start_soon(self._load_embedder, dense.embedder)
            # The engine is often done first (the intent layer may train for half a
            # minute): if the minute turned meanwhile, its new minute is evaluated now.
            await self.agent.prepare_if_stale()
            self.health.engine = "ready"
            self.engine_ready.set()

    @staticmethod
    async def _load_embedder(embedder: Embedder) -> None:
        try:
            await anyio.to_thread.run_sync(embedder.load)
        except Exception as err:  # noqa: BLE001 - lexical search goes on; the first question retries
            log.warning("memory.dense.load_failed", error=repr(err))

    @staticmethod
    async def _warm_intent(intent: IntentLayer) -> None:
        """The intent layer trained (or its saved model loaded), then warmed up."""
        if not intent.model.ready:
            await intent.train(warm=False)
        if intent.model.ready:
            try:
                await anyio.to_thread.run_sync(intent.warm_up, abandon_on_cancel=True)  # a stop does not wait
            except Exception as err:  # noqa: BLE001 - a first utterance pays for it instead
                log.warning("intent.warm_up_failed", error=repr(err))

    async def _serve_turns(self) -> None:
        """Turns that arrive while the turn path warms wait in the inbox, then are served."""
        await self.warm()
        await self.agent.run(self.inbox)

    def _snapshot(self) -> dict[str, Any]:
        """The configuration that shapes a turn, stored with every run (secrets redacted)."""
        llm, agent = self.config.llm, self.config.agent
        return {
            "provider": self.provider.name,
            "model": self.provider.model,
            "llm": {"temperature": llm.temperature, "top_p": llm.top_p, "max_tokens": llm.max_tokens},
            "agent": {
                "max_tool_rounds": agent.max_tool_rounds,
                "tool_timeout": agent.tool_timeout,
                "history_turns": agent.history_turns,
                "turn_timeout": agent.turn_timeout,
            },
            "tools": sorted(spec.name for spec in self.tools),
        }

    async def heartbeat(self) -> HeartbeatReport:
        """Distil and reorganise memory (also `homeagent memory heartbeat`)."""
        provider: Provider | None = None
        if self.config.memory.distill_provider == "chat":
            # Background work must not spend the user's one failover notice.
            provider = self.provider.quiet()
        report = await self.memory.heartbeat(provider)
        self.heartbeats.append({"at": time.time(), "duration_ms": report.duration_ms, **report.counts()})
        if report.llm_calls:
            # The distiller's prompts replaced the conversation a local engine had ready.
            await self.agent.prepare_next()
        # Profiles are rebuilt from what the heartbeat just distilled.
        names = [m.name for m in await self.members.list() if m.active]
        names += await self.conversation.members()
        profiles = await self.profiles.rebuild(names)
        log.info("memory.profiles.rebuilt", members=profiles)
        if self.intent is not None:  # what the household taught the intent layer
            await self.intent.retrain_if_changed()
        return report

    async def _check_loop(self) -> None:
        """Periodic checks: probe cloud providers whose cooldown is over."""
        while True:
            await anyio.sleep(self.config.daemon.check_interval)
            try:
                recovered = await self.provider.recover()
            except Exception as err:  # noqa: BLE001 - a failed probe is retried next time
                log.warning("llm.probe.failed", error=repr(err))
            else:
                if recovered:
                    log.info("llm.providers.recovered", providers=recovered)

    async def _knowledge_section(self, text: str, member: str) -> tuple[str, str]:
        budget = self.config.knowledge.prompt_budget_tokens
        return "Knowledge", await self.knowledge.prompt_section(text, budget)

    async def forget_message(self, message: StoredMessage) -> dict[str, int]:
        """Forget one message on the user's request: the conversation and every memory tier."""
        counts = {"messages": 1 if await self.conversation.delete(message.id) else 0}
        for forget in self.forgetters:
            for key, value in (await forget(message)).items():
                counts[key] = counts.get(key, 0) + value
        log.info("memory.message.forgotten", message_id=message.id, **counts)
        return counts

    def _prepare_files(self, data_dir: Path) -> Personality:
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if data_dir.stat().st_mode & 0o077 and data_dir.stat().st_uid == os.getuid():
                data_dir.chmod(0o700)  # the household's records are the daemon user's alone
        except OSError as err:
            raise StartupError(f"data dir {data_dir} cannot be created: {err}") from err
        return Personality.load(Path(self.config.agent.personality_file))

    def api_dependencies(self) -> ApiDeps:
        """What the HTTP API is given: the pieces its routes use, and its channels."""
        return ApiDeps(
            settings=self.config.api,
            max_upload_bytes=self.config.knowledge.max_file_bytes,
            health=self.health,
            provider=self.provider,
            db=self.db,
            agent_stats=lambda: self.agent.stats,
            inbox=self.inbox,
            tools=self.tools,
            devices=self.devices,
            members=self.members,
            runs=self.runs,
            broker=self.broker,
            conversation=self.conversation,
            forget_message=self.forget_message,
            knowledge=self.knowledge,
            openai=OpenAIChannel(self.inbox, self.devices, client_tool_timeout=self.config.api.client_tool_timeout),
            agent_chat=AgentChatChannel(self.inbox, self.devices),
            run_channel=RunsChannel(self.inbox, self.devices, self.runs),
            ollama=OllamaChannel(self.inbox, self.devices, client_tool_timeout=self.config.api.client_tool_timeout),
            changes=self.changes,
            subsystems=self.subsystems,
            web=self._web_dependencies(),
            push=self.push,
            push_keepalive=self.config.schedule.keepalive,
            scheduler=self.scheduler,
            voice=self.voice,
            speech=SpeechChannel(self.inbox, self.devices),
            writers=(self.memory.text_log_health, self.audit.health),
        )

    def _web_dependencies(self) -> WebDeps:
        return WebDeps(
            tools=self.tools, gate=self.permissions, audit=self.audit, broker=self.broker,
            browser=self.browser, members=self.members,
            graph=self.memory.graph, documents=self.memory.documents, context=self.memory.context,
            provider=self.provider, usage=self.meter, heartbeats=lambda: list(self.heartbeats),
            settings=lambda: redact(dataclasses.asdict(self.config)),
        )

    async def run(
        self,
        *,
        http: bool = True,
        on_ready: Callable[[], Awaitable[None] | None] | None = None,
        early: EarlyListener | None = None,
    ) -> None:
        """Run the long-lived tasks until cancelled (`early`: the port `homeagent serve`
        bound before importing the daemon; HTTP takes it over)."""
        from homeagent.api.server import serve_http
        from homeagent.systemd import watchdog_loop

        async with anyio.create_task_group() as tg:
            tg.start_soon(self.runs.run_writer)
            # The turn path warms (engine, intent layer: worker threads) while the schedule
            # and HTTP start; /healthz says `engine: warming` until it is ready.
            tg.start_soon(self._serve_turns)
            if self.config.schedule.enabled:
                # First: what fell due while the daemon was down is delivered (and stored
                # for the push route) before the API reports that it serves.
                await tg.start(self.scheduler.run)
            if http:
                host, port = self.config.listen
                # The server registers its channels while it serves and reports its port.
                self.health.port = await tg.start(
                    functools.partial(serve_http, early=early), self.api_dependencies(), host, port)
            if self.wyoming is not None:
                await tg.start(self._serve_wyoming, self.wyoming)
            if self.config.voice.preload and self.voice.missing() is None:
                tg.start_soon(self._preload_voice)
            self.health.serving = True
            tg.start_soon(watchdog_loop)
            if self.home is not None:
                tg.start_soon(self.home.run)
            if self.config.daemon.check_interval > 0:
                tg.start_soon(self._check_loop)
            # Long-lived subsystems are supervised: a crash is restarted with backoff.
            sup = self.supervisor
            if self.config.daemon.heartbeat_interval > 0:
                interval = self.config.daemon.heartbeat_interval
                tg.start_soon(sup.keep, "heartbeat", lambda: heartbeat_loop(interval, self.heartbeat))
            if self.memory.documents.dense is not None:
                # memory.dense: documents are embedded in the background, never on a turn's path.
                tg.start_soon(sup.keep, "memory_dense", self.memory.documents.dense_worker)
            if self.config.knowledge.watch:  # watchdog is imported only then
                from homeagent.knowledge.watch import KnowledgeWatcher

                watcher = KnowledgeWatcher(self.knowledge, debounce=self.config.knowledge.watch_debounce)
                await tg.start(sup.keep_started, "knowledge_watcher", watcher.run)
            if self.plugins.plugins:
                tg.start_soon(sup.keep, "plugins", self.plugins.run)
            if self.config.backup.interval > 0:
                tg.start_soon(sup.keep, "backup", self._backup_loop)
            tg.start_soon(sup.run)
            if on_ready is not None:
                result = on_ready()
                if result is not None:
                    await result
