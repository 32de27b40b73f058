"""homeagent.text: the one set of CJK ranges, and tokenisation without a word segmenter.

The modules that ask "is this Chinese?" or split text into terms use these ranges; the
last tests check a few of them through their own behaviour.
"""

from __future__ import annotations

import pytest

from homeagent.llm.base import ChatRequest, Message
from homeagent.llm.dialect.select import analyzer
from homeagent.llm.notices import chinese
from homeagent.text import CJK_RE, HAN_RE, estimate_tokens, has_han, is_cjk, normalize, tokenize

# The first and last character of each ideograph block, and one inside.
HAN_CHARS = ["\u3400", "\u4dbf", "\u4e00", "中", "\u9fff", "\uf900", "\ufaff"]
KANA_HANGUL = ["\u3042", "\u30ab", "\uac00", "\ud7a3"]  # あ カ 가 힣
NEITHER = ["a", "1", "，", "。", "\u4dc0", "\u3000", "é", " "]  # \u4dc0: a hexagram symbol


@pytest.mark.parametrize("ch", HAN_CHARS)
def test_ideographs_of_extension_a_the_unified_block_and_compatibility_are_han(ch: str) -> None:
    assert has_han(f"x{ch}y") and is_cjk(ch)
    assert HAN_RE.fullmatch(ch) and CJK_RE.fullmatch(ch)


@pytest.mark.parametrize("ch", KANA_HANGUL)
def test_kana_and_hangul_are_cjk_script_but_not_chinese(ch: str) -> None:
    assert is_cjk(ch)
    assert not has_han(ch)


@pytest.mark.parametrize("ch", NEITHER)
def test_latin_digits_punctuation_and_symbols_are_neither(ch: str) -> None:
    assert not is_cjk(ch) and not has_han(ch)


def test_is_cjk_asks_about_one_character() -> None:
    assert not is_cjk("中文") and not is_cjk("")


def test_cjk_runs_become_bigrams_and_latin_words_stay_whole() -> None:
    assert tokenize("我喜欢Python编程") == ["我喜", "喜欢", "python", "编程"]
    assert tokenize("家") == ["家"]
    assert tokenize("Don't over-think it, 好吗？") == ["don't", "over-think", "it", "好吗"]
    assert tokenize("ラーメン 한국어") == ["ラー", "ーメ", "メン", "한국", "국어"]
    # NFKC keeps extension A and maps a compatibility ideograph to its unified twin.
    assert tokenize("\u3400\u3401 \uf900") == ["\u3400\u3401", "\u8c48"]


def test_normalize_folds_width_and_case() -> None:
    assert normalize("ＡＢＣ１２３ Hello") == "abc123 hello"


def test_estimate_tokens_counts_each_cjk_character_once() -> None:
    assert estimate_tokens("中文字") == 3
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("한국어abcd") == 4


def _request(text: str) -> ChatRequest:
    return ChatRequest(messages=(Message("user", text),))


@pytest.mark.parametrize("text", ["\uf900\uf901", "\u3400", "中文"])
def test_notices_take_every_han_range_as_chinese(text: str) -> None:
    assert chinese(_request(text))


@pytest.mark.parametrize("text", ["hello", "こんにちは", "안녕"])
def test_notices_answer_other_scripts_in_english(text: str) -> None:
    assert not chinese(_request(text))


def test_action_selection_gives_kana_and_hangul_single_character_features_like_han() -> None:
    features = analyzer("喂猫 ねこ 고양이")
    assert {"~喂", "~猫", "~ね", "~こ", "~고", "~양", "~이"} <= set(features)
