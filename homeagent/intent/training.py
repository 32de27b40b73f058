"""The intent classifier's training set, generated from the registry at start.

For every registered action: its own examples (`user words → name {"arg": "value"}`,
the ToolDef `examples` lines), each turned into a template by marking the argument
values it contains, plus the templates of `homeagent.intent.phrases`. Every template is
filled with slot values (the action's own example values and the shared pools) and
wrapped in everyday politeness ("帮我…吧", "please …"), so each action gets dozens of
examples in both languages. Then the shipped phrasings (`phrasings.jsonl`: how people
said things to the layer in the sets it was developed on, each an utterance and its
action; written by `bench/intent_phrasings.py`), which teach the wordings no template
has. Examples learned from the household (corrections, stored in the database) come on
top. "none" is small talk.

`Template.pattern()` is also what the slot filler matches an utterance against (its
punctuation folded to ASCII by `fold_punct`: patterns are compiled when an action is first
matched, and a class of ASCII marks compiles several times faster than one with the
full-width ones).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from homeagent.chat import ToolDef
from homeagent.intent import phrases
from homeagent.intent.homophones import Homophones
from homeagent.intent.phrases import POOLS, TEMPLATES
from homeagent.text import has_han

NONE_LABEL = "none"
# Not actions either: the layer answers who it is and what it can do itself.
WHO_LABEL = "who_am_i"
HELP_LABEL = "help"
_EXAMPLE_RE = re.compile(r"^(?P<text>.*?)\s*→\s*(?P<name>[a-z][a-z0-9_]*)\s*(?P<args>\{.*\})?\s*$", re.S)
_SLOT_RE = re.compile(r"\{(?P<key>[a-z_]+)(?::(?P<pool>[a-z_]+)|=(?P<values>[^}]*))\}")
_PUNCT = "，,：:。.!！?？；; "
# Full-width marks as their ASCII twins, one character for one: a match on the folded
# text has the spans of the original.
_FOLD = str.maketrans("，：。！？；、", ",:.!?;,")
_SEPARATOR = r"[\s,:.!?;]"


def fold_punct(text: str) -> str:
    """`text` with full-width punctuation as ASCII (same length, same positions): what
    `Template.pattern()` is matched against."""
    return text.translate(_FOLD)
_POLITE_RE = re.compile(r"^(?:请你?|帮我|麻烦你?|please |can you |could you )", re.I)

ZH_WRAP = (("", ""), ("", ""), ("请", ""), ("帮我", ""), ("麻烦", ""), ("", "吧"), ("嗯，", ""), ("", "，谢谢"))
EN_WRAP = (("", ""), ("", ""), ("please ", ""), ("hey, ", ""), ("can you ", ""), ("", " please"), ("", ", thanks"),
           ("could you ", ""))


# Slips of a pinyin keyboard on the command words (a homophone picked for the right one):
# each template is trained once more with one of them, as households type.
_ZH_SLIPS: dict[str, tuple[str, ...]] = {
    "提醒": ("提星", "提型", "提行"), "心情": ("心青", "新情"), "改到": ("改道", "该到"), "日程": ("日称", "日成"),
    "待办": ("代办", "带办"), "记账": ("记帐", "计账"), "笔记": ("比记", "笔迹"), "删掉": ("删调", "山掉"),
    "购物": ("够物",), "打卡": ("打咔", "大卡"), "日记": ("日纪", "日几"), "习惯": ("习贯",), "喝水": ("和水",),
    "睡觉": ("水觉",), "记一下": ("记以下", "计一下"), "目标": ("木标",), "清单": ("请单", "清担"), "取消": ("去消",),
}
_EN_WORD_RE = re.compile(r"[A-Za-z]{5,}")


def typo(text: str, rng: random.Random) -> str | None:
    """`text` with one slip of the keyboard: a command word's homophone (Chinese), or two
    letters of a longer English word swapped or one dropped; None when there is no room."""
    if has_han(text):
        found = [w for w in _ZH_SLIPS if w in text]
        if not found:
            return None
        word = rng.choice(found)
        return text.replace(word, rng.choice(_ZH_SLIPS[word]), 1)
    words = list(_EN_WORD_RE.finditer(text))
    if not words:
        return None
    m = rng.choice(words)
    w, i = m.group(0), rng.randrange(1, len(m.group(0)) - 2)
    slipped = w[:i] + w[i + 1] + w[i] + w[i + 2:] if rng.random() < 0.5 else w[:i] + w[i + 1:]
    return text[:m.start()] + slipped + text[m.end():]


@dataclass(frozen=True)
class Example:
    text: str
    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
    group: str = ""  # the template it came from (held-out splits keep groups apart)


@dataclass(frozen=True)
class Template:
    action: str
    text: str  # with {key:pool} / {key=a|b} slots
    fixed: Mapping[str, Any]
    values: Mapping[str, tuple[str, ...]]  # slot key → candidate values

    @property
    def lang(self) -> str:
        return "zh" if has_han(_SLOT_RE.sub("", self.text)) or has_han(self.text) else "en"

    @property
    def slots(self) -> list[str]:
        return [m.group("key") for m in _SLOT_RE.finditer(self.text)]

    def literal_parts(self) -> list[str]:
        text = _POLITE_RE.sub("", self.text)
        return [p for p in _SLOT_RE.split(text)[::4] if p and p.strip(_PUNCT)]

    def fill(self, rng: random.Random) -> tuple[str, dict[str, Any]]:
        args: dict[str, Any] = dict(self.fixed)

        def one(match: re.Match[str]) -> str:
            key = match.group("key")
            value = rng.choice(self.values[key])
            args[key] = value
            return value

        return _SLOT_RE.sub(one, self.text), args

    def pattern(self, strict: bool = True) -> re.Pattern[str]:
        """A regex matching an utterance of this template (politeness stripped and
        punctuation folded by `fold_punct`, as the utterance is); slots are named groups. Strict: the template's punctuation must be
        there (so a slot cannot swallow it); loose: punctuation is optional."""
        cache_key = (self.text, strict)
        cached = _PATTERNS.get(cache_key)
        if cached is not None:
            return cached
        text = fold_punct(_POLITE_RE.sub("", self.text))
        out: list[str] = []
        pos, seen = 0, set()
        for m in _SLOT_RE.finditer(text):
            out.append(_literal(text[pos:m.start()], strict))
            key = m.group("key")
            body = ".+?"
            if text[m.end():m.end() + 1] == "{" and key in _BEFORE_SLOT_ZH:
                # "在{location}{title}", "{store}{title}": no word between the two, so the
                # first is no single character (a lazy group took "公" of 公司开会)
                body = _BEFORE_SLOT_ZH[key]
            out.append(f"(?P<{key}>{body})" if key not in seen else body)
            seen.add(key)
            pos = m.end()
        out.append(_literal(text[pos:], strict))
        compiled = re.compile("^" + "".join(out) + "$", re.I | re.S)
        _PATTERNS[cache_key] = compiled
        return compiled


_PATTERNS: dict[tuple[str, bool], re.Pattern[str]] = {}
# A place, a shop or a person said right before what happens there (or what was lent), with
# nothing between: where the first ends. A place ends with a place's word ("公司", "奥体中心") or before what is
# done there ("在海底捞吃饭"); a shop before its offer ("盒马满200减30", "京东家电300元券").
PLACE_WORD_ZH = (r"(?:会议室|教室|办公室|中心|公司|医院|学校|餐厅|饭店|酒店|广场|商场|影院|影城|球场|体育场|体育馆|公园|机场|车站"
                 r"|室|厅|馆|店|楼|层|场|家|院|所|站)")
_BEFORE_SLOT_ZH = {
    "location": rf"[^，,。\s]{{1,12}}?{PLACE_WORD_ZH}(?=[^，,。\s])|[^，,。\s]{{2,10}}?(?=开|举行|举办|参加|看|吃|逛|打|玩|踢|唱|聚|拍|学|练|见|上课)|.+?",
    "store": r"[^，,。\s]{2,8}?(?=满|\d|[一二两三四五六七八九]折|买一|第二|免|半价|立减|全场|家电|早餐|外卖)|.+?",
    # a person before an amount: "借给小军三千元" is 小军 and 三千元, not 小 and 军三千元
    "person": r"[^，,。\s\d]{1,8}?(?=\d|[零一二两三四五六七八九十百千万几]+\s*(?:块|元|万|千|百|毛|刀|美元|欧))|.+?",
}


def _literal(text: str, strict: bool) -> str:
    """Runs of spaces and punctuation: a space needs some separator (in strict form,
    punctuation too); at the ends of the utterance, anything goes."""
    parts = []
    for run in re.findall(rf"[{re.escape(_PUNCT)}]+|[^{re.escape(_PUNCT)}]+", text):
        if run[0] in _PUNCT:
            needs = strict and bool(run.strip()) or " " in run
            parts.append(_SEPARATOR + ("+" if needs else "*"))
        else:
            parts.append(re.escape(run))
    return "".join(parts)


def parse_example(line: str) -> tuple[str, str, dict[str, Any]] | None:
    match = _EXAMPLE_RE.match(line.strip())
    if not match:
        return None
    try:
        args = json.loads(match.group("args")) if match.group("args") else {}
    except json.JSONDecodeError:
        return None
    return match.group("text").strip(), match.group("name"), args if isinstance(args, dict) else {}


def _fixed(spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in spec.split(","):
        if "=" in part:
            key, value = (x.strip() for x in part.split("=", 1))
            out[key] = {"true": True, "false": False}.get(value, int(value) if value.isdigit() else value)
    return out


def templates_for(tool: ToolDef) -> list[Template]:
    """Every template of one action: its registered examples, then phrases.TEMPLATES."""
    raw: list[tuple[str, dict[str, Any]]] = []
    for line in tool.examples:
        parsed = parse_example(line)
        if parsed is not None and parsed[1] == tool.name:
            raw.append(_mark(parsed[0], parsed[2]))
    for text in TEMPLATES.get(tool.name, ()):
        body, _, implied = text.partition(" ## ")
        raw.append((body, _fixed(implied)))
    # Every slot key's values: the pool it names, plus what the examples used.
    seen: dict[tuple[str, str], list[str]] = {}
    for text, _ in raw:
        lang = "zh" if has_han(text) else "en"
        for m in _SLOT_RE.finditer(text):
            key = m.group("key")
            bucket = seen.setdefault((key, lang), [])
            if m.group("pool"):
                zh, en = POOLS[m.group("pool")]
                bucket += zh if lang == "zh" else en
            else:
                bucket += [v for v in (m.group("values") or "").split("|") if v]
    made: list[Template] = []
    for text, fixed in raw:
        lang = "zh" if has_han(text) else "en"
        keys = {m.group("key") for m in _SLOT_RE.finditer(text)}
        values: dict[str, tuple[str, ...]] = {}
        for key in keys:
            own = [v for m in _SLOT_RE.finditer(text) if m.group("key") == key
                   for v in ((m.group("values") or "").split("|") if m.group("values") else [])]
            pool = own or seen.get((key, lang)) or seen.get((key, "en" if lang == "zh" else "zh")) or ["x"]
            values[key] = tuple(dict.fromkeys(pool))
        made.append(Template(tool.name, text, fixed, values))
    return made


def _mark(text: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A registered example as a template: each string value in its text becomes a slot."""
    fixed: dict[str, Any] = {}
    marked = text
    slotted: set[str] = set()
    for key, value in sorted(args.items(), key=lambda kv: -len(str(kv[1]))):
        value_text = str(value)
        if key in ("to", "end") and value_text in slotted:
            continue  # {"from": "明天", "to": "明天"}: the one day, said once ("to" as said would be a fixed 明天)
        # The first occurrence outside the slots marked so far ("明天" of {from, to} both
        # 明天 is one slot; the other argument is implied, not a slot inside a slot).
        at = next((m.start() for m in re.finditer(re.escape(value_text), marked)
                   if marked.count("{", 0, m.start()) == marked.count("}", 0, m.start())), -1) if value_text else -1
        if isinstance(value, str | int | float) and not isinstance(value, bool) and at >= 0 and "{" not in value_text:
            marked = f"{marked[:at]}{{{key}={value_text}}}{marked[at + len(value_text):]}"
            slotted.add(value_text)
        else:
            fixed[key] = value
    return marked, fixed


