"""The speech boundary: what an STT and a TTS engine promise, and the audio they trade.

    stt.transcribe(Audio, language) -> Transcription      (blocking; callers use a thread)
    tts.synthesize(text) -> Iterator[Audio]               (one chunk a sentence)

`Audio` is raw PCM (signed little-endian, `width` bytes a sample) with its format, as
the Wyoming protocol and WAV files carry it. Engines are plain objects built by
`homeagent.voice.service`; nothing here imports a speech library, so this module loads
without the `voice` extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from homeagent.errors import HomeAgentError

EXTRA_HINT = "install the speech extra: pip install 'homeagent[voice]' (or make voice-deps)"


class VoiceUnavailable(HomeAgentError):
    """Speech is not served: the extra is missing or no engine covers the language."""


@dataclass(frozen=True)
class Audio:
    pcm: bytes
    rate: int
    width: int = 2
    channels: int = 1

    @property
    def seconds(self) -> float:
        frame = self.width * self.channels
        return len(self.pcm) / frame / self.rate if self.rate and frame else 0.0


@dataclass(frozen=True)
class Transcription:
    text: str
    language: str
    model: str
    audio_seconds: float


@dataclass(frozen=True)
class EngineInfo:
    """What a model or voice is, for the Wyoming `info` and the HTTP model lists."""

    name: str
    languages: tuple[str, ...]
    description: str
    attribution: str
    url: str
    version: str = ""


class SpeechToText(Protocol):
    @property
    def info(self) -> EngineInfo: ...

    def load(self) -> None:
        """Load the model now; raises `VoiceUnavailable` when it cannot be had."""

    def transcribe(self, audio: Audio, language: str) -> Transcription: ...


class TextToSpeech(Protocol):
    @property
    def info(self) -> EngineInfo: ...

    @property
    def rate(self) -> int: ...

    def load(self) -> None:
        """Load the voice now; raises `VoiceUnavailable` when it cannot be had."""

    def synthesize(self, text: str) -> Iterator[Audio]: ...
