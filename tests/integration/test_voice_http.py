"""Speech over HTTP against a running App: the official openai client for the
OpenAI-shaped routes, aiohttp for the spoken turn; real piper, espeak-ng and Whisper."""

from __future__ import annotations

import io
import wave
from urllib.parse import unquote

import aiohttp
import anyio
import openai
import pytest

from homeagent.llm.testing import ScriptedProvider
from tests.voice_audio import COMMAND, piper_wav, word_error_rate

from .helpers import running_app

pytestmark = pytest.mark.anyio


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


def client(app) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base(app) + "/v1", api_key="unused", max_retries=0, timeout=120)


def parse_wav(data: bytes) -> tuple[int, int, int, float]:
    with wave.open(io.BytesIO(data), "rb") as wav:
        frames = wav.getnframes()
        return wav.getframerate(), wav.getsampwidth(), wav.getnchannels(), frames / wav.getframerate()


async def test_a_spoken_command_is_transcribed_back_to_its_text(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app, client(app) as oa:
        result = await oa.audio.transcriptions.create(
            model="whisper-1", file=("command.wav", piper_wav(), "audio/wav"), language="en",
        )
        wer = word_error_rate(COMMAND, result.text)
        print(f"transcription: {result.text!r} WER={wer:.2f}")
        assert wer == 0.0
        verbose = await oa.audio.transcriptions.create(
            model="whisper-1", file=("command.wav", piper_wav(), "audio/wav"), response_format="verbose_json",
        )
        assert verbose.language == "en" and verbose.duration > 0.8  # type: ignore[attr-defined]


async def test_speech_returns_a_valid_wav_in_english_and_chinese(make_config, tmp_path):
    # Not varied: Whisper must hear the very samples every run (see the next test).
    config = make_config(voice={"varied": False})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app, client(app) as oa:
        english = await oa.audio.speech.create(
            model="tts-1", voice="alloy", input="The kitchen light is on.", response_format="wav",
        )
        rate, width, channels, seconds = parse_wav(english.content)
        assert (rate, width, channels) == (22050, 2, 1) and 0.8 < seconds < 5
        # The spoken answer is intelligible: Whisper hears the same words.
        heard = await oa.audio.transcriptions.create(
            model="whisper-1", file=("a.wav", english.content, "audio/wav"), language="en",
        )
        assert word_error_rate("the kitchen light is on", heard.text) == 0.0
        chinese = await oa.audio.speech.create(
            model="tts-1", voice="alloy", input="厨房的灯开了。", response_format="wav",
        )
        rate, width, channels, seconds = parse_wav(chinese.content)
        assert (width, channels) == (2, 1) and rate > 8000 and seconds > 0.5
        # Text is spoken, never read as options of the engine's command line.
        target = tmp_path / "owned"
        odd = await oa.audio.speech.create(
            model="tts-1", voice="alloy", input=f"-w{target}\x00", response_format="wav", extra_body={"language": "zh"},
        )
        assert parse_wav(odd.content)[3] > 0.3 and not target.exists()


async def test_speech_varies_by_default_and_repeats_itself_when_not_varied(make_config):
    async def twice(config) -> tuple[bytes, bytes]:
        async with running_app(config, provider=ScriptedProvider(), http=True) as app, client(app) as oa:
            said = [
                (await oa.audio.speech.create(model="tts-1", voice="alloy", input="Dinner is at seven.",
                                              response_format="wav")).content
                for _ in range(2)
            ]
        return said[0], said[1]

    first, second = await twice(make_config())
    assert first != second  # piper's sampling noise: natural, never twice the same
    first, second = await twice(make_config(voice={"varied": False}))
    assert first == second and parse_wav(first)[3] > 0.8


async def test_bad_speech_requests_are_named(make_config):
    async with running_app(make_config(), provider=ScriptedProvider(), http=True) as app, aiohttp.ClientSession() as http:
        async with http.post(base(app) + "/v1/audio/speech", json={"input": "hi", "response_format": "mp3"}) as resp:
            assert resp.status == 400 and "response_format" in (await resp.json())["error"]["message"]
        async with http.post(base(app) + "/v1/audio/speech", json={"input": ""}) as resp:
            assert resp.status == 400 and "input" in (await resp.json())["error"]["message"]
        form = aiohttp.FormData()
        form.add_field("file", b"not a wav at all", filename="x.wav", content_type="audio/wav")
        async with http.post(base(app) + "/v1/audio/transcriptions", data=form) as resp:
            body = await resp.json()
            assert resp.status == 400 and "WAV" in body["error"]["message"]
        async with http.post(base(app) + "/v1/audio/transcriptions", data=b"") as resp:
            assert resp.status == 400


async def test_api_voice_answers_a_wav_with_a_spoken_wav(make_config):
    provider = ScriptedProvider(["The kitchen light is on."])
    async with running_app(make_config(), provider=provider, http=True) as app, aiohttp.ClientSession() as http:
        with anyio.fail_after(180):
            async with http.post(
                base(app) + "/api/voice?language=en&device_id=hall-panel", data=piper_wav(),
                headers={"Content-Type": "audio/wav"},
            ) as resp:
                assert resp.status == 200, await resp.text()
                assert resp.content_type == "audio/wav"
                transcript = unquote(resp.headers["X-Transcript"])
                answer = unquote(resp.headers["X-Answer"])
                audio = await resp.read()
        devices = {d.device_id: d.channel for d in await app.devices.list()}
    assert word_error_rate(COMMAND, transcript) == 0.0
    assert answer == "The kitchen light is on."
    assert provider.requests[-1].messages[-1].content.endswith(transcript)
    rate, _, _, seconds = parse_wav(audio)
    assert rate == 22050 and seconds > 0.8
    assert devices.get("voice:hall-panel") == "voice"


async def test_an_engine_that_cannot_load_answers_503_naming_it(make_config):
    config = make_config(voice={"stt_en": "faster_whisper:/nowhere/model"})
    async with running_app(config, provider=ScriptedProvider(), http=True) as app, aiohttp.ClientSession() as http:
        form = aiohttp.FormData()
        form.add_field("file", piper_wav(), filename="c.wav", content_type="audio/wav")
        async with http.post(base(app) + "/v1/audio/transcriptions", data=form) as resp:
            body = await resp.json()
        assert resp.status == 503 and body["error"]["code"] == "voice_unavailable"
        assert "/nowhere/model" in body["error"]["message"]
        async with http.get(base(app) + "/healthz") as resp:
            assert resp.status == 200  # the rest of the daemon is untouched
