"""What every life action is built from: its static definition, the dependencies it is
bound to, and `Call`, the per-call helper that reads and checks arguments.

An `ActionDef` is a constant (name, category, description, JSON Schema, permission
class, examples, and an async `run(call)`), made by a module's `Category.define`
decorator; the module hands its definitions to an `ActionRegistry` in its
`register(registry, deps)`, and `ActionDef.bind(deps)` makes the `ToolSpec` the tool
registry holds. Executors read arguments through `Call`, which resolves dates and
amounts against the injected clock and raises `ToolValidationError` naming the field and
the expected format, and answers in the language of the arguments (Chinese or English).
The SQL helpers live in `homeagent.actions.sql`, which imports nothing from here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Literal, Protocol

from homeagent.actions.dates import DateError, When, day_range, parse_when, period_end
from homeagent.actions.money import Money, MoneyError, parse_money
from homeagent.actions.repeat import Repeat, RepeatError, parse_repeat
from homeagent.clock import Clock
from homeagent.errors import ToolError, ToolValidationError
from homeagent.numbers import find_number, parse_number
from homeagent.store import Database
from homeagent.text import has_han
from homeagent.tools.registry import DisplayHint, Permission, ToolContext, ToolOutput, ToolSpec

_LATIN_RE = re.compile(r"[A-Za-z]{2,}")
NO_REPEAT = ("", "none", "no", "不重复")  # a repeat argument that ends the rule

CATEGORIES: dict[str, tuple[str, str]] = {
    "task": ("任务管理", "Tasks"),
    "event_habit": ("日程与习惯", "Events & habits"),
    "note_diary": ("记与日记", "Notes & diary"),
    "finance": ("财务管理", "Finance"),
    "health": ("健康管理", "Health"),
    "goal": ("目标与成就", "Goals & achievements"),
    "life": ("生活工具", "Life tools"),
    "inventory": ("资产管理", "Inventory & lending"),
    "mode_extras": ("模式与扩展", "Mode & extras"),
}


@dataclass(frozen=True)
class ActionSettings:
    """Plain settings the lead maps from config (see the package docstring)."""

    currency: str = "CNY"
    language: Literal["zh", "en"] = "zh"  # result language when the arguments carry no text
    page_size: int = 10
    max_page_size: int = 50
    water_goal_ml: int = 2000
    cup_ml: int = 250
    modes: tuple[str, ...] = ("home", "away", "sleep", "guest")
    search_url: str = ""  # a SearXNG instance, e.g. http://127.0.0.1:8888
    search_timeout: float = 8.0
    search_results: int = 5


class ChannelSource(Protocol):
    """The IO layer's device registry (homeagent.io.DeviceRegistry)."""

    async def list(self) -> Sequence[Any]: ...


class ModeStore(Protocol):
    async def current(self) -> str: ...

    async def set(self, mode: str, *, reason: str = "", member: str = "") -> tuple[str, str]: ...

    @property
    def modes(self) -> tuple[str, ...]: ...


class SearchBackend(Protocol):
    async def search(self, query: str, limit: int) -> list[dict[str, str]]: ...


@dataclass(frozen=True)
class Deps:
    db: Database
    clock: Clock
    settings: ActionSettings
    modes: ModeStore | None = None
    channels: ChannelSource | None = None
    search: SearchBackend | None = None


Runner = Callable[["Call"], Awaitable[ToolOutput | str]]


@dataclass(frozen=True)
class ActionDef:
    name: str
    category: str
    description: str
    parameters: Mapping[str, Any]
    run: Runner
    permission: Permission = Permission.WRITE
    examples: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    featured: int = 0  # leading examples that are the prompt's example dialogues

    def example_lines(self) -> tuple[str, ...]:
        return tuple(
            f"{text} → {self.name} {json.dumps(dict(args), ensure_ascii=False)}"
            for text, args in self.examples
        )

    def bind(self, deps: Deps | None) -> ToolSpec:
        props = dict(self.parameters).get("properties", {})
        enums = frozenset(k for k, v in props.items() if isinstance(v, dict) and "enum" in v)

        async def executor(ctx: ToolContext, args: dict[str, Any]) -> ToolOutput | str:
            if deps is None:
                raise ToolError(f"{self.name} is listed for reference and cannot run here")
            return await self.run(Call(deps, ctx, args, enums))

        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            executor=executor,
            permission=self.permission,
            examples=self.example_lines(),
            category=self.category,
            featured_examples=self.featured,
        )


