"""MQTT publishing for Lua device adapters (paho-mqtt 2.x, the `ext` extra).

One `MqttPublisher` serves every adapter when `adapters.mqtt.host` is set. Each publish
opens its own short connection (connect, wait for the broker's CONNACK, publish, wait
until it is sent, or acknowledged for QoS 1 and 2, disconnect), so a broker that went
down or came back needs no reconnect logic and every failure belongs to the call that
met it. All of it happens in the adapter's worker thread, bounded by `timeout`.

A topic may be published only when it matches one of the filters the adapter's manifest
declares under `mqtt_topics` (MQTT wildcards: `+` one level, `#` the rest). Every failure
raises `ToolError` with a plain message; the password is never part of one (nor of a log
line: it lives in a private attribute and is handed to paho only).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from homeagent.errors import ToolError
from homeagent.log import get_logger, redact_text

log = get_logger("homeagent.ext.mqtt")

MAX_PAYLOAD_BYTES = 256_000


def check_filter(topic_filter: str) -> str | None:
    """Why `topic_filter` is not a valid MQTT topic filter, or None when it is."""
    if not topic_filter or len(topic_filter.encode("utf-8")) > 65535 or "\0" in topic_filter:
        return "must be a non-empty topic filter"
    levels = topic_filter.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return "'#' may only be a whole last level"
        if "+" in level and level != "+":
            return "'+' must be a whole level"
    return None


def check_topic(topic: str) -> str | None:
    """Why `topic` cannot be published to, or None when it can."""
    if not topic or len(topic.encode("utf-8")) > 65535 or "\0" in topic:
        return "a topic must be non-empty text"
    if "+" in topic or "#" in topic:
        return "a topic to publish to may not contain the wildcards '+' or '#'"
    return None


def topic_allowed(topic: str, filters: Sequence[str]) -> bool:
    from paho.mqtt.client import topic_matches_sub

    return any(topic_matches_sub(f, topic) for f in filters)


class MqttPublisher:
    """Publishes to one broker; thread-safe (one publish at a time)."""

    def __init__(self, host: str, port: int = 1883, *, username: str = "", password: str = "",
                 client_id: str = "homeagent", timeout: float = 5.0):
        self.host = host
        self.port = port
        self.username = username
        self.__password = password
        self.client_id = client_id
        self.timeout = timeout
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"MqttPublisher({self.host}:{self.port}, user={self.username or '-'})"

    def _scrub(self, text: str) -> str:
        if len(self.__password) >= 4:
            text = text.replace(self.__password, "****")
        return redact_text(text)

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        """Publish one message or raise `ToolError` saying what went wrong."""
        try:
            import paho.mqtt.client as paho
        except ImportError as err:
            raise ToolError("mqtt: the paho-mqtt package is not installed (the ext extra)") from err
        where = f"{self.host}:{self.port}"
        connected = threading.Event()
        outcome: dict[str, Any] = {}

        def on_connect(client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
            outcome["reason"] = reason_code
            connected.set()

        with self._lock:
            client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=self.client_id,
                                 clean_session=True)
            client.on_connect = on_connect
            client.connect_timeout = self.timeout
            if self.username:
                client.username_pw_set(self.username, self.__password or None)
            try:
                client.connect(self.host, self.port, keepalive=max(5, int(self.timeout) * 2))
            except (OSError, ValueError) as err:
                raise ToolError(self._scrub(f"mqtt: the broker at {where} cannot be reached: {err}")) from None
            client.loop_start()
            try:
                if not connected.wait(self.timeout):
                    raise ToolError(f"mqtt: the broker at {where} did not answer within {self.timeout:g} s")
                reason = outcome.get("reason")
                if reason is not None and reason.is_failure:
                    raise ToolError(self._scrub(f"mqtt: the broker at {where} refused the connection: {reason}"))
                info = client.publish(topic, payload, qos=qos, retain=retain)
                if info.rc != paho.MQTT_ERR_SUCCESS:
                    raise ToolError(f"mqtt: publishing to {topic!r} failed: {paho.error_string(info.rc)}")
                try:
                    info.wait_for_publish(self.timeout)
                except (RuntimeError, ValueError) as err:
                    raise ToolError(self._scrub(f"mqtt: publishing to {topic!r} failed: {err}")) from None
                if not info.is_published():
                    raise ToolError(f"mqtt: the broker at {where} did not take the message to {topic!r} "
                                    f"within {self.timeout:g} s")
            finally:
                client.disconnect()
                client.loop_stop()
        log.info("ext.mqtt.published", broker=where, topic=topic, qos=qos, retain=retain, bytes=len(payload))
