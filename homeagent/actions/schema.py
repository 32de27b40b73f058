"""Tables of the life actions and of the tool-call audit log (migrations 10–29, and 122).

Every record keeps `member` (who said it; '' when unknown) and `created_at` (ISO 8601 in
the home's timezone). Days are stored as `YYYY-MM-DD`, moments as ISO 8601 with their
offset, money as integer minor units with a currency code. Diary, health, mood, dream and
medical records are private to their member; notes are when marked private.
"""

from __future__ import annotations

import sqlite3

from homeagent.store.db import Migration
from homeagent.tools.audit import create_tool_call_log

_COMMON = "member TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL"


def _tables(conn: sqlite3.Connection, *ddl: str) -> None:
    for statement in ddl:
        conn.execute(statement)


def _0011_tasks(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE tasks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            content TEXT NOT NULL,
            priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
            due TEXT,
            due_day TEXT,
            category TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
            completed_at TEXT,
            completed_day TEXT,
            {_COMMON})""",
        "CREATE INDEX tasks_status_due ON tasks(status, due_day)",
    )


def _0012_events(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            start TEXT NOT NULL,
            end TEXT,
            day TEXT NOT NULL,
            all_day INTEGER NOT NULL DEFAULT 0,
            location TEXT NOT NULL DEFAULT '',
            notes TEXT NOT NULL DEFAULT '',
            remind_minutes INTEGER,
            {_COMMON})""",
        "CREATE INDEX events_day ON events(day)",
    )


def _0013_habits(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE habits (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            frequency TEXT NOT NULL DEFAULT 'daily' CHECK (frequency IN ('daily', 'weekly')),
            target INTEGER NOT NULL DEFAULT 1,
            note TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
            {_COMMON})""",
        f"""CREATE TABLE habit_checkins (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            habit_id INTEGER NOT NULL REFERENCES habits(id) ON DELETE CASCADE,
            day TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            {_COMMON})""",
        "CREATE INDEX habit_checkins_day ON habit_checkins(habit_id, day)",
    )


def _0014_notes(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE notes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            private INTEGER NOT NULL DEFAULT 0,
            day TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            {_COMMON})""",
        f"""CREATE TABLE diary_entries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            day TEXT NOT NULL,
            content TEXT NOT NULL,
            mood TEXT NOT NULL DEFAULT '',
            weather TEXT NOT NULL DEFAULT '',
            {_COMMON})""",
        "CREATE INDEX diary_day ON diary_entries(day)",
    )


def _0015_finance(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE transactions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('expense', 'income')),
            amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0),
            currency TEXT NOT NULL,
            category TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL,
            recurring TEXT NOT NULL DEFAULT 'none'
                CHECK (recurring IN ('none', 'weekly', 'monthly', 'quarterly', 'yearly')),
            {_COMMON})""",
        "CREATE INDEX transactions_day ON transactions(day)",
    )


def _0016_health(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE moods (id INTEGER PRIMARY KEY AUTOINCREMENT, mood TEXT NOT NULL,
            score INTEGER, note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL, at TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE diets (id INTEGER PRIMARY KEY AUTOINCREMENT, food TEXT NOT NULL,
            meal TEXT NOT NULL DEFAULT '', calories INTEGER, note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL, at TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE water_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, amount_ml INTEGER NOT NULL,
            day TEXT NOT NULL, at TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE sleep_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, minutes INTEGER NOT NULL,
            bedtime TEXT, wake TEXT, quality TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE body_metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, weight_kg REAL,
            height_cm REAL, body_fat REAL, waist_cm REAL, note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE medicine_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            dose TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL,
            at TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE period_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, start_day TEXT NOT NULL,
            end_day TEXT, flow TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE health_metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, metric TEXT NOT NULL,
            value TEXT NOT NULL, unit TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL, at TEXT NOT NULL, {_COMMON})""",
        "CREATE INDEX moods_day ON moods(day)",
        "CREATE INDEX diets_day ON diets(day)",
        "CREATE INDEX water_day ON water_logs(day)",
        "CREATE INDEX sleep_day ON sleep_logs(day)",
        "CREATE INDEX health_metrics_day ON health_metrics(metric, day)",
    )


def _0017_goals(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE goals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            target REAL,
            progress REAL NOT NULL DEFAULT 0,
            unit TEXT NOT NULL DEFAULT '',
            deadline TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'done', 'abandoned')),
            completed_day TEXT,
            {_COMMON})""",
        f"""CREATE TABLE goal_progress (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            goal_id INTEGER NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
            progress REAL NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            day TEXT NOT NULL,
            {_COMMON})""",
    )


def _0018_life(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE shopping_items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            quantity TEXT NOT NULL DEFAULT '', category TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'bought')), price_minor INTEGER, currency TEXT,
            bought_day TEXT, {_COMMON})""",
        f"""CREATE TABLE wishlist_items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            price_minor INTEGER, currency TEXT, url TEXT NOT NULL DEFAULT '',
            priority TEXT NOT NULL DEFAULT 'medium', note TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'wanted', {_COMMON})""",
        f"""CREATE TABLE countdowns (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
            day TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE memos (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,
            pinned INTEGER NOT NULL DEFAULT 0, day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE trajectories (id INTEGER PRIMARY KEY AUTOINCREMENT, place TEXT NOT NULL,
            at TEXT NOT NULL, day TEXT NOT NULL, latitude REAL, longitude REAL,
            note TEXT NOT NULL DEFAULT '', {_COMMON})""",
    )


