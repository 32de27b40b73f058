"""Traditional characters and regional words, read as the layer's training text writes them;
what is filled from them stored as the household typed it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from homeagent.intent import IntentLayer, Route
from homeagent.intent.mainland import as_typed, read_as_mainland

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("typed", "read"), [
    ("麻煩你幫我添一項待辦事項，下週一之前", "麻烦你帮我添一项待办事项，下周一之前"),
    ("那個去銀行補卡的事情我今天上午已經辦好了", "那个去银行补卡的事情我今天上午已经办好了"),
    ("聽日返工之前去银行补张卡", "明天上班之前去银行补张卡"),
    ("同阿强睇楼嗰个待办删咗佢，唔使去喇", "同阿强看楼那个待办删了他，不用去喇"),
    ("琴日下昼茶食咗两件蛋挞", "昨天下午茶吃了两件蛋挞"),
    ("加两盒维他奶落购物清单", "加两盒维他奶到购物清单"),
    ("阿嫲生日系农历八月十五，唔系九月", "阿嫲生日是农历八月十五，不是九月"),
    ("阿拉明朝去阿拉伯餐厅，好伐？", "我们明天去阿拉伯餐厅，好吗？"),
    ("弗对，改到四点，弗要忘记", "不对，改到四点，不要忘记"), ("弗兰克的生日", "弗兰克的生日"),
    ("俺想记个账", "我想记个账"),
    # (simplified text and Mandarin words are read as typed: 关系, 联系人, 阿拉伯, 采伐)
    ("把联系人里的关系改一下，明天去采伐场", "把联系人里的关系改一下，明天去采伐场"),
])
def test_a_line_is_read_in_simplified_characters_and_mandarin_words(typed: str, read: str) -> None:
    assert read_as_mainland(typed) == read
    assert len(read_as_mainland(typed)) == len(typed)


def test_the_characters_of_gb2312_are_read_as_typed() -> None:
    # Every character a simplified line uses (the readings table lists GB2312's) stays as it
    # is, but for the traditional forms GB2312 also holds (後, 週, 裏) and the regional words
    # of one character (睇 看, 俺 我, 侬 你…).
    lines = (ROOT / "homeagent/intent/pinyin.txt").read_text(encoding="utf-8").splitlines()
    chars = "".join(line.split(" ", 1)[1] for line in lines if not line.startswith("#"))
    changed = {c for c, r in zip(chars, read_as_mainland(chars), strict=True) if c != r}
    assert len(chars) > 6000 and changed <= set("後週裏睇俺咩唔俾恁畀侬"), changed


def test_a_value_is_stored_as_typed() -> None:
    typed = "那個去銀行補卡的事情我已經辦好了"
    read = read_as_mainland(typed)
    assert as_typed("去银行补卡", typed, read) == "去銀行補卡"  # a stretch of the line
    assert as_typed("银行补卡那件事", typed, read) == "銀行補卡那件事"  # reworded: its characters put back
    assert as_typed(["去银行", "补卡"], typed, read) == ["去銀行", "補卡"]
    assert as_typed(3, typed, read) == 3
    assert as_typed("同阿强睇楼", "同阿强睇楼", "同阿强睇楼") == "同阿强睇楼"
    cantonese = "同阿强睇楼嗰个待办删咗佢"
    assert as_typed("同阿强看楼", cantonese, read_as_mainland(cantonese)) == "同阿强睇楼"


def route(layer: IntentLayer, text: str) -> Route:
    return asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Traditional characters: the action and its values, the name as typed, the day as read.
    ("麻煩你幫我添一項待辦事項，下週一之前要把社區的醫保材料交上去，謝謝你了。", "create_task",
     {"content": "把社區的醫保材料交上去", "due": "下周一"}),
    ("請幫我記一筆支出，買菜花了八十五塊", "record_transaction", {"type": "expense", "note": "買菜"}),
    ("请帮我记一笔支出，买菜花了八十五块", "record_transaction", {"type": "expense", "note": "买菜"}),
    # Cantonese: 聽日 is tomorrow, 嗰个 is "that one", 删咗佢 deletes it.
    ("听日朝早十点同阿嫲去陶陶居饮茶，帮我入落日程", "create_event", {"start": "明天早上十点"}),
    ("同阿强睇楼嗰个待办删咗佢，唔使去喇", "delete_task", {"content": "同阿强睇楼"}),
])
def test_a_traditional_or_cantonese_line_runs_its_action(layer: IntentLayer, text: str, action: str,
                                                          expected: dict) -> None:
    got = route(layer, text)
    assert got.path == "intent" and [c.name for c in got.calls] == [action], got
    args = json.loads(got.calls[0].arguments)
    assert {k: args.get(k) for k in expected} == expected, args
