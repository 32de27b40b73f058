"""The text side of speech: what engines are given, how a request's language is chosen,
how WAV is read and written."""

from __future__ import annotations

import pytest

from homeagent.errors import RequestError
from homeagent.voice import Audio, VoiceService, VoiceSettings
from homeagent.voice.audio import read_wav, to_float, to_pcm16, wav_bytes
from homeagent.voice.espeak import sentences
from homeagent.voice.service import speakable, split_engine
from tests.voice_audio import word_error_rate


def test_speakable_drops_control_characters_and_lone_surrogates():
    assert speakable("\x00hello\x07 world\ud800") == "hello  world"
    assert speakable("第一行\n第二行") == "第一行\n第二行"
    assert speakable("\x00\x01") == ""


def test_sentences_split_chinese_and_english():
    assert sentences("灯开了。还要别的吗？ OK. Done!") == ["灯开了。", "还要别的吗？", "OK.", "Done!"]
    assert sentences("It is 3.5 degrees.\nBye") == ["It is 3.5 degrees.", "Bye"]


def test_language_of_a_request(tmp_path):
    voice = VoiceService(VoiceSettings(language="en"), tmp_path)
    assert voice.language_of("zh-CN") == "zh" and voice.language_of("en_US") == "en"
    assert voice.language_of(None, "打开厨房的灯") == "zh" and voice.language_of(None, "hi") == "en"
    assert voice.language_of(None) == "en"
    with pytest.raises(RequestError, match="language: 'fr' is not served"):
        voice.language_of("fr")


def test_engines_by_config(tmp_path):
    voice = VoiceService(VoiceSettings(stt=(("en", "faster_whisper:tiny.en"),), tts=(("zh", "espeak_ng:cmn"),)), tmp_path)
    assert list(voice.stt_engines()) == ["en"] and list(voice.tts_engines()) == ["zh"]
    assert split_engine("piper:/voices/a.onnx") == ("piper", "/voices/a.onnx")


def test_wav_round_trip_and_conversion():
    audio = Audio(pcm=b"\x00\x10" * 8000, rate=8000)
    back = read_wav(wav_bytes(audio))
    assert back == audio and back.seconds == 1.0
    assert len(to_float(audio, 16000)) == 16000
    pcm = to_pcm16(Audio(pcm=b"\x80" * 100, rate=16000, width=1), 16000)
    assert pcm.width == 2 and len(pcm.pcm) == 200


def test_bad_wav_is_a_request_error_naming_the_format():
    with pytest.raises(RequestError, match="PCM WAV"):
        read_wav(b"RIFF....WAVEfmt garbage")


def test_word_error_rate():
    assert word_error_rate("turn on the kitchen light", "Turn on the kitchen light.") == 0.0
    assert word_error_rate("turn on the kitchen light", "on the kitchen light") == 0.2
    assert word_error_rate("a b", "c d e") == 1.5


def test_the_speech_schema_says_what_the_server_rejects() -> None:
    """The documented body of POST /v1/audio/speech admits no input the server refuses:
    whitespace alone ("\\r") is schema-valid by minLength 1 but there is nothing to speak
    (the API fuzzer found it)."""
    import jsonschema

    from homeagent.api.voice import OPENAPI_PATHS

    schema = OPENAPI_PATHS["/v1/audio/speech"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    for blank in ("\r", " ", "\n\t "):
        assert not jsonschema.Draft202012Validator(schema).is_valid({"input": blank}), repr(blank)
    for text in ("Hi", " 你好 ", "\rok"):
        assert jsonschema.Draft202012Validator(schema).is_valid({"input": text}), repr(text)
