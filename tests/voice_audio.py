"""Speech for the voice tests, made by the real engines (piper, espeak-ng), and the word
error rate the transcription tests print."""

from __future__ import annotations

import functools
import re

from homeagent.voice.audio import join, wav_bytes
from homeagent.voice.base import Audio
from homeagent.voice.piper import PiperTTS

COMMAND = "turn on the kitchen light"


@functools.cache
def piper_audio(text: str) -> Audio:
    # Without piper's sampling noise: the same samples every run, so a transcription test
    # cannot pass or fail by the luck of one rendering.
    return join(list(PiperTTS("en_US-joe-medium", language="en", varied=False).synthesize(text)))


@functools.cache
def daemon_audio(text: str) -> Audio:
    """As the daemon speaks it (piper with its sampling noise, as shipped)."""
    return join(list(PiperTTS("en_US-joe-medium", language="en").synthesize(text)))


def piper_wav(text: str = COMMAND) -> bytes:
    return wav_bytes(piper_audio(text))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Levenshtein distance over words, divided by the reference's length."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1] / max(len(ref), 1)
