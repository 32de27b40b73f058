"""Tools that need nothing but the process itself."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from homeagent.errors import ToolError
from homeagent.tools.registry import Permission, ToolContext, ToolSpec

_WEEKDAYS_ZH = "一二三四五六日"


async def _current_time(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    now = ctx.now()
    tz_name = args.get("timezone")
    if tz_name:
        try:
            now = now.astimezone(ZoneInfo(tz_name))
        except (ZoneInfoNotFoundError, ValueError, OSError) as err:
            raise ToolError(
                f"unknown timezone {tz_name!r}; use an IANA name such as Asia/Shanghai"
            ) from err
    return {
        "iso": now.isoformat(timespec="seconds"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M"),
        "weekday": now.strftime("%A"),
        "weekday_zh": "星期" + _WEEKDAYS_ZH[now.weekday()],
        "timezone": str(now.tzinfo) if now.tzinfo else "local",
    }


CURRENT_TIME = ToolSpec(
    name="current_time",
    description=(
        "Get the current date, time and weekday, optionally in another timezone. "
        "获取当前日期、时间和星期。"
    ),
    parameters={
        "type": "object",
        "properties": {
            "timezone": {
                "type": "string",
                "description": "IANA timezone such as Asia/Shanghai or Europe/London; "
                "omit for the home's own timezone",
            }
        },
        "additionalProperties": False,
    },
    executor=_current_time,
    permission=Permission.READ,
    examples=("What time is it? → current_time {}", "现在几点？ → current_time {}"),
)


def builtin_tools() -> tuple[ToolSpec, ...]:
    return (CURRENT_TIME,)
