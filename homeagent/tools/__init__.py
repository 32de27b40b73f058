"""Tools the model can call: specs, the registry, validation and execution."""

from homeagent.tools.registry import (
    Permission,
    ToolContext,
    ToolRegistry,
    ToolResult,
    ToolSpec,
)

__all__ = ["Permission", "ToolContext", "ToolRegistry", "ToolResult", "ToolSpec"]
