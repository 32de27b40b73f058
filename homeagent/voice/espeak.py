"""Text to speech with espeak-ng (Debian's package): Mandarin where no piper voice is had.

Each sentence is one `espeak-ng --stdout` call (a WAV on stdout), so the first sentence
is ready before the whole answer is spoken.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator

from homeagent.voice.audio import read_wav
from homeagent.voice.base import Audio, EngineInfo, VoiceUnavailable

# After Chinese end marks at once; after Latin ones only before a space ("3.5" stays whole).
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+|\n+")
_RATE = 22050


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


class EspeakTTS:
    def __init__(self, voice: str, *, language: str, binary: str = "espeak-ng") -> None:
        self._name = voice
        self._language = language
        self._binary = binary

    @property
    def info(self) -> EngineInfo:
        return EngineInfo(
            name=f"espeak-ng-{self._name}", languages=(self._language,),
            description=f"espeak-ng voice {self._name}", attribution="eSpeak NG",
            url="https://github.com/espeak-ng/espeak-ng",
        )

    @property
    def rate(self) -> int:
        return _RATE

    def load(self) -> None:
        if shutil.which(self._binary) is None:
            raise VoiceUnavailable(
                f"{self._binary} is not installed: apt-get install espeak-ng (or make voice-deps)"
            )

    def synthesize(self, text: str) -> Iterator[Audio]:
        self.load()
        for sentence in sentences(text):
            # The text goes in on stdin, never argv: a sentence starting with '-' is no option.
            done = subprocess.run(
                [self._binary, "-v", self._name, "--stdout", "--stdin", "-b", "1"],
                input=sentence.encode("utf-8"), capture_output=True, timeout=30, check=False,
            )
            if done.returncode != 0:
                raise VoiceUnavailable(f"espeak-ng failed: {done.stderr.decode(errors='replace')[:200]}")
            yield read_wav(done.stdout)
