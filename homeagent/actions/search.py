"""Web search through a SearXNG instance's JSON API (`GET /search?q=…&format=json`).

HomeAgent works offline by default; `web_search` needs a configured backend and the
network, and says so plainly when either is missing (seed 000 §7.3).
"""

from __future__ import annotations

import aiohttp
import anyio

from homeagent.errors import ToolError
from homeagent.log import get_logger

log = get_logger("homeagent.actions.search")


class SearxngSearch:
    def __init__(self, base_url: str, *, timeout: float = 8.0, session: aiohttp.ClientSession | None = None):
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._session = session

    async def search(self, query: str, limit: int) -> list[dict[str, str]]:
        params = {"q": query, "format": "json"}
        timeout = aiohttp.ClientTimeout(total=self._timeout)
        try:
            if self._session is not None:
                data = await self._get(self._session, params, timeout)
            else:
                async with aiohttp.ClientSession() as session:
                    data = await self._get(session, params, timeout)
        except (aiohttp.ClientError, TimeoutError, anyio.EndOfStream) as err:
            log.warning("actions.search.failed", error=type(err).__name__)
            raise ToolError(
                f"web_search: the search backend at {self.base_url} cannot be reached "
                f"({type(err).__name__}); the network may be down. Tell the user search is unavailable."
            ) from err
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise ToolError("web_search: the search backend sent an unexpected answer (no results list)")
        out = []
        for item in results[:limit]:
            if isinstance(item, dict) and item.get("url"):
                out.append({"title": str(item.get("title", "")), "url": str(item["url"]),
                            "content": str(item.get("content", ""))[:300]})
        return out

    async def _get(self, session: aiohttp.ClientSession, params: dict[str, str],
                   client_timeout: aiohttp.ClientTimeout) -> object:
        async with session.get(f"{self.base_url}/search", params=params, timeout=client_timeout,
                               headers={"Accept": "application/json"}) as resp:
            if resp.status != 200:
                raise ToolError(
                    f"web_search: the search backend answered HTTP {resp.status}; "
                    "check that its JSON format is enabled (search.formats: [json] in SearXNG's settings)"
                )
            try:
                return await resp.json(content_type=None)
            except ValueError as err:
                raise ToolError("web_search: the search backend did not answer JSON") from err
