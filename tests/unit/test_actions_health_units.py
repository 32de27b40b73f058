"""How a drink of water said in words becomes the millilitres record_water stores."""

from __future__ import annotations

import pytest

from homeagent.actions.health import water_ml


@pytest.mark.parametrize(("said", "ml"), [
    ("一杯", 250), ("两杯", 500), ("500ml", 500), ("1.5升", 1500), ("半瓶", 250),
    ("2 cups", 500), ("two glasses", 500), ("a glass", 250), ("three cups of water", 750),
    ("a litre", 1000), ("an 800 ml bottle", 800), (2, 500), (300, 300),
    ("half a glass", 125), ("half a cup", 125), ("a couple of glasses", 500),
])
def test_a_drink_said_in_words_is_its_millilitres(said, ml) -> None:
    assert water_ml(said, 250) == ml


@pytest.mark.parametrize("said", ["two spoons", "一碗", "a bucket"])
def test_a_unit_not_known_is_no_guess(said) -> None:
    assert water_ml(said, 250) is None
