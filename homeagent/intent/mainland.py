"""A line typed in traditional characters, or in a region's own words, read as the layer's
training text writes it: 麻煩幫我記一下 → 麻烦帮我记一下, 聽日返工之前 → 明天上班之前, 同阿强睇楼嗰个
→ 同阿强看楼那个, 阿拉明朝 → 我们明天, 俺想 → 我想.

Every rewrite keeps the line's length, character for character, so what the layer fills from
the line it read is stored as the household typed it (`as_typed`): a task typed 去銀行補卡 is
stored 去銀行補卡, and a 睇楼 stays 睇楼.

- Characters: 2,417 traditional characters onto simplified ones (homeagent/intent/hant.txt,
  written by bench/make_hant.py). Only a character outside GB2312 is read anew, so a line
  typed in simplified characters is read as typed (apart from 後, 週 and 裏, which it never
  uses).
- Words: Cantonese (聽日, 琴日, 咗, 嘅, 喺, 佢, 唔, 嗰, 睇, 屋企, 加落, 生日系…; 冇 is in the
  character table), Shanghainese (阿拉, 侬,
  今朝, 辰光, a closing 伐) and northern (俺, 恁) words with a Mandarin word of the same
  length. A word that is also part of a common Mandarin word is taken only where it stands
  alone (阿拉伯 stays).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

_PAIRS = Path(__file__).with_name("hant.txt")

# (the word, said in Mandarin with as many characters); read after the characters, so a
# word is written here in simplified characters.
_WORDS: tuple[tuple[str, str], ...] = (
    # days and times of day
    (r"听日", "明天"), (r"[琴寻]日", "昨天"), (r"今日", "今天"), (r"听晚", "明晚"), (r"[琴寻]晚", "昨晚"),
    (r"朝早", "早上"), (r"下昼", "下午"), (r"晏昼", "中午"), (r"今朝", "今天"), (r"明朝", "明天"),
    (r"辰光", "时候"),
    # words (before the characters they hold: 唔该 is thanks, not 不该)
    (r"乜嘢", "什么"), (r"边个", "哪个"), (r"几多", "多少"), (r"仲有", "还有"), (r"唔该", "谢谢"),
    (r"唔使", "不用"), (r"唔好", "不要"), (r"搞掂", "搞定"), (r"得闲", "有空"), (r"屋企", "家里"),
    (r"返工", "上班"), (r"放工", "下班"), (r"返学", "上学"), (r"食咗", "吃了"), (r"食饭", "吃饭"),
    (r"饮咗", "喝了"), (r"记低", "记下"), (r"帮手", "帮忙"), (r"落(?=购物|清单|日程|日历|行程|心愿|书单|片单|备忘|笔记|通讯录|联系人)", "到"),
    (r"阿拉(?![伯斯丁])", "我们"), (r"唔系", "不是"), (r"系咪", "是不"),
    (r"(?<=[日址话码接标料字])系(?![统列数])", "是"),  # 生日系…, 地址系…: Cantonese "is"
    # particles and pronouns
    (r"嘅", "的"), (r"咗", "了"), (r"喺", "在"), (r"佢", "他"), (r"唔", "不"),
    (r"嗰", "那"), (r"咩", "啥"), (r"睇", "看"), (r"[俾畀]", "给"), (r"啲", "些"), (r"嚟", "来"),
    (r"揾", "找"), (r"攞", "拿"), (r"瞓", "睡"), (r"啱", "对"), (r"哋", "们"), (r"侬", "你"),
    (r"(?<=[\d零一二两三四五六七八九十百千万])蚊", "块"),  # 十三蚊半: Cantonese money
    (r"俺", "我"), (r"恁", "你"), (r"伐(?=\s*(?:[？?。！!，,]|$))", "吗"),
    (r"弗(?=对|要|晓得|是|好|来事|用)", "不"),  # 弗对, 弗要: Wu "not" (弗兰克 stays a name)
)
_WORDS_RE = re.compile("|".join(f"({w})" for w, _ in _WORDS))


@cache
def _pairs() -> dict[str, str]:
    lines = _PAIRS.read_text(encoding="utf-8").splitlines()
    return {line[0]: line[1] for line in lines if len(line) == 2 and not line.startswith("#")}


def read_as_mainland(text: str) -> str:
    """`text` in simplified characters and Mandarin words, as long as it was typed."""
    pairs = _pairs()
    text = "".join(pairs.get(char, char) for char in text)

    def mandarin(match: re.Match[str]) -> str:
        assert match.lastindex is not None
        return _WORDS[match.lastindex - 1][1]

    return _WORDS_RE.sub(mandarin, text)


def as_typed(value: Any, typed: str, read: str) -> Any:
    """A value filled from `read` (what `read_as_mainland` made of `typed`), as it was typed:
    the same stretch of `typed` where the value is a stretch of `read`; else its characters
    that were read anew put back (a value the layer reworded keeps its own Mandarin words)."""
    if typed == read:
        return value
    if isinstance(value, list):
        return [as_typed(v, typed, read) for v in value]
    if not isinstance(value, str) or not value:
        return value
    at = read.find(value)
    if at >= 0:
        return typed[at:at + len(value)]
    pairs = _pairs()
    back = {r: t for t, r in zip(typed, read, strict=True) if t != r and pairs.get(t) == r}
    return "".join(back.get(char, char) for char in value)
