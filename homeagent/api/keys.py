"""Typed application keys shared by the route modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from homeagent.app import App

APP: web.AppKey[App] = web.AppKey("homeagent_app", object)  # type: ignore[arg-type]
