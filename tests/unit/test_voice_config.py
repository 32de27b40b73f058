"""The voice and io.wyoming config sections: defaults, and clear errors for bad values."""

from __future__ import annotations

import pytest

from homeagent.errors import ConfigError
from homeagent.io.wyoming import parse_satellites


def test_defaults_keep_wyoming_off_and_name_the_packaged_models(make_config):
    cfg = make_config()
    assert cfg.io.wyoming.enabled is False and cfg.io.wyoming.port == 10700
    assert cfg.voice.stt_en == "faster_whisper:tiny.en" and cfg.voice.tts_zh == "espeak_ng:cmn"
    assert cfg.voice.varied is True


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        ({"voice": {"stt_en": "whisper.cpp:tiny"}}, "voice.stt_en: expected 'engine:model'"),
        ({"voice": {"tts_zh": "piper"}}, "voice.tts_zh: expected 'engine:model'"),
        ({"voice": {"language": "fr"}}, "voice.language"),
        ({"voice": {"threads": 0}}, "voice.threads"),
        ({"voice": {"varied": "sometimes"}}, "voice.varied"),
        ({"io": {"wyoming": {"port": 70000}}}, "io.wyoming.port"),
        ({"io": {"wyoming": {"satellites": ["kitchen"]}}}, "io.wyoming.satellites[0]: expected 'name=tcp://host:port'"),
        ({"io": {"wyoming": {"colour": "blue"}}}, "io.wyoming.colour: unknown key"),
    ],
)
def test_bad_voice_config_is_named(make_config, sections, message):
    with pytest.raises(ConfigError) as err:
        make_config(**sections)
    assert message in str(err.value)


def test_satellites_parse_by_name(make_config):
    cfg = make_config(io={"wyoming": {"satellites": ["kitchen=tcp://127.0.0.1:10700", "hall=tcp://hall.local:10701"]}})
    sats = parse_satellites(cfg.io.wyoming.satellites)
    assert (sats["kitchen"].host, sats["kitchen"].port) == ("127.0.0.1", 10700)
    assert (sats["hall"].host, sats["hall"].port) == ("hall.local", 10701)
