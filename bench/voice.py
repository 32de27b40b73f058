#!/usr/bin/env python3
"""End of speech → first byte of the spoken answer, over Wyoming, on the bundled model.

A real App on the daemon's own config (the bundled SmolLM2 on llama.cpp, the voice
extra's Whisper tiny.en and piper joe-medium) serves Wyoming on a free port; the
`wyoming` package's client plays a Home Assistant voice pipeline with HomeAgent in all
three stages. The spoken command is made by piper beforehand (not timed).

Per run, with t0 = the moment `audio-stop` (the end of speech) is written:
    STT   t0 → `transcript`                       (transcribe + audio-start/chunk…/stop)
    turn  transcript sent → the answer's first sentence complete in the streamed
          handled-chunks (handled-stop when the answer is one sentence)
    TTS   `synthesize` of that sentence sent → first `audio-chunk`
    total t0 → first audio byte: STT + turn + TTS, measured as one chain
and the real-time factors: STT time / command audio seconds, and the time to synthesize
the whole answer / its audio seconds. The first run loads the models and is reported
apart; figures are medians over --runs warm runs. Nothing here asserts a time.

    .venv/bin/python bench/voice.py --runs 5
    .venv/bin/python bench/voice.py --command "what time is it" --json
    .venv/bin/python bench/voice.py --house      # HomeAgent holds a real Home Assistant

With `--house`, a real Home Assistant (tests/ha/harness.py: its cached venv, the test
house with a kitchen light) is started and given to HomeAgent (`home_assistant` section),
so "Turn on the kitchen light." is a device command that switches a light in it; the
light's state is checked after each run.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wyoming.asr import Transcribe, Transcript  # noqa: E402
from wyoming.audio import AudioChunk, AudioStart, AudioStop  # noqa: E402
from wyoming.client import AsyncTcpClient  # noqa: E402
from wyoming.handle import HandledChunk  # noqa: E402
from wyoming.tts import Synthesize  # noqa: E402

from homeagent.app import App  # noqa: E402
from homeagent.config import load_config  # noqa: E402
from homeagent.log import configure_logging  # noqa: E402
from homeagent.voice.audio import join  # noqa: E402
from homeagent.voice.piper import PiperTTS  # noqa: E402

SENTENCE_END = re.compile(r"[.!?。！？]\s|[.!?。！？]$")


async def stt(port: int, pcm: bytes, rate: int) -> tuple[str, float]:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(rate=rate, width=2, channels=1).event())
        for i in range(0, len(pcm), 2048):
            await client.write_event(AudioChunk(rate=rate, width=2, channels=1, audio=pcm[i : i + 2048]).event())
        t0 = time.perf_counter()
        await client.write_event(AudioStop().event())
        while True:
            event = await client.read_event()
            assert event is not None, "connection closed before the transcript"
            if Transcript.is_type(event.type):
                return Transcript.from_event(event).text, time.perf_counter() - t0


async def turn(port: int, text: str) -> tuple[str, str, float, float, bool]:
    """(first sentence, whole answer, seconds to the first sentence, seconds to the end,
    whether the agent answered: a failed turn's not-handled reason is what is spoken then)."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        t0 = time.perf_counter()
        await client.write_event(Transcript(text=text, context={"satellite_id": "bench"}).event())
        answer, first, t_first = "", "", 0.0
        while True:
            event = await client.read_event()
            assert event is not None, "connection closed before the answer"
            if HandledChunk.is_type(event.type):
                answer += HandledChunk.from_event(event).text
                if not first and (m := SENTENCE_END.search(answer)):
                    first, t_first = answer[: m.end()].strip(), time.perf_counter() - t0
            elif event.type in ("handled-stop", "handled", "not-handled"):
                if event.type != "handled-stop":
                    answer = event.data.get("text", answer)
                done = time.perf_counter() - t0
                if not first:
                    first, t_first = answer.strip(), done
                return first, answer, t_first, done, event.type != "not-handled"


async def tts(port: int, text: str) -> tuple[float, float, float]:
    """(seconds to the first audio chunk, seconds to audio-stop, audio seconds)."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        t0 = time.perf_counter()
        await client.write_event(Synthesize(text=text).event())
        first, samples, rate = 0.0, 0, 22050
        while True:
            event = await client.read_event()
            assert event is not None, "connection closed before audio-stop"
            if AudioStart.is_type(event.type):
                rate = AudioStart.from_event(event).rate
            elif AudioChunk.is_type(event.type):
                first = first or time.perf_counter() - t0
                samples += len(event.payload or b"") // 2
            elif AudioStop.is_type(event.type):
                return first, time.perf_counter() - t0, samples / rate


async def one_run(port: int, pcm: bytes, rate: int, audio_seconds: float) -> dict[str, object]:
    heard, t_stt = await stt(port, pcm, rate)
    first, answer, t_first, t_done, handled = await turn(port, heard)
    t_tts_first, _, _ = await tts(port, first)
    _, t_tts_all, spoken = await tts(port, answer) if answer.strip() else (0.0, 0.0, 0.0)
    return {
        "heard": heard, "answer": answer, "first_sentence": first, "handled": handled,
        "stt_s": t_stt, "turn_first_sentence_s": t_first, "turn_done_s": t_done, "tts_first_chunk_s": t_tts_first,
        "total_s": t_stt + t_first + t_tts_first,
        "stt_rtf": t_stt / audio_seconds, "tts_rtf": t_tts_all / spoken if spoken else 0.0,
    }


async def _house(tmp: str):  # -> HomeAssistantProcess, started, onboarded, furnished
    from tests.ha.harness import HomeAssistantProcess, ensure_venv

    await anyio.to_thread.run_sync(ensure_venv)
    ha = HomeAssistantProcess(Path(tmp) / "ha")
    await anyio.to_thread.run_sync(ha.start)
    await ha.onboard()
    await ha.furnish()
    return ha


async def main(args: argparse.Namespace) -> dict[str, object]:
    configure_logging("warning")
    speech = join(list(PiperTTS("en_US-joe-medium", language="en").synthesize(args.command)))
    with tempfile.TemporaryDirectory() as tmp:
        overrides: dict[str, dict[str, object]] = {
            "io": {"wyoming": {"enabled": True, "port": 0, "stream": True}},
            "daemon": {"heartbeat_interval": 0, "check_interval": 0},
            "knowledge": {"watch": False},
        }
        ha = await _house(tmp) if args.house else None
        if ha is not None:
            overrides["home_assistant"] = {"url": ha.url, "token": ha.token}
        config = load_config(ROOT / "config" / "homeagent.yaml", env={"HOMEAGENT_DATA_DIR": tmp}, overrides=overrides)
        runs: list[dict[str, object]] = []
        states: list[str] = []
        try:
            async with App(config) as app, anyio.create_task_group() as tg:
                ready = anyio.Event()
                tg.start_soon(lambda: app.run(http=False, on_ready=ready.set))
                await ready.wait()
                if app.home is not None:
                    with anyio.fail_after(60):
                        while not app.home.connected:
                            await app.home.wait_changed()
                t0 = time.perf_counter()
                cold = await one_run(app.wyoming.port, speech.pcm, speech.rate, speech.seconds)
                cold["wall_s"] = time.perf_counter() - t0
                for _ in range(args.runs):
                    if ha is not None:  # the light off again, so each run switches it
                        await ha.rest("POST", "/api/services/light/turn_off", {"entity_id": "light.kitchen_light"})
                    runs.append(await one_run(app.wyoming.port, speech.pcm, speech.rate, speech.seconds))
                    if ha is not None:
                        states.append((await ha.state("light.kitchen_light"))["state"])
                tg.cancel_scope.cancel()
        finally:
            if ha is not None:
                ha.stop()
        keys = ["stt_s", "turn_first_sentence_s", "turn_done_s", "tts_first_chunk_s", "total_s", "stt_rtf", "tts_rtf"]
        median = {k: statistics.median(float(r[k]) for r in runs) for k in keys}  # type: ignore[arg-type]
        return {
            "command": args.command, "audio_seconds": speech.seconds, "model": config.llm.provider,
            "runs": args.runs, "cold": cold, "median": median, "last": runs[-1],
            "house": ha is not None, "kitchen_light_after_each_run": states,
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--command", default="Turn on the kitchen light.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--house", action="store_true", help="give HomeAgent a real Home Assistant")
    ns = parser.parse_args()
    result = anyio.run(main, ns)
    if ns.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        m = result["median"]
        assert isinstance(m, dict)
        last = result["last"]
        assert isinstance(last, dict)
        print(f"command {result['command']!r} ({result['audio_seconds']:.2f} s of speech), {result['runs']} warm runs, medians:")
        print(f"  heard {last['heard']!r}; answer {last['answer']!r} ({'handled' if last['handled'] else 'NOT handled'})")
        print(f"  STT  end of speech -> transcript            {m['stt_s']:.3f} s   (RTF {m['stt_rtf']:.2f})")
        print(f"  turn transcript -> first sentence           {m['turn_first_sentence_s']:.3f} s   (whole answer {m['turn_done_s']:.3f} s)")
        print(f"  TTS  first sentence -> first audio chunk    {m['tts_first_chunk_s']:.3f} s   (RTF {m['tts_rtf']:.2f})")
        print(f"  total end of speech -> first audio byte     {m['total_s']:.3f} s")
        cold = result["cold"]
        assert isinstance(cold, dict)
        print(f"  cold first run (loads Whisper and piper): total {cold['total_s']:.3f} s, STT {cold['stt_s']:.3f} s")
        if result["house"]:
            print(f"  Home Assistant's light.kitchen_light after each run: {result['kitchen_light_after_each_run']}")
