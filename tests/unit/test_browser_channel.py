"""The browser channel's presence: who may answer whose confirmation, and for how long."""

from __future__ import annotations

from homeagent.io.browser import BrowserChannel
from homeagent.tools.permissions import PermissionBroker


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_members_page_answers_their_requests_and_the_households():
    clock = Clock()
    browser = BrowserChannel(window=20, now=clock)
    assert not browser.present("alice") and not browser.present("")
    browser.seen("alice")
    assert browser.present("alice") and browser.present("")
    assert not browser.present("bob")  # alice's page never answers for bob
    clock.now += 21
    assert not browser.present("alice")  # the page was closed: no one is there


def test_the_household_page_answers_everyones():
    browser = BrowserChannel(window=20, now=Clock())
    browser.seen(None)
    assert browser.present("alice") and browser.present("bob") and browser.present("")


def test_the_broker_asks_elsewhere_only_while_a_page_is_open():
    clock = Clock()
    browser = BrowserChannel(window=20, now=clock)
    broker = PermissionBroker()
    remove = broker.add_answerer(browser.present)
    assert not broker.answerable_elsewhere("alice")
    browser.seen("alice")
    assert broker.answerable_elsewhere("alice") and not broker.answerable_elsewhere("bob")
    remove()
    assert not broker.answerable_elsewhere("alice")
