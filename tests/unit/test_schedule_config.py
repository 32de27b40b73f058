"""The schedule section of the config: defaults, and a clear error for each bad value."""

from __future__ import annotations

import pytest

from homeagent.config import load_config
from homeagent.errors import ConfigError
from tests.conftest import write_config


def test_defaults_and_the_documented_file_agree(tmp_path):
    from tests.conftest import REPO

    shipped = load_config(REPO / "config" / "homeagent.yaml", env={}).schedule
    default = load_config(write_config(tmp_path), env={}).schedule
    assert shipped == default
    assert default.enabled and default.check_interval == 30 and default.quiet_modes == ("sleep",)
    assert default.catch_up == 12 * 3600 and default.day_time == "09:00" and default.snooze_minutes == 10


@pytest.mark.parametrize(("values", "message"), [
    ({"check_interval": "0s"}, "schedule.check_interval"),
    ({"check_interval": "2h"}, "schedule.check_interval"),
    ({"day_time": "9am"}, "schedule.day_time: expected a time of day HH:MM"),
    ({"day_time": "24:00"}, "schedule.day_time"),
    ({"quiet_modes": ["nap"]}, "schedule.quiet_modes[0]: 'nap' is not a household mode"),
    ({"snooze_minutes": 0}, "schedule.snooze_minutes"),
    ({"keepalive": "0s"}, "schedule.keepalive"),
    ({"catch_up": "-1h"}, "schedule.catch_up"),
    ({"enable": True}, "schedule.enable: unknown key"),
])
def test_bad_values_are_named(tmp_path, values, message):
    with pytest.raises(ConfigError) as err:
        load_config(write_config(tmp_path, schedule=values), env={})
    assert message in str(err.value)