def all_templates(tools: Iterable[ToolDef]) -> dict[str, list[Template]]:
    return {tool.name: templates_for(tool) for tool in tools}


class LazyTemplates(Mapping[str, list[Template]]):
    """Every action's templates, each built when first asked for: a start that loads a
    saved model needs only the templates of the actions it is asked to fill (building
    all of them took 0.4 s of a restart); training reads them all."""

    def __init__(self, tools: Iterable[ToolDef]) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._built: dict[str, list[Template]] = {}

    def __getitem__(self, name: str) -> list[Template]:
        built = self._built.get(name)
        if built is None:
            built = self._built[name] = templates_for(self._tools[name])
        return built

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def built(self) -> list[str]:
        """The actions whose templates have been built so far."""
        return list(self._built)


PHRASINGS = Path(__file__).with_name("phrasings.jsonl")


@cache
def phrasings_digest(path: Path = PHRASINGS) -> str:
    """What the phrasings are, for a saved model's key: a start that loads the model reads
    the file's bytes, not its 3,000 lines."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _phrasing_lines(path: Path) -> tuple[tuple[str, str, bool], ...]:
    """(text, action, written as a typo) for each line of a phrasings file."""
    out: list[tuple[str, str, bool]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            out.append((str(item["text"]), str(item["action"]), item.get("typo") is True))
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"{path.name} line {number}: expected {{\"text\": …, \"action\": …}} ({err})") from err
    return tuple(out)


@cache
def phrasings(path: Path = PHRASINGS) -> tuple[Example, ...]:
    """The shipped phrasings, grouped per action so that one in four is held out when the
    thresholds are calibrated (real wordings, not only templates, set them)."""
    out: list[Example] = []
    count: dict[str, int] = {}
    for text, action, _ in _phrasing_lines(path):
        n = count[action] = count.get(action, -1) + 1
        out.append(Example(text, action, {}, f"said:{action}:{n}"))
    return tuple(out)


def written_right(path: Path = PHRASINGS) -> tuple[str, ...]:
    """The phrasings not written as typos: real words, for the homophone check."""
    return tuple(text for text, _, typo in _phrasing_lines(path) if not typo)


@cache
def homophones() -> Homophones:
    """The household's Chinese words (the pools' values) and the text whose character pairs
    are real words (templates, pools, small talk, the phrasings not written as typos)."""
    words = [value for zh, _ in POOLS.values() for value in zh]
    known = [*written_right(), *(t for texts in TEMPLATES.values() for t in texts), *words, *phrases.NONE]
    return Homophones(words, known)


def generate(
    templates: Mapping[str, Sequence[Template]],
    *,
    per_template: int = 6,
    seed: int = 7,
    limit_per_action: int | None = None,
    extra: Iterable[Example] = (),
    said: Iterable[Example] = (),
) -> list[Example]:
    """Filled and wrapped examples for every action, plus "none", `said` (phrasings of
    the registered actions and the three answers of the layer's own) and `extra`."""
    rng = random.Random(seed)
    out: list[Example] = []
    for action, temps in templates.items():
        chosen = list(temps)
        if limit_per_action is not None:
            chosen = chosen[:limit_per_action]
        for index, template in enumerate(chosen):
            wraps = ZH_WRAP if template.lang == "zh" else EN_WRAP
            made = set()
            for n in range(per_template):
                text, args = template.fill(rng)
                pre, post = wraps[0] if n == 0 else rng.choice(wraps)
                text = f"{pre}{text}{post}"
                if text not in made:
                    made.add(text)
                    out.append(Example(text, action, args, f"{action}:{index}"))
            slipped = typo(text, rng)
            if slipped is not None and slipped not in made:
                out.append(Example(slipped, action, args, f"{action}:{index}"))
    for label, texts in ((NONE_LABEL, phrases.NONE), (WHO_LABEL, phrases.WHO), (HELP_LABEL, phrases.HELP)):
        for index, text in enumerate(texts):
            group = f"{label}:{index % 7}"
            out.append(Example(text, label, {}, group))
            if text.isascii():
                out.append(Example(text.capitalize() + ("." if index % 2 else "!"), label, {}, group))
            else:
                out.append(Example(text + ("。" if index % 2 else "！"), label, {}, group))
            if label != NONE_LABEL:  # asked as a question, and politely
                out.append(Example(text + ("?" if text.isascii() else "？"), label, {}, group))
                out.append(Example(("hey, " if text.isascii() else "那个，") + text, label, {}, group))
    # A phrasing as it was said, and once more in one wrapping: real words, not a frame.
    known = set(templates) | {NONE_LABEL, WHO_LABEL, HELP_LABEL}
    for example in said:
        if example.action in known:
            out.append(example)
            pre, post = rng.choice((ZH_WRAP if has_han(example.text) else EN_WRAP)[2:])
            out.append(Example(f"{pre}{example.text}{post}", example.action, example.args, example.group))
    # What the household taught weighs like a template: the utterance and its wrappings.
    for example in extra:
        wraps = ZH_WRAP if has_han(example.text) else EN_WRAP
        for pre, post in dict.fromkeys(wraps):
            out.append(Example(f"{pre}{example.text}{post}", example.action, example.args, example.group or "learned:0"))
    return out
