"""LLM providers behind one streaming protocol."""

from homeagent.llm.base import (
    ChatRequest,
    Message,
    Notice,
    Provider,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolDef,
    Usage,
)

__all__ = [
    "ChatRequest",
    "Message",
    "Notice",
    "Provider",
    "ProviderEvent",
    "ProviderStatus",
    "StreamDone",
    "StreamError",
    "TextDelta",
    "ToolCall",
    "ToolCallEvent",
    "ToolDef",
    "Usage",
]
