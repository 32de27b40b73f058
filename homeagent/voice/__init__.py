"""Speech in and out (the optional `voice` extra): STT and TTS engines behind protocols.

`base` draws the boundary (`SpeechToText`, `TextToSpeech`, `Audio`); `whisper`, `piper`
and `espeak` are the engines; `service.VoiceService` picks one by config and language and
runs it off the event loop. Nothing here imports a speech library at import time, so
the daemon starts without the extra and says what is missing when speech is asked for.
"""

from homeagent.voice.base import (
    Audio,
    EngineInfo,
    SpeechToText,
    TextToSpeech,
    Transcription,
    VoiceUnavailable,
)
from homeagent.voice.service import VoiceService, VoiceSettings, extra_missing

__all__ = [
    "Audio", "EngineInfo", "SpeechToText", "TextToSpeech", "Transcription", "VoiceService",
    "VoiceSettings", "VoiceUnavailable", "extra_missing",
]