@dataclass(frozen=True)
class Category:
    """Makes the `ActionDef`s of one category module. A constant: it holds no actions;
    the module hands the definitions it made to a registry in its `register`."""

    name: str

    def define(
        self,
        name: str,
        description: str,
        properties: Mapping[str, Any],
        *,
        required: Iterable[str] = (),
        permission: Permission = Permission.WRITE,
        examples: Iterable[tuple[str, Mapping[str, Any]]] = (),
        featured: int = 0,
        category: str | None = None,
    ) -> Callable[[Runner], ActionDef]:
        """A decorator turning an executor `async def run(call)` into its `ActionDef`."""
        schema: dict[str, Any] = {
            "type": "object",
            "properties": dict(properties),
            "additionalProperties": False,
        }
        req = list(required)
        if req:
            schema["required"] = req

        def wrap(run: Runner) -> ActionDef:
            return ActionDef(name, category or self.name, description, schema, run, permission,
                             tuple(examples), featured)

        return wrap


class ActionRegistry:
    """The actions of one build, as the modules' `register(registry, deps)` hand them over.

    Built fresh by whoever needs one (`register_actions` for the daemon,
    `action_definitions` for the CLI and tests); nothing is kept between builds.
    Duplicate names and unknown categories raise.
    """

    def __init__(self) -> None:
        self._defs: dict[str, ActionDef] = {}

    def add(self, *defs: ActionDef) -> None:
        for d in defs:
            if d.category not in CATEGORIES:
                raise ValueError(f"action {d.name!r} has an unknown category {d.category!r}")
            if d.name in self._defs:
                raise ValueError(f"action {d.name!r} is already registered")
            self._defs[d.name] = d

    def definitions(self) -> tuple[ActionDef, ...]:
        """Grouped by category in the seed's order; within one, in the order added."""
        order = list(CATEGORIES)
        return tuple(sorted(self._defs.values(), key=lambda d: order.index(d.category)))

    def specs(self, deps: Deps | None) -> tuple[ToolSpec, ...]:
        """The ToolSpecs bound to `deps` (None: listed for reference, not runnable)."""
        return tuple(d.bind(deps) for d in self.definitions())


# -- JSON Schema fragments -------------------------------------------------------------


def s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def i(description: str, minimum: int | None = None, maximum: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "description": description}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def num(description: str) -> dict[str, Any]:
    # Small models often quote numbers; the executor reads either.
    return {"type": ["number", "string"], "description": description}


