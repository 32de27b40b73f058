"""The `[ACTION]` text dialect, for models without function calling: the only place that
knows it.

Inside the house there is one tool dialect, native tool calls. A provider whose model
cannot call functions is wrapped at the llm edge by `ActionDialect` (provider.py), which
renders the offered tools into the prompt (prompt.py), picks which to offer (select.py),
constrains a local engine's reply with a grammar (grammar.py), hides blocks from the
stream and parses them with JSON repair (blocks.py, repair.py), and renders results.
"""

from homeagent.llm.dialect.provider import ActionDialect, DialectSettings, speak_native

__all__ = ["ActionDialect", "DialectSettings", "speak_native"]
