"""The voice service: which engine speaks and listens for which language, off the loop.

    voice = VoiceService(settings, cache_dir)
    text = await voice.transcribe(audio, language="en")
    async for chunk in voice.speak("Done.", language=None):   # language from the text
        ...

Engines are named in config as `engine:model` per language (`voice.stt_en`,
`voice.tts_zh`, …) and loaded on first use (or at start with `voice.preload`). Every
call runs in a worker thread, one at a time per engine. When the `voice` extra is not
installed the service still builds; `missing()` says what is absent and every call
raises `VoiceUnavailable` naming the extra, which the routes answer with 503.
"""

from __future__ import annotations

import importlib.util
import unicodedata
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio

from homeagent.errors import RequestError
from homeagent.log import get_logger
from homeagent.text import has_han
from homeagent.voice.base import (
    EXTRA_HINT,
    Audio,
    SpeechToText,
    TextToSpeech,
    Transcription,
    VoiceUnavailable,
)
from homeagent.voice.espeak import EspeakTTS
from homeagent.voice.piper import PiperTTS
from homeagent.voice.whisper import FasterWhisperSTT

log = get_logger("homeagent.voice")

LANGUAGES = ("en", "zh")
STT_ENGINES = ("faster_whisper",)
TTS_ENGINES = ("piper", "espeak_ng")


@dataclass(frozen=True)
class VoiceSettings:
    language: str = "en"
    stt: tuple[tuple[str, str], ...] = (("en", "faster_whisper:tiny.en"), ("zh", "faster_whisper:base"))
    tts: tuple[tuple[str, str], ...] = (("en", "piper:en_US-joe-medium"), ("zh", "espeak_ng:cmn"))
    threads: int = 2
    beam_size: int = 1
    compute_type: str = "int8"
    max_audio_seconds: float = 60.0
    varied: bool = True


def speakable(text: str) -> str:
    """The text without control characters and lone surrogates, which engines choke on."""
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs") else " " for ch in text
    ).strip()


def split_engine(spec: str) -> tuple[str, str]:
    engine, _, model = spec.partition(":")
    return engine.strip(), model.strip()


def extra_missing() -> str | None:
    """Why speech cannot be served here, or None when the extra is installed."""
    absent = [m for m in ("faster_whisper", "piper") if importlib.util.find_spec(m) is None]
    if absent:
        return f"speech needs {', '.join(absent)}: {EXTRA_HINT}"
    return None


class VoiceService:
    def __init__(self, settings: VoiceSettings, cache_dir: Path) -> None:
        self.settings = settings
        self._stt: dict[str, SpeechToText] = {}
        self._tts: dict[str, TextToSpeech] = {}
        self._locks: dict[int, anyio.Lock] = {}
        for language, spec in settings.stt:
            engine, model = split_engine(spec)
            if engine == "faster_whisper":
                self._stt[language] = FasterWhisperSTT(
                    model, language=language, cache=cache_dir, threads=settings.threads,
                    beam_size=settings.beam_size, compute_type=settings.compute_type,
                )
        for language, spec in settings.tts:
            engine, voice = split_engine(spec)
            if engine == "piper":
                self._tts[language] = PiperTTS(voice, language=language, varied=settings.varied)
            elif engine == "espeak_ng":
                self._tts[language] = EspeakTTS(voice, language=language)

    def missing(self) -> str | None:
        return extra_missing()

    def stt_engines(self) -> dict[str, SpeechToText]:
        return dict(self._stt)

    def tts_engines(self) -> dict[str, TextToSpeech]:
        return dict(self._tts)

    def _lock(self, engine: object) -> anyio.Lock:
        return self._locks.setdefault(id(engine), anyio.Lock())

    def language_of(self, language: str | None, text: str = "") -> str:
        """A request's language: as given ('zh-CN' → 'zh'), else from the text, else the default."""
        if language:
            short = language.strip().lower().replace("_", "-").split("-")[0]
            if short in LANGUAGES:
                return short
            raise RequestError(f"language: {language!r} is not served; use one of {', '.join(LANGUAGES)}", param="language")
        if text:
            return "zh" if has_han(text) else "en"
        return self.settings.language

    def _check(self) -> None:
        reason = self.missing()
        if reason:
            raise VoiceUnavailable(reason)

    async def preload(self) -> None:
        """Load every engine now (the first request then pays nothing)."""
        self._check()
        engines: list[SpeechToText | TextToSpeech] = [*self._stt.values(), *self._tts.values()]
        for engine in engines:
            async with self._lock(engine):
                await anyio.to_thread.run_sync(engine.load)

    async def transcribe(self, audio: Audio, language: str | None = None) -> Transcription:
        self._check()
        lang = self.language_of(language)
        engine = self._stt.get(lang)
        if engine is None:
            raise VoiceUnavailable(f"no speech-to-text engine for {lang!r}: set voice.stt_{lang}")
        if audio.seconds > self.settings.max_audio_seconds:
            raise VoiceUnavailable(
                f"audio is {audio.seconds:.0f} s long; at most {self.settings.max_audio_seconds:.0f} s "
                "(voice.max_audio_seconds)"
            )
        async with self._lock(engine):
            try:
                result = await anyio.to_thread.run_sync(engine.transcribe, audio, lang)
            except VoiceUnavailable:
                raise
            except Exception as err:  # noqa: BLE001 - an engine's failure is a 503, not a crash
                log.warning("voice.stt.failed", language=lang, error=repr(err))
                raise VoiceUnavailable(f"speech to text failed: {type(err).__name__}") from err
        log.info("voice.stt.finished", language=lang, model=result.model, seconds=round(audio.seconds, 2))
        return result

    def tts_for(self, language: str | None, text: str) -> TextToSpeech:
        self._check()
        lang = self.language_of(language, text)
        engine = self._tts.get(lang)
        if engine is None:
            raise VoiceUnavailable(f"no text-to-speech voice for {lang!r}: set voice.tts_{lang}")
        return engine

    async def speak(self, text: str, language: str | None = None) -> AsyncIterator[Audio]:
        """The spoken text, a chunk a sentence, each synthesized in a worker thread."""
        text = speakable(text)
        engine = self.tts_for(language, text)
        if not text:
            return
        async with self._lock(engine):
            try:
                chunks: Iterator[Audio] = await anyio.to_thread.run_sync(lambda: iter(engine.synthesize(text)))
                while True:
                    chunk = await anyio.to_thread.run_sync(next, chunks, None)
                    if chunk is None:
                        return
                    yield chunk
            except VoiceUnavailable:
                raise
            except Exception as err:  # noqa: BLE001 - an engine's failure is a 503, not a crash
                log.warning("voice.tts.failed", error=repr(err))
                raise VoiceUnavailable(f"text to speech failed: {type(err).__name__}") from err
