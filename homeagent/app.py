"""The composition root: the one place that knows every piece.

`App` opens every resource in order (data dir, personality, database, provider, tools,
agent) and closes them in reverse through one `AsyncExitStack`. `App.run()` owns the
long-lived tasks in one task group: the agent's inbox consumer, the HTTP server and the
systemd watchdog. Tests swap parts through constructor parameters, never `patch()`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import anyio

from homeagent.actions import ActionSettings, HouseholdMode, register_actions
from homeagent.agent.conversation import Conversation, StoredMessage
from homeagent.agent.core import Agent
from homeagent.agent.personality import Personality
from homeagent.agent.prompt import PromptBuilder
from homeagent.agent.runs import RunHub
from homeagent.api.deps import ApiDeps, Health
from homeagent.clock import Clock, SystemClock
from homeagent.config import Config
from homeagent.errors import ConfigError, StartupError
from homeagent.io import DeviceRegistry, Inbox
from homeagent.io.agent_chat import AgentChatChannel
from homeagent.io.openai import OpenAIChannel
from homeagent.io.runs import RunsChannel
from homeagent.knowledge import KnowledgeBase, KnowledgeWatcher, knowledge_tools
from homeagent.llm.base import Provider
from homeagent.llm.factory import build_provider, native
from homeagent.llm.usage import UsageMeter
from homeagent.log import get_logger
from homeagent.members import MemberStore
from homeagent.memory.heartbeat import HeartbeatReport, heartbeat_loop
from homeagent.memory.profiles import ProfileStore
from homeagent.memory.service import MemoryService, memory_settings
from homeagent.schema import all_migrations
from homeagent.store import Database
from homeagent.tools.audit import AuditLog
from homeagent.tools.builtin import builtin_tools
from homeagent.tools.permissions import (
    PermissionBroker,
    PermissionGate,
    PermissionPolicy,
)
from homeagent.tools.registry import ToolRegistry, ToolSpec

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
    ):
        self.config = config
        # False: `run()` opens HTTP first and primes the engine behind it (`homeagent serve`).
        self._prime_on_open = prime_on_open
        self.engine_ready = anyio.Event()  # set once the engine's stable prefix is primed
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
        self.personality = await anyio.to_thread.run_sync(self._prepare_files, data_dir)

        self.db = await self._stack.enter_async_context(Database(data_dir / "homeagent.db", all_migrations()))

        self.meter = UsageMeter(self.db, self.clock)
        if self._provider_override is not None:
            self.provider = native(self._provider_override, cfg)
        else:
            self.provider = build_provider(cfg, meter=self.meter, clock=self.clock, notices="event")
        await self.provider.start()
        self._stack.push_async_callback(self.provider.aclose)

        self.conversation = Conversation(self.db)
        self.devices = DeviceRegistry(self.db)
        self.tools = ToolRegistry(default_timeout=cfg.agent.tool_timeout)
        for spec in (*builtin_tools(), *self._extra_tools):
            self.tools.register(spec)

        self.memory = MemoryService(self.db, data_dir, self.clock, memory_settings(cfg))
        await self._stack.enter_async_context(self.memory.opened())
        self.profiles = ProfileStore(self.db, self.memory.graph)
        for spec in self.memory.tools():
            self.tools.register(spec)

        acfg = cfg.actions
        self.modes = HouseholdMode(self.db, self.clock, acfg.modes)
        register_actions(
            self.tools, db=self.db, clock=self.clock, modes=self.modes, channels=self.devices,
            settings=ActionSettings(
                currency=acfg.currency, language=acfg.language, page_size=acfg.page_size,
                modes=acfg.modes, water_goal_ml=acfg.water_goal_ml, search_url=acfg.search_url,
            ),
        )  # fmt: skip
        pcfg = cfg.permissions
        self.permissions = PermissionGate(
            PermissionPolicy.from_config(
                {name: getattr(pcfg.classes, name) for name in ("read", "write", "delete", "network", "secrets")},
                pcfg.tools,
            ),
            timeout=pcfg.confirm_timeout,
        )
        self.broker = PermissionBroker()
        self.audit = AuditLog(self.db)

        kcfg = cfg.knowledge
        self.knowledge = KnowledgeBase(
            Path(kcfg.dir), self.db, max_file_bytes=kcfg.max_file_bytes,
            chunk_tokens=kcfg.chunk_tokens, prompt_min_score=kcfg.prompt_min_score, prompt_k=kcfg.prompt_k,
        )
        await self.knowledge.open()
        for spec in knowledge_tools(self.knowledge):
            self.tools.register(spec)

        self.prompt = PromptBuilder(self.personality)
        if self._prime_on_open:
            await self.prime()

        self.members = MemberStore(self.db)
        await self.members.load()
        self.runs = RunHub(self.db)
        await self.runs.recover()
        # Called when a user asks to forget a message; memory tiers add theirs.
        self.forgetters: list[Callable[[StoredMessage], Awaitable[dict[str, int]]]] = []
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
                self._knowledge_section,
            ],
            history_source=self.memory.history,
            after_turn=[self.memory.after_turn],
            gate=self.permissions,
            broker=self.broker,
            audit=self.audit,
        )
        self.forgetters.append(self.memory.forget_message)
        log.info(
            "app.opened",
            data_dir=str(data_dir),
            provider=self.provider.name,
            model=self.provider.model,
            tools=len(self.tools),
        )

    async def prime(self) -> None:
        """Evaluate (or restore) the engine's stable prefix, so the first turn pays neither
        for it nor for the tool index. A failed prime leaves an engine that still answers."""
        started = time.monotonic()
        try:
            await self.provider.prime(self.prompt.stable_prefix(), self.tools.definitions())
        except Exception as err:  # noqa: BLE001 - turns then evaluate the whole prompt
            log.warning("engine.prime_failed", error=repr(err))
        finally:
            self.health.engine = "ready"
            self.engine_ready.set()
        log.info("engine.ready", duration_ms=round((time.monotonic() - started) * 1000, 1))

    async def _serve_turns(self) -> None:
        """Turns that arrive while the engine warms wait in the inbox, then are served."""
        if not self.engine_ready.is_set():
            await self.prime()
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
        if report.llm_calls:
            # The distiller's prompts replaced the conversation a local engine had ready.
            await self.agent.prepare_next()
        # Profiles are rebuilt from what the heartbeat just distilled.
        names = [m.name for m in await self.members.list() if m.active]
        names += await self.conversation.members()
        profiles = await self.profiles.rebuild(names)
        log.info("memory.profiles.rebuilt", members=profiles)
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
            data_dir.mkdir(parents=True, exist_ok=True)
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
            openai=OpenAIChannel(self.inbox, self.devices),
            agent_chat=AgentChatChannel(self.inbox, self.devices),
            run_channel=RunsChannel(self.inbox, self.devices, self.runs),
        )

    async def run(
        self,
        *,
        http: bool = True,
        on_ready: Callable[[], Awaitable[None] | None] | None = None,
    ) -> None:
        """Run the long-lived tasks until cancelled."""
        from homeagent.api.server import serve_http
        from homeagent.systemd import watchdog_loop

        async with anyio.create_task_group() as tg:
            tg.start_soon(self.runs.run_writer)
            if http:
                host, port = self.config.listen
                # The server registers its channels while it serves and reports its port.
                self.health.port = await tg.start(serve_http, self.api_dependencies(), host, port)
            self.health.serving = True
            # After HTTP: /healthz answers (engine: warming) while the engine primes.
            tg.start_soon(self._serve_turns)
            tg.start_soon(watchdog_loop)
            if self.config.daemon.check_interval > 0:
                tg.start_soon(self._check_loop)
            if self.config.daemon.heartbeat_interval > 0:
                tg.start_soon(heartbeat_loop, self.config.daemon.heartbeat_interval, self.heartbeat)
            if self.config.knowledge.watch:
                watcher = KnowledgeWatcher(self.knowledge, debounce=self.config.knowledge.watch_debounce)
                await tg.start(watcher.run)
            if on_ready is not None:
                result = on_ready()
                if result is not None:
                    await result
