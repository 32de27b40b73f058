"""What of the household a member sees: the one visibility rule and "tell everyone"."""

from __future__ import annotations

import pytest

from homeagent.members import for_everyone, visible_to


@pytest.mark.parametrize("text", [
    "告诉大家：周六晚上停水",
    "大家注意，明天物业来修电梯",
    "通知一下全家，今晚吃火锅",
    "跟大家说一声我晚点回来",
    "让大家都知道猫已经喂过了",
    "Tell everyone the Wi-Fi password changed",
    "please let everyone know dinner is at 7",
    "This one is for everyone: the plumber comes Monday",
    "remind the whole family to take umbrellas",
    "Everyone: the car is in the shop",
])
def test_saying_it_is_for_everyone(text):
    assert for_everyone(text)


@pytest.mark.parametrize("text", [
    "我的血糖 7.8",
    "别告诉大家我买了吉他",
    "不要告诉大家这件事",
    "don't tell everyone about the party",
    "do not let everyone know my password",
    "everyone else is asleep so I'm whispering",
    "大家好像都睡了",
    "我想和大家一起去爬山",
    "it was a present for everybody's favourite uncle",
    "",
])
def test_not_for_everyone(text):
    assert not for_everyone(text)


def test_a_member_sees_their_own_and_the_shared():
    assert visible_to("", "alice") and visible_to("alice", "alice")
    assert not visible_to("bob", "alice")
    # The speaker with no member sees only what is shared.
    assert visible_to("", "") and not visible_to("alice", "")
