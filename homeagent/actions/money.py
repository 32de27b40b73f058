"""Amounts of money: integer minor units plus an ISO 4217 currency, never floats.

`parse_money` reads what a model or a person writes: 35, "35.5", "35块", "35块5", "三十五元",
"¥12.30", "$4.99", "12 dollars", "€3", "8 EUR". A value it cannot read raises
`MoneyError`, whose message tells the model the accepted forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from homeagent.numbers import CN_NUM, parse_number

FORMAT_HINT = 'use a number such as 35 or 35.5 (currency separately), or text such as "35元", "¥35", "$4.99", "12 USD"'

# Minor-unit exponents; currencies not listed use 2.
_EXPONENT = {"JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "KWD": 3, "BHD": 3}
_SYMBOLS = {"¥": "CNY", "￥": "CNY", "$": "USD", "US$": "USD", "€": "EUR", "£": "GBP",
            "HK$": "HKD", "NT$": "TWD", "₩": "KRW", "₹": "INR", "A$": "AUD", "C$": "CAD"}
_WORDS = {"元": "CNY", "块": "CNY", "块钱": "CNY", "圆": "CNY", "人民币": "CNY", "rmb": "CNY",
          "yuan": "CNY", "kuai": "CNY", "美元": "USD", "美金": "USD", "刀": "USD", "dollar": "USD",
          "dollars": "USD", "bucks": "USD", "buck": "USD", "欧元": "EUR", "euro": "EUR",
          "euros": "EUR", "英镑": "GBP", "pound": "GBP", "pounds": "GBP", "quid": "GBP", "日元": "JPY",
          "yen": "JPY", "港币": "HKD", "港元": "HKD", "韩元": "KRW"}
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_AMOUNT_RE = re.compile(
    rf"(?P<sym>HK\$|NT\$|US\$|A\$|C\$|[¥￥$€£₩₹])?\s*(?P<num>-?\d+(?:\.\d+)?|{CN_NUM}(?:点[零一二三四五六七八九]+)?)"
    rf"\s*(?P<word>块钱|[A-Za-z]{{3,7}}|元|块|圆|人民币|美元|美金|刀|欧元|英镑|日元|港币|港元|韩元)?"
    rf"\s*(?P<jiao>\d|[一二两三四五六七八九])?\s*(?:毛|角)?"
)


class MoneyError(ValueError):
    """An amount that could not be read; the message lists the accepted forms."""


@dataclass(frozen=True)
class Money:
    minor: int  # amount in the currency's smallest unit (fen, cents)
    currency: str

    @property
    def exponent(self) -> int:
        return _EXPONENT.get(self.currency, 2)

    @property
    def amount(self) -> Decimal:
        return Decimal(self.minor).scaleb(-self.exponent)

    def format(self) -> str:
        sign = "-" if self.minor < 0 else ""
        value = abs(self.amount)
        text = f"{value:,.{self.exponent}f}"
        symbol = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}.get(self.currency)
        if symbol and self.currency != "JPY":
            return f"{sign}{symbol}{text}"
        return f"{sign}{text} {self.currency}"


def currency_code(text: str) -> str:
    """Normalise a currency name or symbol to its ISO code: "元" → CNY, "usd" → USD."""
    raw = text.strip()
    if raw in _SYMBOLS:
        return _SYMBOLS[raw]
    if raw.casefold() in _WORDS:
        return _WORDS[raw.casefold()]
    code = raw.upper()
    if _CURRENCY_RE.match(code):
        return code
    raise MoneyError(f"unknown currency {text!r}; use an ISO code such as CNY, USD or EUR")


def to_minor(value: Decimal | float | int, currency: str) -> int:
    exponent = _EXPONENT.get(currency, 2)
    try:
        scaled = Decimal(str(value)).scaleb(exponent)
    except InvalidOperation as err:
        raise MoneyError(f"{value!r} is not an amount; {FORMAT_HINT}") from err
    return int(scaled.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def parse_money(value: object, default_currency: str, currency: str | None = None) -> Money:
    """An amount from a number or text; `currency` (if given) overrides what the text says."""
    explicit: str | None = currency_code(currency) if currency else None
    if isinstance(value, bool) or value is None:
        raise MoneyError(f"{value!r} is not an amount; {FORMAT_HINT}")
    if isinstance(value, int | float):
        code = explicit or default_currency
        return Money(to_minor(value, code), code)
    text = str(value).strip().replace(",", "").replace("，", "")
    match = _AMOUNT_RE.search(text)
    if not match or not text:
        raise MoneyError(f"cannot read {value!r} as an amount; {FORMAT_HINT}")
    num_text = match.group("num")
    if "点" in num_text:
        whole, frac = num_text.split("点", 1)
        head = parse_number(whole)
        digits = "".join(str(int(parse_number(ch) or 0)) for ch in frac)
        number = None if head is None else Decimal(f"{int(head)}.{digits}")
    else:
        parsed = parse_number(num_text)
        number = None if parsed is None else Decimal(num_text) if re.fullmatch(r"-?\d+(?:\.\d+)?", num_text) else Decimal(int(parsed))
    if number is None:
        raise MoneyError(f"cannot read {value!r} as an amount; {FORMAT_HINT}")
    if match.group("jiao") and match.group("word") in ("块", "元", "块钱"):
        # 35块5 = 35.5: a digit after 块 counts dimes (毛/角).
        number += Decimal(int(parse_number(match.group("jiao")) or 0)) / 10
    cur = explicit
    if cur is None and match.group("sym"):
        cur = _SYMBOLS[match.group("sym")]
    if cur is None and match.group("word"):
        try:
            cur = currency_code(match.group("word"))
        except MoneyError:
            cur = None
    cur = cur or default_currency
    return Money(to_minor(number, cur), cur)
