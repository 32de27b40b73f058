"""PII scrubbing for requests that leave the box, with stable, reversible placeholders.

Before a request goes to a cloud provider, every message (and every tool call's
arguments in the history) is scrubbed: phone numbers, Chinese resident ID numbers, bank
card numbers, email addresses, exact street addresses (Chinese and English) and the
household names from the config become placeholders such as `[PHONE_1]` or `[NAME_2]`.
The same value always gets the same placeholder (a vault shared by all requests of the
process), so a conversation stays coherent across turns and tool rounds. The answer
streaming back, and the arguments of the tool calls the model makes, get the real values
restored — the cloud never sees them, the user and the tools do. Local engines are sent
the raw text; this module is not involved.

Detection is pattern-based and errs on the side of scrubbing: a long number that passes
the Luhn check is treated as a card number even if it is an order number.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace

from homeagent.llm.base import ChatRequest, Message, ToolCall

KINDS = ("PHONE", "EMAIL", "IDCARD", "BANKCARD", "ADDRESS", "NAME")

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Chinese resident ID: 6-digit region, birth date 18xx-20xx, 3-digit sequence, check digit.
_IDCARD = re.compile(
    r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
    r"(?![0-9A-Za-z])"
)
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_PHONES = (
    # Chinese mobile, optionally +86 / 0086, optionally grouped 3-4-4.
    re.compile(r"(?<![\d+])(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)"),
    # Chinese landline with its area code: 010-12345678, (0755)1234567.
    re.compile(r"(?<!\d)(?:\(0\d{2,3}\)\s?|0\d{2,3}-)\d{7,8}(?:-\d{1,5})?(?!\d)"),
    # International: +44 20 7946 0958, +1 (415) 555-0132.
    re.compile(r"(?<![\w+])\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{2,4}(?:[ -]?\d{2,4}){1,4}(?!\d)"),
    # North American: (415) 555-0132, 415-555-0132.
    re.compile(r"(?<![\d(])(?:\(\d{3}\)\s?|\d{3}[-. ])\d{3}[-. ]\d{4}(?!\d)"),
)
# A CJK character that is not a common function word, so "我家住在" stays out of an
# address that follows it.
_HAN = r"(?:(?![在住是到去从和与的了我你他她家址为于向往])[\u4e00-\u9fff])"
_ADDRESSES = (
    re.compile(
        rf"(?:{_HAN}{{2,6}}?(?:省|自治区|市|区|县|镇|乡|街道))*{_HAN}{{1,8}}?"
        r"(?:路|街|大道|大街|巷|弄|胡同)[0-9０-９]{1,5}号(?:院)?"
        r"(?:[0-9０-９A-Za-z]{1,4}(?:栋|幢|号楼|座|单元|层|楼|室))*"
    ),
    re.compile(
        r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][A-Za-z]*\.?\s+){0,3}"
        r"(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl"
        r"|Terrace|Close|Crescent)\b\.?(?:,?\s*(?:Apt|Apartment|Unit|Suite|Flat|#)\.?\s*[\w-]+)?"
    ),
)
# Phones, ID and card numbers and house numbers all need digits.
_DIGITS = re.compile(r"\d")
_PLACEHOLDER = re.compile(r"\[?\b(" + "|".join(KINDS) + r")_(\d{1,6})\b\]?")
# The end of a text that may be the start of a placeholder still being streamed.
_TAIL = re.compile(r"\[?(?:[A-Z]{1,8}(?:_\d{0,6})?)?$")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _is_card(number: str) -> bool:
    digits = re.sub(r"\D", "", number)
    if not 13 <= len(digits) <= 19:
        return False
    # UnionPay cards (62…) do not all pass Luhn.
    return _luhn(digits) or (digits.startswith("62") and len(digits) >= 16)


def _digit_count(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


class PiiVault:
    """Value ↔ placeholder, stable for the life of the process, bounded in size."""

    def __init__(self, max_entries: int = 4096):
        self._by_value: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._by_placeholder: dict[str, str] = {}
        self._counters = dict.fromkeys(KINDS, 0)
        self._max = max_entries

    def placeholder(self, kind: str, value: str) -> str:
        key = (kind, value)
        found = self._by_value.get(key)
        if found is not None:
            self._by_value.move_to_end(key)
            return found
        self._counters[kind] += 1
        token = f"[{kind}_{self._counters[kind]}]"
        self._by_value[key] = token
        self._by_placeholder[token] = value
        if len(self._by_value) > self._max:
            _, old = self._by_value.popitem(last=False)
            self._by_placeholder.pop(old, None)
        return token

    def value(self, kind: str, number: str) -> str | None:
        return self._by_placeholder.get(f"[{kind}_{number}]")

    def __len__(self) -> int:
        return len(self._by_value)


class Scrubber:
    """Scrubs requests for the cloud and restores answers and tool arguments."""

    def __init__(self, names: Iterable[str] = (), vault: PiiVault | None = None):
        self.vault = vault or PiiVault()
        names = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
        parts = [
            # Latin names match whole words only; CJK text has no spaces, so "和Alice" counts.
            re.escape(n) if re.search(r"[\u3000-\u9fff]", n) else rf"(?<![A-Za-z0-9]){re.escape(n)}(?![A-Za-z0-9])"
            for n in names
        ]
        self._names = re.compile("|".join(parts)) if parts else None
        self._cache: OrderedDict[str, str] = OrderedDict()

    # -- scrubbing ----------------------------------------------------------------------

    def scrub(self, text: str) -> str:
        if not text:
            return text
        # The same texts come back every request (the system prompt, the history), and
        # a value keeps its placeholder for good, so a scrubbed text can be reused.
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        out = self._scrub(text)
        self._cache[text] = out
        if len(self._cache) > 512:
            self._cache.popitem(last=False)
        return out

    def _scrub(self, text: str) -> str:
        sub = self._sub
        if "@" in text:
            text = _EMAIL.sub(lambda m: sub("EMAIL", m.group(0)), text)
        if _DIGITS.search(text):
            text = _IDCARD.sub(lambda m: sub("IDCARD", m.group(0)), text)
            text = _CARD.sub(lambda m: sub("BANKCARD", m.group(0)) if _is_card(m.group(0)) else m.group(0), text)
            for pattern in _PHONES:
                text = pattern.sub(
                    lambda m: sub("PHONE", m.group(0)) if _digit_count(m.group(0)) >= 7 else m.group(0), text
                )
            if "号" in text:
                text = _ADDRESSES[0].sub(lambda m: sub("ADDRESS", m.group(0)), text)
            text = _ADDRESSES[1].sub(lambda m: sub("ADDRESS", m.group(0)), text)
        if self._names is not None:
            text = self._names.sub(lambda m: sub("NAME", m.group(0)), text)
        return text

    def _sub(self, kind: str, value: str) -> str:
        return self.vault.placeholder(kind, value)

    def scrub_message(self, message: Message) -> Message:
        calls = tuple(replace(c, arguments=self.scrub(c.arguments)) for c in message.tool_calls)
        return replace(message, content=self.scrub(message.content), tool_calls=calls)

    def scrub_request(self, request: ChatRequest) -> ChatRequest:
        messages = tuple(self.scrub_message(m) for m in request.messages)
        # The stable prefix length refers to the raw system text; only local engines use it.
        return replace(request, messages=messages, stable_prefix_chars=0)

    # -- restoring ----------------------------------------------------------------------

    def restore(self, text: str) -> str:
        def put_back(m: re.Match[str]) -> str:
            value = self.vault.value(m.group(1), m.group(2))
            return m.group(0) if value is None else value

        return _PLACEHOLDER.sub(put_back, text) if text else text

    def restore_arguments(self, arguments: str) -> str:
        """Tool-call arguments (JSON text) with placeholders replaced, JSON-escaped."""

        def put_back(m: re.Match[str]) -> str:
            value = self.vault.value(m.group(1), m.group(2))
            return m.group(0) if value is None else json.dumps(value, ensure_ascii=False)[1:-1]

        return _PLACEHOLDER.sub(put_back, arguments) if arguments else arguments

    def restore_call(self, call: ToolCall) -> ToolCall:
        return replace(call, arguments=self.restore_arguments(call.arguments))

    def restorer(self) -> StreamRestorer:
        return StreamRestorer(self)


class StreamRestorer:
    """Restores placeholders in streamed text, holding back a placeholder cut in two."""

    def __init__(self, scrubber: Scrubber):
        self._scrubber = scrubber
        self._buf = ""

    def feed(self, text: str) -> str:
        self._buf += text
        tail = _TAIL.search(self._buf)
        hold = len(tail.group(0)) if tail else 0
        if hold:
            core = tail.group(0).lstrip("[").split("_")[0]  # type: ignore[union-attr]
            if core and not any(k.startswith(core) for k in KINDS):
                hold = 0
        out, self._buf = self._buf[: len(self._buf) - hold], self._buf[len(self._buf) - hold:]
        return self._scrubber.restore(out)

    def finish(self) -> str:
        out, self._buf = self._buf, ""
        return self._scrubber.restore(out)
