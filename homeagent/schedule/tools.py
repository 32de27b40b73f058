"""What a member says back to a reminder, as tools: snooze it, or say they saw it.

"5分钟后再提醒我" / "snooze 10 minutes" → `snooze_reminder`; "知道了" / "got it" →
`acknowledge_reminder`. Both act on the speaker's last delivered reminder (theirs or the
household's), and answer in the language of that reminder's record (Chinese or English).
"""

from __future__ import annotations

from typing import Any

from homeagent.schedule.scheduler import Scheduler
from homeagent.text import has_han
from homeagent.tools.registry import Permission, ToolContext, ToolSpec

CATEGORY = "event_habit"  # beside the events and habits the reminders come from


def _zh(reminder_title: str, args: dict[str, Any]) -> bool:
    return has_han(reminder_title) or any(isinstance(v, str) and has_han(v) for v in args.values())


def reminder_tools(scheduler: Scheduler) -> tuple[ToolSpec, ...]:
    async def snooze(ctx: ToolContext, args: dict[str, Any]) -> str:
        minutes = args.get("minutes")
        done = await scheduler.snooze(ctx.member, int(minutes) if minutes else None)
        if done is None:
            return "没有刚送达的提醒可以推迟。 / There is no delivered reminder to snooze."
        reminder, until = done
        at = until.strftime("%H:%M")
        if _zh(reminder.title, args):
            return f"好的，{at} 再提醒你：{reminder.title}。"
        return f"OK, I'll remind you again at {at}: {reminder.title}."

    async def acknowledge(ctx: ToolContext, args: dict[str, Any]) -> str:
        reminder = await scheduler.acknowledge(ctx.member)
        if reminder is None:
            return "没有待确认的提醒。 / There is no reminder waiting to be acknowledged."
        if _zh(reminder.title, args):
            return f"好的，已确认提醒：{reminder.title}。"
        return f"OK, noted: {reminder.title}."

    minutes = {"type": "integer", "minimum": 1, "maximum": 1440,
               "description": f"推迟几分钟，默认 {scheduler.settings.snooze_minutes} / minutes to wait, "
                              f"default {scheduler.settings.snooze_minutes}"}
    return (
        ToolSpec(
            "snooze_reminder",
            "把刚送达的那条推迟几分钟（稍后再说）/ Snooze the one just delivered for a few minutes",
            {"type": "object", "properties": {"minutes": minutes}, "additionalProperties": False},
            snooze,
            permission=Permission.WRITE,
            examples=(
                '5分钟后再提醒我 → snooze_reminder {"minutes": 5}',
                'snooze 10 minutes → snooze_reminder {"minutes": 10}',
                "等会儿再说 → snooze_reminder {}",
                "推迟一下 → snooze_reminder {}",
                'remind me again in half an hour → snooze_reminder {"minutes": 30}',
            ),
            category=CATEGORY,
        ),
        ToolSpec(
            "acknowledge_reminder",
            "确认收到刚才的提醒（知道了）/ Acknowledge the reminder just delivered (got it)",
            {"type": "object", "properties": {}, "additionalProperties": False},
            acknowledge,
            permission=Permission.WRITE,
            examples=("知道了 → acknowledge_reminder {}", "got it → acknowledge_reminder {}",
                      "好的，收到提醒了 → acknowledge_reminder {}", "OK, thanks for the reminder → acknowledge_reminder {}"),
            category=CATEGORY,
        ),
    )
