"""The supervisor: a crashing subsystem is restarted with backoff; checks mark health."""

from __future__ import annotations

import anyio
import pytest

from homeagent.ext.supervisor import Supervisor

pytestmark = pytest.mark.anyio


async def test_a_crashing_subsystem_is_restarted_and_its_state_shown():
    runs: list[int] = []
    fourth = anyio.Event()
    healthy = [True]
    sup = Supervisor(check_interval=0.01, restart_initial=0.01, restart_max=0.04)

    async def flaky() -> None:
        runs.append(len(runs))
        if len(runs) < 4:
            raise RuntimeError(f"boom {len(runs)}")
        fourth.set()
        await anyio.sleep_forever()

    async def probe() -> tuple[bool, str]:
        return healthy[0], "fine" if healthy[0] else "disk gone"

    sup.add("probe", check=probe)
    async with anyio.create_task_group() as tg:
        tg.start_soon(sup.keep, "flaky", flaky)
        tg.start_soon(sup.run)
        with anyio.fail_after(10):
            await fourth.wait()
        status = sup.status()
        assert status["flaky"]["restarts"] == 3 and status["flaky"]["state"] == "ready"
        assert status["flaky"]["last_error"] == "RuntimeError: boom 3"
        healthy[0] = False
        await sup.check_now()
        assert sup.status()["probe"] == {**sup.status()["probe"], "state": "unhealthy", "detail": "disk gone"}
        tg.cancel_scope.cancel()


async def test_a_check_that_raises_is_unhealthy_not_fatal():
    sup = Supervisor(check_interval=0)

    async def broken() -> tuple[bool, str]:
        raise OSError("no such device")

    sup.add("broken", check=broken)
    await sup.check_now()
    assert sup.status()["broken"]["state"] == "unhealthy"
    assert "no such device" in sup.status()["broken"]["detail"]
