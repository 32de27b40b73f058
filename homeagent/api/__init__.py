"""The HTTP API: REST, the OpenAI-compatible endpoint and SSE, on aiohttp."""
