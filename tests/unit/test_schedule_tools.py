"""What a member says back to a reminder finds the reminder tools, in Chinese and English,
and asking for a new reminder still finds the action that makes one."""

from __future__ import annotations

import pytest

from homeagent.actions import action_specs
from homeagent.clock import FakeClock
from homeagent.config import ScheduleConfig
from homeagent.llm.dialect.select import ActionSelector
from homeagent.schedule import Scheduler, reminder_tools


@pytest.fixture(scope="module")
def selector() -> ActionSelector:
    # Listing only: the tools' definitions, nothing runs (no database, no channels).
    scheduler = Scheduler(None, FakeClock(), None, None, ScheduleConfig())  # type: ignore[arg-type]
    specs = [*action_specs(db=None, clock=None), *reminder_tools(scheduler)]
    return ActionSelector([s.to_def() for s in specs])


@pytest.mark.parametrize(("text", "tool"), [
    ("5分钟后再提醒我", "snooze_reminder"),
    ("等会儿再提醒我", "snooze_reminder"),
    ("snooze 10 minutes", "snooze_reminder"),
    ("remind me again in 20 minutes", "snooze_reminder"),
    ("知道了", "acknowledge_reminder"),
    ("got it", "acknowledge_reminder"),
    ("明天下午5点提醒我交报告", "create_task"),
    ("Remind me to call the plumber on Friday", "create_task"),
    ("提醒我下午3点开会", "create_event"),
    ("每天晚上9点提醒我背单词", "create_habit"),
])
def test_the_first_choice(selector, text, tool):
    ranking = selector.rank(text)
    assert not ranking.chat
    assert ranking.scored[0][0].name == tool
