"""WAV in and out, and PCM conversion to what the speech models take (16 kHz mono float).

Only the standard library and numpy (a core dependency): this loads without the extra.
"""

from __future__ import annotations

import io
import struct
import wave

import numpy as np

from homeagent.errors import RequestError
from homeagent.voice.base import Audio


def read_wav(data: bytes) -> Audio:
    """A WAV file's PCM; a clear `RequestError` for anything that is not 8/16/32-bit PCM WAV."""
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            width, rate, channels = wav.getsampwidth(), wav.getframerate(), wav.getnchannels()
            pcm = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError, struct.error, ValueError, OverflowError, MemoryError) as err:
        raise RequestError(f"audio: not a PCM WAV file ({err}); send 16-bit PCM WAV", param="file") from err
    if width not in (1, 2, 4):
        raise RequestError(f"audio: {8 * width}-bit samples are not supported; send 16-bit PCM WAV", param="file")
    if not pcm:
        raise RequestError("audio: the WAV file holds no samples", param="file")
    return Audio(pcm=pcm, rate=rate, width=width, channels=channels)


def wav_bytes(audio: Audio) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(audio.channels)
        wav.setsampwidth(audio.width)
        wav.setframerate(audio.rate)
        wav.writeframes(audio.pcm)
    return buffer.getvalue()


def join(chunks: list[Audio]) -> Audio:
    if not chunks:
        return Audio(pcm=b"", rate=16000)
    first = chunks[0]
    return Audio(pcm=b"".join(c.pcm for c in chunks), rate=first.rate, width=first.width, channels=first.channels)


def to_float(audio: Audio, rate: int = 16000) -> np.ndarray:
    """Mono float32 in [-1, 1] at `rate`, by linear interpolation (enough for speech)."""
    dtype = {1: np.uint8, 2: np.int16, 4: np.int32}[audio.width]
    samples = np.frombuffer(audio.pcm[: len(audio.pcm) - len(audio.pcm) % (audio.width * audio.channels)], dtype=dtype)
    x = samples.astype(np.float32)
    if audio.width == 1:
        x = (x - 128.0) / 128.0
    else:
        x /= float(2 ** (8 * audio.width - 1))
    if audio.channels > 1:
        x = x.reshape(-1, audio.channels).mean(axis=1)
    if audio.rate != rate and len(x):
        positions = np.arange(0, len(x), audio.rate / rate)
        x = np.interp(positions, np.arange(len(x)), x).astype(np.float32)
    return x


def to_pcm16(audio: Audio, rate: int) -> Audio:
    """The same sound as 16-bit mono PCM at `rate` (what a satellite plays)."""
    if audio.width == 2 and audio.channels == 1 and audio.rate == rate:
        return audio
    x = to_float(audio, rate)
    pcm = (np.clip(x, -1.0, 1.0) * 32767).astype("<i2").tobytes()
    return Audio(pcm=pcm, rate=rate)
