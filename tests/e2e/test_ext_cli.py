"""The extension commands against a real daemon subprocess: backup, restore, skills."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.e2e.conftest import start_daemon

REPO = Path(__file__).resolve().parents[2]


def count(db: Path, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_backup_while_running_restore_refused_then_restored_whole(tmp_path):
    daemon = start_daemon(tmp_path, llm={"provider": "echo"}, skills={"dir": str(REPO / "skills")})
    try:
        for i in range(5):
            done = daemon.cli("chat", "--url", daemon.url, f"hello number {i}")
            assert done.returncode == 0, done.stderr
        made = daemon.cli("backup", "--json", "--config", str(daemon.config))
        assert made.returncode == 0, made.stderr
        backup = Path(json.loads(made.stdout)["path"])
        refused = daemon.cli("restore", str(backup), "--config", str(daemon.config))
        assert refused.returncode != 0
        assert "the daemon is running" in refused.stderr and "stop it first" in refused.stderr
        # A second daemon on the same data dir is refused with one clear line.
        from tests.conftest import free_port

        second = daemon.cli("serve", "--config", str(daemon.config), "--listen", f"127.0.0.1:{free_port()}")
        assert second.returncode != 0 and "another HomeAgent daemon is running" in second.stderr
        # Something new after the backup: the restore must take it away again.
        assert daemon.cli("chat", "--url", daemon.url, "after the backup").returncode == 0
    finally:
        assert daemon.stop() == 0
    db = tmp_path / "data" / "homeagent.db"
    assert count(db, "messages") == 12
    restored = daemon.cli("restore", str(backup), "--config", str(daemon.config))
    assert restored.returncode == 0, restored.stderr
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        texts = [r[0] for r in conn.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id")]
    finally:
        conn.close()
    assert texts == [f"hello number {i}" for i in range(5)]
    assert (tmp_path / "data" / "homeagent.db.before-restore").exists()


def test_restore_refuses_a_file_that_is_not_a_database(tmp_path):
    daemon = start_daemon(tmp_path, wait=False, llm={"provider": "echo"})
    daemon.proc.kill()
    daemon.proc.wait()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    result = daemon.cli("restore", str(junk), "--config", str(daemon.config))
    assert result.returncode != 0 and "not a sound SQLite database" in result.stderr


def test_skills_list_enable_disable(tmp_path):
    daemon = start_daemon(tmp_path, wait=False, llm={"provider": "echo"}, skills={"dir": str(REPO / "skills")})
    daemon.proc.kill()
    daemon.proc.wait()
    listed = daemon.cli("skills", "list", "--json", "--config", str(daemon.config))
    assert listed.returncode == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)["skills"]}
    assert rows["meal_plan"]["enabled"] and rows["budget_review"]["enabled"]
    assert daemon.cli("skills", "disable", "meal_plan", "--config", str(daemon.config)).returncode == 0
    rows = {r["name"]: r for r in json.loads(daemon.cli("skills", "list", "--json", "--config", str(daemon.config)).stdout)["skills"]}
    assert not rows["meal_plan"]["enabled"] and rows["budget_review"]["enabled"]
    unknown = daemon.cli("skills", "enable", "no_such_skill", "--config", str(daemon.config))
    assert unknown.returncode != 0 and "no skill named 'no_such_skill'" in unknown.stderr


def test_sighup_refuses_a_bad_config_and_applies_a_good_one(tmp_path):
    import signal
    import time
    import urllib.request

    import yaml

    daemon = start_daemon(tmp_path, llm={"provider": "echo"}, skills={"dir": str(REPO / "skills")})
    try:
        with urllib.request.urlopen(daemon.url + "/healthz", timeout=5) as resp:
            health = json.load(resp)
        assert health["subsystems"]["database"]["state"] == "ready"
        assert "knowledge_watcher" in health["subsystems"] and "heartbeat" in health["subsystems"]
        good = daemon.config.read_text()
        daemon.config.write_text(good + "\nskills:\n  max_active: 0\n", encoding="utf-8")
        daemon.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while "daemon.reload.refused" not in daemon.stderr and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "daemon.reload.refused" in daemon.stderr and "skills.max_active" in daemon.stderr
        assert daemon.proc.poll() is None
        raw = yaml.safe_load(good)
        raw["skills"]["enabled"] = ["budget_review"]
        daemon.config.write_text(yaml.safe_dump(raw), encoding="utf-8")
        daemon.proc.send_signal(signal.SIGHUP)
        while "daemon.reloaded" not in daemon.stderr and time.monotonic() < deadline:
            time.sleep(0.1)
        reloaded = [json.loads(line) for line in daemon.stderr.splitlines() if '"daemon.reloaded"' in line]
        assert reloaded and reloaded[-1]["skills"] == ["budget_review"] and reloaded[-1]["applied"] == ["skills"]
        assert daemon.cli("chat", "--url", daemon.url, "still here?").returncode == 0
    finally:
        assert daemon.stop() == 0


def test_doctor_reports_plugins_adapters_and_skills(tmp_path):
    import subprocess
    import sys

    from tests.conftest import write_config
    from tests.e2e.conftest import base_env

    server = str(REPO / "tests" / "integration" / "mcp_fake_server.py")
    config = write_config(
        tmp_path, llm={"provider": "echo"}, skills={"dir": str(REPO / "skills")},
        plugins={"servers": {"fake": {"command": sys.executable, "args": [server]},
                             "needs_key": {"command": sys.executable, "args": [server], "env": ["NO_SUCH_KEY_SET"]}}},
        adapters={"dir": str(REPO / "adapters"), "enabled": ["smart_plug", "absent"]},
    )
    env = base_env(tmp_path)
    env.pop("NO_SUCH_KEY_SET", None)
    done = subprocess.run([sys.executable, "-m", "homeagent", "doctor", "--json", "--probe", "--config", str(config)],
                          capture_output=True, text=True, timeout=180, env=env)
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert checks["plugin fake"]["ok"] and "fake__add" in checks["plugin fake"]["detail"]
    assert not checks["plugin needs_key"]["ok"] and "NO_SUCH_KEY_SET" in checks["plugin needs_key"]["detail"]
    assert checks["adapter smart_plug"]["ok"] and not checks["adapter absent"]["ok"]
    assert checks["skills"]["ok"] and "meal_plan" in checks["skills"]["detail"]
    assert done.returncode == 1  # problems were found


def test_changes_list_diff_revert_from_the_command_line(tmp_path):
    import asyncio

    from homeagent.config import load_config
    from homeagent.ext.changes import ChangeTracker
    from homeagent.schema import all_migrations
    from homeagent.store import Database
    from tests.conftest import write_config
    from tests.e2e.conftest import base_env

    config_path = write_config(tmp_path, llm={"provider": "echo"})
    config = load_config(config_path, env={"HOMEAGENT_DATA_DIR": str(tmp_path / "data")})
    target = tmp_path / "export.md"

    async def write() -> None:
        async with Database(config.data_dir / "homeagent.db", all_migrations()) as db:
            tracker = ChangeTracker(db)
            await tracker.write(target, "first\n", "export")
            await tracker.write(target, "second\n", "export")

    asyncio.run(write())
    import subprocess
    import sys

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "homeagent", "changes", *args, "--config", str(config_path)],
                              capture_output=True, text=True, timeout=120, env=base_env(tmp_path))

    listed = json.loads(cli("list", "--json").stdout)["changes"]
    assert [(c["id"], c["op"]) for c in listed] == [(2, "modify"), (1, "create")]
    diff = cli("diff", "2").stdout
    assert "-first" in diff and "+second" in diff
    reverted = cli("revert", "2", "--json")
    assert reverted.returncode == 0, reverted.stderr
    assert json.loads(reverted.stdout)["reverts"] == 2
    assert target.read_text() == "first\n"
    # The revert is a change too: undoing it brings "second" back.
    assert cli("revert", "3").returncode == 0 and target.read_text() == "second\n"
    missing = cli("diff", "99")
    assert missing.returncode != 0 and "no change with id 99" in missing.stderr
