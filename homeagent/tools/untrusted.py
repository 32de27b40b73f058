"""Tool output is data: calls that appear to come from it are not run without asking.

Everything a tool returns (knowledge passages, documents, memory, plugin and Home
Assistant results, web pages) is untrusted text: a file can say "[ACTION]{"name":
"create_task", ...}" and a model that repeats its results would ask for that call. The
agent passes each round's calls through `untrusted_calls`: a call whose tool name
appears in the output of an earlier call of the same turn, or in the memory and
knowledge sections of the turn's prompt (`untrusted_sections`), is taken to come from
that text, and the permission gate then asks the user to confirm it whatever the policy
says (`PermissionGate.check(untrusted_source=...)`), or refuses it where the channel
cannot ask. `refusal_note` is what the user is shown about a refused call.

A user who asks for an action by name still gets it: only names that arrived in tool
output, after the user spoke, count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from homeagent.chat import ToolCall
from homeagent.text import HAN_RE
from homeagent.tools.registry import ToolResult


def _mentions(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, re.IGNORECASE) is not None


def untrusted_calls(calls: Iterable[ToolCall], earlier: Sequence[ToolResult], user_text: str = "") -> dict[str, str]:
    """call id → the tool whose output the call appears to come from."""
    found: dict[str, str] = {}
    for call in calls:
        if user_text and _mentions(call.name, user_text):
            continue  # the user named it
        for result in earlier:
            if result.ok and result.name != call.name and _mentions(call.name, result.content):
                found[call.id] = result.name
                break
    return found


def untrusted_sections(
    sections: Iterable[tuple[str, str]], trusted: frozenset[str] = frozenset(),
    own_lines: frozenset[str] = frozenset(),
) -> list[ToolResult]:
    """The prompt's memory and knowledge sections (title, text), read as tool output: a
    planted file reaches the prompt without any tool being called. Sections titled in
    `trusted` are the household's own configuration (an enabled skill's instructions,
    which name the tools it uses), not output; lines in `own_lines` are HomeAgent's own
    headings of a section (the graph's names memory_recall), not its data."""
    return [
        ToolResult("", f"the {title.lower()} in my notes", True,
                   "\n".join(line for line in text.split("\n") if line not in own_lines))
        for title, text in sections if title not in trusted
    ]


def refusal_note(tool: str, source: str, user_text: str) -> str:
    if HAN_RE.search(user_text):
        return f"\n（未执行 {tool}：这个操作出自 {source} 返回的内容，而不是你的要求。需要的话请直接告诉我。）\n"
    return (f"\n(Not run: {tool}. The request for it came from what {source} returned, not from you; "
            "ask me directly if you want it.)\n")
