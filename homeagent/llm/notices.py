"""What the user is told about how a turn is served, in the language they wrote in.

Short, one line, shown once per fallback episode (the router decides when); the
continuation note asks the next engine to finish an answer another one started.
"""

from __future__ import annotations

from homeagent.llm.base import ChatRequest
from homeagent.text import HAN_RE

_CJK = HAN_RE

TEXTS = {
    "failover": (
        "（{src}暂时不可用，由{dst}回答。）",
        "(The {src} is unavailable right now, so the {dst} is answering.)",
    ),
    "midstream": (
        "（{src}连接中断，由{dst}接着回答。）",
        "(The connection to the {src} broke; the {dst} finishes the answer.)",
    ),
    "budget": (
        "（今天的云端额度已用完，今天余下的对话由{dst}回答。）",
        "(Today's cloud budget is used up; the {dst} answers for the rest of the day.)",
    ),
}
CONTINUE = (
    "你上面的回答被中断了。请从中断处直接接着写，不要重复已经写过的内容。",
    "Your reply above was cut off. Continue it exactly where it stopped, without repeating anything.",
)


def chinese(request: ChatRequest) -> bool:
    """Whether the user's last message is Chinese (then so is what we tell them)."""
    user = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    return bool(_CJK.search(user))


def label(name: str, type_: str, cloud: bool, zh: bool) -> str:
    if zh:
        return "云端模型" if cloud else ("本地模型" if type_ == "llama_cpp" else f"「{name}」")
    return "cloud model" if cloud else ("local model" if type_ == "llama_cpp" else f"{name} model")


def notice_text(key: str, request: ChatRequest, src: tuple[str, str, bool] | None, dst: tuple[str, str, bool]) -> str:
    zh = chinese(request)
    return TEXTS[key][0 if zh else 1].format(src=label(*src, zh) if src else "", dst=label(*dst, zh))


def continue_note(request: ChatRequest) -> str:
    return CONTINUE[0 if chinese(request) else 1]
