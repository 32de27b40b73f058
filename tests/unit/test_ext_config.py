"""The extension sections of the config: clear errors naming the key."""

from __future__ import annotations

import pytest

from homeagent.errors import ConfigError


@pytest.mark.parametrize(("sections", "message"), [
    ({"plugins": {"servers": {"my__plugin": {"command": "x"}}}}, "plugins.servers.my__plugin: a plugin name"),
    ({"plugins": {"servers": {"Weather": {"command": "x"}}}}, "plugins.servers.Weather: a plugin name"),
    ({"plugins": {"servers": {"weather": {}}}}, "plugins.servers.weather.command: required"),
    ({"plugins": {"servers": {"weather": {"command": "x", "env": ["NOT-A-NAME"]}}}}, "is not an environment variable name"),
    ({"plugins": {"servers": {"weather": {"command": "x", "permissions": ["root"]}}}}, "'root' is not one of"),
    ({"plugins": {"servers": {"weather": {"command": "x", "grant": "always"}}}}, "plugins.servers.weather.grant"),
    ({"plugins": {"servers": {"weather": {"command": "x", "shell": True}}}}, "plugins.servers.weather.shell: unknown key"),
    ({"skills": {"min_score": 2}}, "skills.min_score"),
    ({"skills": {"enabled": "meal_plan"}}, "skills.enabled: expected a list of strings"),
    ({"adapters": {"enabled": ["Smart Plug"]}}, "adapters.enabled: 'Smart Plug'"),
    ({"adapters": {"memory_limit_mb": 0}}, "adapters.memory_limit_mb"),
    ({"backup": {"keep": 0}}, "backup.keep"),
    ({"backup": {"interval": "often"}}, "backup.interval"),
])
def test_bad_extension_config_names_the_key(make_config, sections, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        make_config(**sections)


def test_extension_defaults(make_config):
    config = make_config()
    assert config.skills.enabled == ("meal_plan", "budget_review")
    assert config.backup.interval == 86400 and config.backup.keep == 7
    assert config.plugins.servers == {} and config.adapters.enabled == ()
    plugin = make_config(plugins={"servers": {"weather": {"command": "python3", "env": ["WEATHER_KEY"]}}})
    assert plugin.plugins.servers["weather"].grant == "confirm"
    assert plugin.plugins.servers["weather"].env == ("WEATHER_KEY",)
