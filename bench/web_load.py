"""The dashboard's first load in a real browser: bytes transferred and time to usable.

Starts a real App (scripted provider, a fresh data dir, a household token) with its HTTP
server on a free loopback port, and drives Debian's chromium through playwright.

- a fresh profile opens `/`, signs in, and the chat view is ready (`body[data-ready]`):
  every byte of that load is counted (the Chrome DevTools protocol's encodedDataLength
  of each response: headers and body as sent), with the browser cache disabled.
- usable: the page's own clock (performance.now() from navigation start) when the
  sign-in form is shown (fresh profile) and when the chat view is ready (the token
  kept in localStorage; the cache still disabled, so every file is fetched again).

    .venv/bin/python bench/web_load.py --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402
from homeagent.llm.testing import ScriptedProvider  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
TOKEN = "bench-household-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config(tmp: Path):
    (tmp / "knowledge").mkdir()
    path = tmp / "homeagent.yaml"
    path.write_text(
        f"daemon:\n  data_dir: {tmp / 'data'}\n  listen_addr: 127.0.0.1:{free_port()}\n  heartbeat_interval: 0\n"
        f"agent:\n  personality_file: {ROOT / 'personal.md'}\n"
        f"api:\n  token: {TOKEN}\n"
        f"knowledge:\n  dir: {tmp / 'knowledge'}\n  watch: false\n"
        "log:\n  level: warning\n",
        encoding="utf-8",
    )
    return load_config(path, env={})


async def measure(url: str, chromium: str, runs: int) -> None:
    cold_bytes, form_ms, warm_ms, warm_wall, requests = [], [], [], [], []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
        for _ in range(runs):
            context = await browser.new_context(viewport={"width": 412, "height": 860})
            page = await context.new_page()
            cdp = await context.new_cdp_session(page)
            await cdp.send("Network.enable")
            await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
            sizes: dict[str, float] = {}
            sent: dict[str, str] = {}  # request id → url
            answered: set[str] = set()
            cdp.on("Network.requestWillBeSent",
                   lambda e, sent=sent: sent.__setitem__(e["requestId"], e["request"]["url"]))
            cdp.on("Network.responseReceived", lambda e, answered=answered: answered.add(e["requestId"]))
            cdp.on("Network.loadingFinished",
                   lambda e, sizes=sizes: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
            cdp.on("Network.loadingFailed", lambda e, sizes=sizes: sizes.__setitem__(e["requestId"], 0))
            await page.goto(url, wait_until="commit")
            await page.wait_for_selector("body[data-form-ms]")
            # The page's own clock: from navigation start to the sign-in form shown.
            form_ms.append(float(await page.get_attribute("body", "data-form-ms") or 0))
            await page.fill("#token", TOKEN)
            await page.click("#sign-in")
            await page.wait_for_selector("body[data-ready='1']")
            # The push stream (GET /api/events) stays open: never "network idle". The first load
            # is done when every other request has finished and the stream has answered; its
            # own bytes (headers and the opening frame, well under 1 KB) are not counted.
            def loaded(sent=sent, sizes=sizes, answered=answered) -> bool:
                return all(rid in sizes or (url.endswith("/api/events") and rid in answered)
                           for rid, url in list(sent.items()))

            while not loaded():  # noqa: ASYNC110 - polls what the CDP events recorded
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # nothing else follows
            cold_bytes.append(sum(sizes.values()))
            requests.append(len(sent))
            started = time.perf_counter()
            await page.goto(url, wait_until="commit")
            await page.wait_for_selector("body[data-ready='1']")
            warm_wall.append((time.perf_counter() - started) * 1000)
            warm_ms.append(float(await page.get_attribute("body", "data-ready-ms") or 0))
            await context.close()
        await browser.close()
    med = statistics.median
    print(f"runs: {runs} (cache disabled)")
    print(f"first load, fresh profile, until the chat view is ready after sign-in: "
          f"{med(cold_bytes) / 1024:.1f} KB transferred in {med(requests):.0f} requests")
    print(f"fresh profile: sign-in form usable {med(form_ms):.0f} ms after navigation start (median; max {max(form_ms):.0f})")
    print(f"token kept: chat view usable {med(warm_ms):.0f} ms after navigation start (median; max {max(warm_ms):.0f}); "
          f"as playwright sees it {med(warm_wall):.0f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        async with App(config(Path(tmp)), provider=ScriptedProvider()) as app:
            ready = asyncio.Event()
            task = asyncio.create_task(app.run(on_ready=ready.set))
            await ready.wait()
            try:
                await measure(f"http://127.0.0.1:{app.health.port}/", args.chromium, args.runs)
            finally:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass


if __name__ == "__main__":
    asyncio.run(main())
