"""Speech over HTTP: OpenAI-shaped transcription and speech, and one spoken turn.

  POST /v1/audio/transcriptions   multipart: file (WAV), language?, model?, response_format?
                                  (json | text | verbose_json) → {"text": …}
  POST /v1/audio/speech           JSON {"input", "voice"?, "model"?, "response_format"?:
                                  "wav" | "pcm", "language"?} → the spoken input
  POST /api/voice                 a WAV (raw body, or multipart `file`) → the spoken answer
                                  as WAV; the transcript and the answer text travel in the
                                  headers X-Transcript and X-Answer (UTF-8, percent-encoded)

Without the `voice` extra every route answers 503 naming what is missing and how to
install it; the rest of the API is untouched.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from homeagent.api.auth import member_of
from homeagent.api.bodies import NOT_BLANK
from homeagent.api.middleware import error_response, read_json
from homeagent.errors import RequestError
from homeagent.io.events import TurnDone, TurnFailed
from homeagent.io.speech import SpeechChannel
from homeagent.voice import Audio, VoiceService, VoiceUnavailable
from homeagent.voice.audio import join, read_wav, to_pcm16, wav_bytes
from homeagent.voice.base import EXTRA_HINT

MAX_INPUT_CHARS = 1000  # about a minute of speech
_TEXT_FORMATS = ("json", "text", "verbose_json")
_AUDIO_FORMATS = ("wav", "pcm")


def unavailable(reason: str) -> web.Response:
    return error_response(503, reason, code="voice_unavailable")


async def _audio_of(request: web.Request) -> tuple[Audio, dict[str, str]]:
    """The uploaded WAV and the other form fields."""
    fields: dict[str, str] = {}
    if request.content_type.startswith("multipart/"):
        data: bytes | None = None
        try:
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                name = getattr(part, "name", None) or ""
                if name == "file":
                    data = await part.read()  # type: ignore[union-attr]
                elif name:
                    fields[name] = (await part.text())[:200]  # type: ignore[union-attr]
        except (ValueError, AssertionError, LookupError, HttpProcessingError) as err:
            raise RequestError(f"the multipart body cannot be read ({err}); send a 'file' field", param="file") from err
        if data is None:
            raise RequestError("file: required, a WAV file (multipart field 'file')", param="file")
    else:
        data = await request.read()
        fields = {k: v[:200] for k, v in request.query.items()}
        if not data:
            raise RequestError("request body is empty: send a WAV file", param="file")
    return read_wav(data), fields


def add_routes(web_app: web.Application, voice: VoiceService | None, channel: SpeechChannel) -> None:
    """Register the speech routes; `voice` None means the daemon was built without speech."""

    def ready() -> VoiceService:
        if voice is None:
            raise VoiceUnavailable(f"speech is not set up in this daemon: {EXTRA_HINT}")
        reason = voice.missing()
        if reason:
            raise VoiceUnavailable(reason)
        return voice

    async def transcriptions(request: web.Request) -> web.StreamResponse:
        try:
            service = ready()
            audio, fields = await _audio_of(request)
            fmt = fields.get("response_format", "json")
            if fmt not in _TEXT_FORMATS:
                raise RequestError(
                    f"response_format: expected one of {', '.join(_TEXT_FORMATS)}, got {fmt!r}",
                    param="response_format",
                )
            result = await service.transcribe(audio, fields.get("language") or None)
        except VoiceUnavailable as err:
            return unavailable(str(err))
        if fmt == "text":
            return web.Response(text=result.text + "\n", content_type="text/plain")
        body: dict[str, Any] = {"text": result.text}
        if fmt == "verbose_json":
            body |= {"language": result.language, "duration": round(result.audio_seconds, 3), "model": result.model}
        return web.json_response(body, dumps=_dumps)

    async def speech(request: web.Request) -> web.StreamResponse:
        body = await read_json(request)
        text = body.get("input")
        if not isinstance(text, str) or not text.strip():
            raise RequestError("input: required, the text to speak", param="input")
        if len(text) > MAX_INPUT_CHARS:
            raise RequestError(f"input: longer than {MAX_INPUT_CHARS} characters", param="input")
        fmt = body.get("response_format", "wav")
        if fmt not in _AUDIO_FORMATS:
            raise RequestError(
                f"response_format: {fmt!r} is not offered; use one of {', '.join(_AUDIO_FORMATS)}",
                param="response_format",
            )
        language = body.get("language")
        if language is not None and not isinstance(language, str):
            raise RequestError("language: expected a string such as 'en' or 'zh'", param="language")
        try:
            chunks = [chunk async for chunk in ready().speak(text, language)]
        except VoiceUnavailable as err:
            return unavailable(str(err))
        audio = join(chunks)
        if fmt == "pcm":
            return web.Response(body=to_pcm16(audio, 24000).pcm, content_type="audio/pcm")
        return web.Response(body=wav_bytes(audio), content_type="audio/wav")

    async def spoken_turn(request: web.Request) -> web.StreamResponse:
        try:
            service = ready()
            audio, fields = await _audio_of(request)
            heard = await service.transcribe(audio, fields.get("language") or None)
        except VoiceUnavailable as err:
            return unavailable(str(err))
        if not heard.text:
            raise RequestError("audio: no speech was recognised in it", param="file")
        device = fields.get("device_id") or request.remote or ""
        answer, failure = "", ""
        async with channel.turn(heard.text, device_id=device, member=member_of(request, fields.get("member", ""))) as turn:
            async for event in turn:
                if isinstance(event, TurnDone):
                    answer = event.text
                elif isinstance(event, TurnFailed):
                    failure = event.message
        if failure or not answer.strip():
            return error_response(502, f"the turn failed: {failure or 'no answer'}", code="turn_failed")
        try:
            chunks = [chunk async for chunk in service.speak(answer, None)]
        except VoiceUnavailable as err:
            return unavailable(str(err))
        headers = {
            "X-Transcript": quote(heard.text, safe=" ,.?!'"),
            "X-Answer": quote(answer, safe=" ,.?!'"),
            "X-Language": heard.language,
        }
        return web.Response(body=wav_bytes(join(chunks)), content_type="audio/wav", headers=headers)

    web_app.router.add_post("/v1/audio/transcriptions", transcriptions)
    web_app.router.add_post("/v1/audio/speech", speech)
    web_app.router.add_post("/api/voice", spoken_turn)


def _dumps(obj: Any) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False)


# -- the routes' part of the OpenAPI document (merged by homeagent/api/openapi.py) ------

_ERROR = {"$ref": "#/components/schemas/Error"}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ERROR}}}


_UPLOAD = {
    "multipart/form-data": {"schema": {
        "type": "object", "required": ["file"],
        "properties": {
            "file": {"type": "string", "format": "binary", "description": "PCM WAV"},
            "language": {"type": "string", "enum": ["en", "zh"]},
            "model": {"type": "string"},
            "response_format": {"type": "string", "enum": list(_TEXT_FORMATS)},
        },
    }},
}
_VOICE_ERRORS = {
    "400": _error("not a PCM WAV, or a bad field"), "401": _error("missing or invalid token"),
    "413": _error("body too large"), "429": _error("rate limited"),
    "503": _error("speech is not available here (the voice extra is missing, or an engine failed)"),
}
OPENAPI_PATHS: dict[str, Any] = {
    "/v1/audio/transcriptions": {"post": {
        "summary": "Speech to text (OpenAI-shaped)",
        "requestBody": {"required": True, "content": _UPLOAD},
        "responses": {
            "200": {"description": "the transcript", "content": {
                "application/json": {"schema": {"type": "object", "required": ["text"], "properties": {
                    "text": {"type": "string"}, "language": {"type": "string"},
                    "duration": {"type": "number"}, "model": {"type": "string"}}}},
                "text/plain": {"schema": {"type": "string"}},
            }},
            **_VOICE_ERRORS,
        },
    }},
    "/v1/audio/speech": {"post": {
        "summary": "Text to speech (OpenAI-shaped)",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["input"],
            "properties": {
                # Something to speak: whitespace alone is refused (400).
                "input": {"type": "string", "minLength": 1, "maxLength": MAX_INPUT_CHARS, "pattern": NOT_BLANK},
                "model": {"type": "string"}, "voice": {"type": "string"},
                "language": {"type": "string", "enum": ["en", "zh"]},
                "response_format": {"type": "string", "enum": list(_AUDIO_FORMATS)},
            },
        }}}},
        "responses": {
            "200": {"description": "the spoken input", "content": {
                "audio/wav": {"schema": {"type": "string", "format": "binary"}},
                "audio/pcm": {"schema": {"type": "string", "format": "binary"}},
            }},
            **_VOICE_ERRORS,
        },
    }},
    "/api/voice": {"post": {
        "summary": "One spoken turn: a WAV in, the spoken answer out",
        "parameters": [
            {"name": "language", "in": "query", "required": False, "schema": {"type": "string", "enum": ["en", "zh"]}},
            {"name": "device_id", "in": "query", "required": False, "schema": {"type": "string"}},
        ],
        "requestBody": {"required": True, "content": {
            "audio/wav": {"schema": {"type": "string", "format": "binary"}}, **_UPLOAD,
        }},
        "responses": {
            "200": {
                "description": "the spoken answer; X-Transcript and X-Answer carry the texts (percent-encoded UTF-8)",
                "content": {"audio/wav": {"schema": {"type": "string", "format": "binary"}}},
            },
            "502": _error("the turn failed"),
            **_VOICE_ERRORS,
        },
    }},
}
