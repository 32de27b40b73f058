"""Reminders and other things the agent says first.

`Scheduler` (a long-lived task of the app) delivers what falls due in the life records
(tasks, events, habits, birthdays, countdowns) once each, to the channels that can
receive unasked messages; `reminder_tools` lets a member snooze or acknowledge the last
one. Tables: `homeagent.schedule.schema.MIGRATIONS` (version 120).
"""

from homeagent.schedule.scheduler import Reminder, Scheduler, render
from homeagent.schedule.tools import reminder_tools

__all__ = ["Reminder", "Scheduler", "reminder_tools", "render"]