def _0019_inventory(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE inventory_items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            quantity REAL NOT NULL DEFAULT 1, unit TEXT NOT NULL DEFAULT '',
            location TEXT NOT NULL DEFAULT '', category TEXT NOT NULL DEFAULT '',
            expires TEXT, note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE item_lends (id INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL,
            person TEXT NOT NULL, direction TEXT NOT NULL CHECK (direction IN ('lent', 'borrowed')),
            day TEXT NOT NULL, due_day TEXT, returned_day TEXT, note TEXT NOT NULL DEFAULT '',
            {_COMMON})""",
        f"""CREATE TABLE money_lends (id INTEGER PRIMARY KEY AUTOINCREMENT, person TEXT NOT NULL,
            direction TEXT NOT NULL CHECK (direction IN ('lent', 'borrowed')),
            amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0), currency TEXT NOT NULL,
            repaid_minor INTEGER NOT NULL DEFAULT 0, day TEXT NOT NULL, due_day TEXT,
            settled_day TEXT, note TEXT NOT NULL DEFAULT '', {_COMMON})""",
    )


def _0020_household_mode(conn: sqlite3.Connection) -> None:
    # Every switch is kept; the current mode is the latest row.
    _tables(
        conn,
        f"""CREATE TABLE household_modes (id INTEGER PRIMARY KEY AUTOINCREMENT, mode TEXT NOT NULL,
            previous TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '', {_COMMON})""",
    )


def _0021_extras(conn: sqlite3.Connection) -> None:
    _tables(
        conn,
        f"""CREATE TABLE dreams (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,
            mood TEXT NOT NULL DEFAULT '', day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE media (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'movie', status TEXT NOT NULL DEFAULT 'watched',
            rating REAL, note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE birthdays (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            month INTEGER NOT NULL, day INTEGER NOT NULL, year INTEGER, lunar INTEGER NOT NULL DEFAULT 0,
            note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE books (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
            author TEXT NOT NULL DEFAULT '', status TEXT NOT NULL DEFAULT 'want',
            rating REAL, note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE study_plans (id INTEGER PRIMARY KEY AUTOINCREMENT, subject TEXT NOT NULL,
            goal TEXT NOT NULL DEFAULT '', start_day TEXT NOT NULL, end_day TEXT,
            minutes_per_day INTEGER, schedule TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE ideas (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]', day TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE pet_activities (id INTEGER PRIMARY KEY AUTOINCREMENT, pet TEXT NOT NULL,
            activity TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL,
            at TEXT NOT NULL, {_COMMON})""",
        f"""CREATE TABLE plant_waterings (id INTEGER PRIMARY KEY AUTOINCREMENT, plant TEXT NOT NULL,
            amount_ml INTEGER, note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL, at TEXT NOT NULL,
            {_COMMON})""",
        f"""CREATE TABLE recipes (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            ingredients TEXT NOT NULL DEFAULT '[]', steps TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '[]', note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE medical_visits (id INTEGER PRIMARY KEY AUTOINCREMENT, reason TEXT NOT NULL,
            hospital TEXT NOT NULL DEFAULT '', department TEXT NOT NULL DEFAULT '',
            doctor TEXT NOT NULL DEFAULT '', diagnosis TEXT NOT NULL DEFAULT '',
            cost_minor INTEGER, currency TEXT, note TEXT NOT NULL DEFAULT '', day TEXT NOT NULL,
            {_COMMON})""",
        f"""CREATE TABLE people (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            relation TEXT NOT NULL DEFAULT '', phone TEXT NOT NULL DEFAULT '',
            email TEXT NOT NULL DEFAULT '', birthday TEXT, note TEXT NOT NULL DEFAULT '', {_COMMON})""",
        f"""CREATE TABLE addresses (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL,
            address TEXT NOT NULL, person TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
            {_COMMON})""",
        f"""CREATE TABLE coupons (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
            store TEXT NOT NULL DEFAULT '', discount TEXT NOT NULL DEFAULT '', code TEXT NOT NULL DEFAULT '',
            expires TEXT, note TEXT NOT NULL DEFAULT '', used INTEGER NOT NULL DEFAULT 0, {_COMMON})""",
    )


def _0122_habit_reminders(conn: sqlite3.Connection) -> None:
    # A habit may carry a time of day ("HH:MM") at which it is reminded, every day it is due.
    conn.execute("ALTER TABLE habits ADD COLUMN remind_at TEXT")


def _0022_repeat(conn: sqlite3.Connection) -> None:
    # A task or event may repeat (homeagent.actions.repeat: "weekdays@07:00", "weekly:1");
    # '' is a one-off. The scheduler moves a repeating record to its next occurrence.
    conn.execute("ALTER TABLE tasks ADD COLUMN repeat TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE events ADD COLUMN repeat TEXT NOT NULL DEFAULT ''")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(10, "tool_call_log", create_tool_call_log),
    Migration(11, "actions_tasks", _0011_tasks),
    Migration(12, "actions_events", _0012_events),
    Migration(13, "actions_habits", _0013_habits),
    Migration(14, "actions_notes_diary", _0014_notes),
    Migration(15, "actions_finance", _0015_finance),
    Migration(16, "actions_health", _0016_health),
    Migration(17, "actions_goals", _0017_goals),
    Migration(18, "actions_life_tools", _0018_life),
    Migration(19, "actions_inventory", _0019_inventory),
    Migration(20, "household_mode", _0020_household_mode),
    Migration(21, "actions_extras", _0021_extras),
    Migration(22, "actions_repeat", _0022_repeat),
    Migration(122, "actions_habit_reminders", _0122_habit_reminders),
)