def enum(description: str, *values: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def repeat(description: str) -> dict[str, Any]:
    return s(f"{description}（如 每天、每个工作日、每周一、每月1号、每隔一天 / e.g. every day, every weekday, "
             "every Monday at 8, monthly on the 1st, every other day）")


def when(description: str) -> dict[str, Any]:
    return s(f"{description}（照抄用户的说法即可，如 明天下午3点、下周五 / copy the user's words, e.g. tomorrow 5pm, next Friday）")


ID = i("记录编号，来自列表结果 / the record's id, from a list result", minimum=1)
LIST = {
    "query": s("关键词 / keyword to search for"),
    "from": when("起始日期 / start date"),
    "to": when("结束日期 / end date"),
    "limit": i("每页条数 / how many to show", 1, 50),
    "offset": i("跳过前几条，用于翻页 / how many to skip, for the next page", 0),
}
PAGE = {"limit": LIST["limit"], "offset": LIST["offset"]}


# -- per-call helper -------------------------------------------------------------------


class Call:
    def __init__(self, deps: Deps, ctx: ToolContext, args: dict[str, Any], enums: frozenset[str] = frozenset()):
        self.deps = deps
        self.db = deps.db
        self.settings = deps.settings
        self.ctx = ctx
        self.args = args
        self.now: datetime = deps.clock.now()
        self.today: date = self.now.date()
        self.member: str = getattr(ctx, "member", "") or ""
        # The answer follows the language of the free text (not of enum values like "open").
        texts = " ".join(v for v in _strings({k: v for k, v in args.items() if k not in enums}))
        if has_han(texts):
            self.lang = "zh"
        elif _LATIN_RE.search(texts):
            self.lang = "en"
        elif getattr(ctx, "language", "") in ("zh", "en"):
            self.lang = ctx.language
        else:
            self.lang = deps.settings.language

    def t(self, zh: str, en: str) -> str:
        return zh if self.lang == "zh" else en

    # Arguments ---------------------------------------------------------------------------

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.args.get(key)
        if value is None:
            return default
        value = str(value).strip()
        return value or default

    def need(self, key: str) -> str:
        value = self.text(key)
        if value is None:
            raise ToolValidationError(f"{key}: required and must not be empty")
        return value

    def when(self, key: str, *, prefer: Literal["future", "past"] = "future") -> When | None:
        raw = self.args.get(key)
        if raw is None or str(raw).strip() == "":
            return None
        try:
            return parse_when(str(raw), self.now, prefer=prefer)
        except DateError as err:
            raise ToolValidationError(f"{key}: {err}") from err

    def repeat(self, key: str = "repeat") -> Repeat | None:
        raw = self.args.get(key)
        if raw is None or str(raw).strip() in NO_REPEAT:
            return None
        try:
            return parse_repeat(str(raw))
        except RepeatError as err:
            raise ToolValidationError(f"{key}: {err}") from err

    def first_due(self, key: str, rule: Repeat | None) -> When | None:
        """The `key` moment; for a repeating record without one, its first occurrence, and
        a bare day with the rule's time of day."""
        due = self.when(key)
        if rule is None:
            return due
        if due is None:
            return When(rule.first(self.now), rule.at is not None)
        if not due.has_time and rule.at is not None:
            return When(datetime.combine(due.day, rule.at, self.now.tzinfo), True)
        return due

    def deadline(self, key: str = "deadline") -> date | None:
        """A day by which something is to be done: a period said whole (今年, this month,
        下周) is its last day, not today or its first."""
        raw = self.text(key)
        end = period_end(raw, self.now) if raw else None
        return end if end is not None else self.day(key)

    def day(self, key: str, *, prefer: Literal["future", "past"] = "future") -> date | None:
        found = self.when(key, prefer=prefer)
        return None if found is None else found.day

    def range(self, default_days: int | None = None) -> tuple[date | None, date | None]:
        """The `from`/`to` arguments; `from` alone may name a whole period (本周, last month)."""
        start_raw, end_raw = self.text("from"), self.text("to")
        try:
            start, end = period(start_raw, end_raw, self.now)
        except DateError as err:
            key = "from" if start_raw and not _parses(start_raw, self.now) else "to"
            raise ToolValidationError(f"{key}: {err}") from err
        if start is None and end is None and default_days is not None:
            start = self.today - timedelta(days=default_days - 1)
        return start, end

    def money(self, key: str, currency_key: str = "currency") -> Money | None:
        raw = self.args.get(key)
        if raw is None or raw == "":
            return None
        try:
            money = parse_money(raw, self.settings.currency, self.text(currency_key))
        except MoneyError as err:
            raise ToolValidationError(f"{key}: {err}") from err
        if money.minor < 0:
            raise ToolValidationError(f"{key}: must not be negative; give the type (expense/income) instead")
        return money

    def number(self, key: str, *, minimum: float | None = None, maximum: float | None = None) -> float | None:
        raw = self.args.get(key)
        if raw is None or raw == "":
            return None
        value = parse_number(raw) if not isinstance(raw, str) else _first_number(raw)
        if value is None:
            raise ToolValidationError(f"{key}: expected a number such as 3 or 7.5, got {raw!r}")
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise ToolValidationError(f"{key}: expected a number from {minimum} to {maximum}, got {raw!r}")
        return value

    def page(self) -> tuple[int, int]:
        limit = int(self.args.get("limit") or self.settings.page_size)
        return min(limit, self.settings.max_page_size), int(self.args.get("offset") or 0)

    def stamp(self) -> dict[str, str]:
        """Who and when, for a new row."""
        return {"member": self.member, "created_at": self.now.isoformat(timespec="seconds")}

    # Results -----------------------------------------------------------------------------

    def done(self, zh: str, en: str, data: Any = None) -> ToolOutput:
        return ToolOutput(self.t(zh, en), DisplayHint("text", "", data) if data is not None else None)

    def listing(
        self,
        noun: tuple[str, str],
        rows: Sequence[Mapping[str, Any]],
        total: int,
        render: Callable[[Mapping[str, Any]], str],
        *,
        offset: int = 0,
        extra: str = "",
    ) -> ToolOutput:
        zh, en = noun
        if not rows:
            msg = self.t(f"没有找到{zh}。", f"No {en} found.")
            if offset and total:
                msg = self.t(f"共 {total} 条{zh}，这一页没有了。", f"{total} {en} in all; nothing on this page.")
        else:
            head = self.t(
                f"共 {total} 条{zh}，第 {offset + 1}–{offset + len(rows)} 条：",
                f"{total} {en}, showing {offset + 1}–{offset + len(rows)}:",
            )
            lines = [head, *(f"- {render(r)}" for r in rows)]
            if offset + len(rows) < total:
                lines.append(self.t(f"（还有更多：offset={offset + len(rows)}）",
                                    f"(more: offset={offset + len(rows)})"))
            msg = "\n".join(lines)
        if extra:
            msg = f"{msg}\n{extra}"
        return ToolOutput(msg, DisplayHint("list", en, [dict(r) for r in rows]))

    def series(
        self, listed: ToolOutput, title: str, unit: str, points: Sequence[tuple[str, float]]
    ) -> ToolOutput:
        """A listing shown as a chart (seed 004 §6 data cards): `points` are (label,
        value) oldest first; the listed rows ride along for a table."""
        rows = listed.display.data if listed.display is not None else []
        data = {"unit": unit, "points": [{"x": x, "y": y} for x, y in points], "rows": rows}
        return ToolOutput(listed.content, DisplayHint("data_series", title, data))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _first_number(text: str) -> float | None:
    value = parse_number(text)
    return value if value is not None else find_number(text)


def period(start_raw: str | None, end_raw: str | None, now: datetime) -> tuple[date | None, date | None]:
    """The inclusive days a read's `from`/`to` cover: `from` alone may name a whole period
    (本周, last month, 明天); a bare start ("from March 1") is open-ended. Raises DateError."""
    if start_raw and not end_raw:
        first, last = day_range(start_raw, now)
        if re.match(r"\s*(?:since|自从|自)\b", start_raw, re.I) or re.search(r"以来\s*$", start_raw):
            return first, None  # "since February": from its first day on
        if first == last and not _names_single_day(start_raw):
            return first, None  # "from March 1": open-ended
        return first, last
    start = day_range(start_raw, now)[0] if start_raw else None
    end = day_range(end_raw, now)[1] if end_raw else None
    return start, end


def _parses(text: str, now: datetime) -> bool:
    try:
        day_range(text, now)
    except DateError:
        return False
    return True


def _names_single_day(text: str) -> bool:
    return not re.search(r"周|星期|月|年|天|日|week|month|year|days", text, re.I) or bool(
        re.search(r"今天|明天|昨天|后天|前天|today|yesterday|tomorrow|\d+[日号]|^\d{4}-\d{2}-\d{2}$"
                  r"|(?:周|星期|礼拜)[一二三四五六日天](?!\s*(?:到|至|-|~|起|开始|以来|之后|以后))", text, re.I)
    )


__all__ = [
    "ID", "LIST", "PAGE", "CATEGORIES", "ActionDef", "ActionRegistry", "ActionSettings", "Call", "Category",
    "ChannelSource", "Deps", "ModeStore", "SearchBackend", "boolean", "enum", "i", "num", "period", "repeat", "s", "strings",
    "when",
]
