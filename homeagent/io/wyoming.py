"""HomeAgent as a Wyoming service: Home Assistant's voice protocol, as a channel.

A Wyoming peer (Home Assistant, a satellite) connects over TCP and sends events: one
JSON header line, then `data_length` bytes of JSON data, then `payload_length` bytes of
payload (the `wyoming` package's own framing is used). This adapter answers:

  describe                      → info: a `handle` program (the agent, zh and en) and,
                                  with the voice extra, `asr` and `tts` programs
  transcript {text, context}    → handled {text} with the agent's answer, or
                                  not-handled {text} with a short reason; with
                                  `io.wyoming.stream` the answer streams as
                                  handled-start / handled-chunk… / handled-stop
  transcribe + audio-start/chunk…/stop → transcript (speech to text)
  synthesize {text, voice}      → audio-start / audio-chunk… / audio-stop

A transcript is a turn like any other: an `Interrupt` on the agent's inbox, serialized
with every other channel; its device is the satellite (`context.satellite_id`, else
`context.device_id`, else the peer's address). `deliver` announces a message the agent
starts itself (a reminder) on the satellites named in `io.wyoming.satellites`: it
connects to each and sends the spoken message as audio events, or a `synthesize` event
when this daemon has no voice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, async_read_event, async_write_event
from wyoming.handle import Handled, HandledChunk, HandledStart, HandledStop, NotHandled
from wyoming.info import (
    AsrModel,
    AsrProgram,
    Attribution,
    Describe,
    HandleModel,
    HandleProgram,
    Info,
    TtsProgram,
    TtsVoice,
)
from wyoming.ping import Ping, Pong
from wyoming.tts import Synthesize

from homeagent import __version__
from homeagent.config import WyomingConfig
from homeagent.errors import RequestError
from homeagent.io.channel import Capabilities, OutboundMessage
from homeagent.io.events import AnswerDelta, TurnDone, TurnFailed
from homeagent.io.interrupt import Inbox, Interrupt, ReplyHandle
from homeagent.io.registry import DeviceRegistry
from homeagent.io.turn import open_turn
from homeagent.log import get_logger
from homeagent.voice import Audio, VoiceService, VoiceUnavailable

log = get_logger("homeagent.io.wyoming")

URL = "https://github.com/homeagent/homeagent"
MAX_LINE = 64 * 1024
SAMPLES_PER_CHUNK = 1024
# What a not-handled reply says, by the kind of failure: short, for a speaker.
_REASONS = {"timeout": "The answer took too long.", "cancelled": "The request was cancelled."}


class _Reader:
    """asyncio.StreamReader's `readline`/`readexactly` over an anyio byte stream."""

    def __init__(self, stream: SocketStream) -> None:
        self._buffered = BufferedByteReceiveStream(stream)

    async def readline(self) -> bytes:
        try:
            return await self._buffered.receive_until(b"\n", MAX_LINE) + b"\n"
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._buffered.receive_exactly(n)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError) as err:
            raise ValueError("the peer closed the connection inside an event") from err


class _Writer:
    """asyncio.StreamWriter's `writelines`/`write`/`drain` over an anyio byte stream."""

    def __init__(self, stream: SocketStream) -> None:
        self._stream = stream
        self._pending: list[bytes] = []

    def writelines(self, parts: Any) -> None:
        self._pending.extend(parts)

    def write(self, data: bytes) -> None:
        self._pending.append(data)

    async def drain(self) -> None:
        data, self._pending = b"".join(self._pending), []
        await self._stream.send(data)


class Connection:
    """One peer's events in and out, framed by the `wyoming` package."""

    def __init__(self, stream: SocketStream) -> None:
        self.stream = stream
        self._reader = _Reader(stream)
        self._writer = _Writer(stream)

    async def read(self) -> Event | None:
        # async_read_event takes asyncio streams; ours has the same two methods.
        return await async_read_event(self._reader)  # type: ignore[arg-type]

    async def write(self, event: Event) -> None:
        await async_write_event(event, self._writer)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Satellite:
    name: str
    host: str
    port: int


def parse_satellites(entries: tuple[str, ...]) -> dict[str, Satellite]:
    """`name=tcp://host:port` entries (validated by the config) by name."""
    out: dict[str, Satellite] = {}
    for entry in entries:
        name, _, uri = entry.partition("=")
        host, _, port = uri.removeprefix("tcp://").rpartition(":")
        out[name] = Satellite(name=name, host=host, port=int(port))
    return out


def device_of(context: dict[str, Any] | None, peer: str) -> str:
    """The satellite that spoke: Home Assistant's context names it, else the peer's address."""
    for key in ("satellite_id", "device_id"):
        value = (context or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return peer


def reason_of(failure: TurnFailed) -> str:
    return _REASONS.get(failure.kind, "Sorry, I could not answer that.")


class WyomingChannel:
    name = "wyoming"

    def __init__(
        self,
        inbox: Inbox,
        devices: DeviceRegistry,
        settings: WyomingConfig,
        voice: VoiceService | None = None,
        *,
        max_audio_seconds: float = 60.0,
    ) -> None:
        self._inbox = inbox
        self._devices = devices
        self._settings = settings
        self._voice = voice
        self._max_audio_bytes = int(max_audio_seconds * 16000 * 2 * 2)
        self.satellites = parse_satellites(settings.satellites)
        self.capabilities = Capabilities(
            streams=settings.stream, confirms=False, receives_unasked=bool(self.satellites)
        )
        self.port = 0

    # -- describe ------------------------------------------------------------------

    def _speech_ready(self) -> bool:
        return self._voice is not None and self._voice.missing() is None

    def info(self) -> Info:
        who = Attribution(name="HomeAgent", url=URL)
        handle = HandleProgram(
            name="homeagent", attribution=who, installed=True, version=__version__,
            description="HomeAgent: the household's assistant, one agent for every device",
            models=[HandleModel(
                name="homeagent", attribution=who, installed=True, version=__version__,
                description="The HomeAgent conversation agent", languages=["zh", "en"],
            )],
            supports_handled_streaming=self._settings.stream, supports_home_control=False,
        )
        info = Info(handle=[handle])
        if self._voice is not None and self._speech_ready():
            asr_models = [
                AsrModel(
                    name=e.info.name, attribution=Attribution(e.info.attribution, e.info.url), installed=True,
                    description=e.info.description, version=e.info.version or None, languages=[language],
                )
                for language, e in self._voice.stt_engines().items()
            ]
            voices = [
                TtsVoice(
                    name=e.info.name, attribution=Attribution(e.info.attribution, e.info.url), installed=True,
                    description=e.info.description, version=e.info.version or None, languages=[language],
                )
                for language, e in self._voice.tts_engines().items()
            ]
            if asr_models:
                info.asr = [AsrProgram(
                    name="homeagent-stt", attribution=who, installed=True, version=__version__,
                    description="HomeAgent speech to text (faster-whisper)", models=asr_models,
                )]
            if voices:
                info.tts = [TtsProgram(
                    name="homeagent-tts", attribution=who, installed=True, version=__version__,
                    description="HomeAgent text to speech (piper, espeak-ng)", voices=voices,
                )]
        return info

    # -- serving -------------------------------------------------------------------

    async def serve(self, *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled; reports the bound port. Every connection is a task of
        this server's task group, so a shutdown closes them all."""
        listener = await anyio.create_tcp_listener(
            local_host=self._settings.host, local_port=self._settings.port, reuse_port=False
        )
        async with listener:
            self.port = int(listener.extra(anyio.abc.SocketAttribute.local_port))
            log.info("wyoming.listening", host=self._settings.host, port=self.port)
            task_status.started(self.port)
            await listener.serve(self._connection)

    async def _connection(self, stream: SocketStream) -> None:
        peer = "peer"
        try:
            address = stream.extra(anyio.abc.SocketAttribute.remote_address)
            peer = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)
        except (TypeError, ValueError, anyio.TypedAttributeLookupError):
            pass
        conn = Connection(stream)
        async with stream:
            try:
                await self._events(conn, peer)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, ConnectionError):
                log.info("wyoming.peer.gone", peer=peer)
            except Exception as err:  # noqa: BLE001 - one bad peer never takes the server down
                log.warning("wyoming.connection.failed", peer=peer, error=repr(err))

    async def _events(self, conn: Connection, peer: str) -> None:
        transcribe: Transcribe | None = None
        audio: list[bytes] = []
        fmt = (16000, 2, 1)
        while True:
            event = await conn.read()
            if event is None:
                return
            if Describe.is_type(event.type):
                await conn.write(self.info().event())
            elif Ping.is_type(event.type):
                await conn.write(Pong(text=Ping.from_event(event).text).event())
            elif Transcript.is_type(event.type):
                await self._answer(conn, Transcript.from_event(event), peer)
            elif Transcribe.is_type(event.type):
                transcribe, audio = Transcribe.from_event(event), []
            elif AudioStart.is_type(event.type):
                start = AudioStart.from_event(event)
                fmt, audio = (start.rate, start.width, start.channels), []
            elif AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                fmt = (chunk.rate, chunk.width, chunk.channels)
                if sum(map(len, audio)) + len(chunk.audio) <= self._max_audio_bytes:
                    audio.append(chunk.audio)
            elif AudioStop.is_type(event.type):
                language = transcribe.language if transcribe else None
                await self._transcribe(conn, Audio(b"".join(audio), *fmt), language)
                transcribe, audio = None, []
            elif Synthesize.is_type(event.type):
                await self._synthesize(conn, Synthesize.from_event(event))
            # Other events are dropped, as the protocol asks of a server.

    async def _answer(self, conn: Connection, transcript: Transcript, peer: str) -> None:
        text = (transcript.text or "").strip()
        if not text:
            await conn.write(NotHandled(text="I heard nothing to answer.").event())
            return
        device = device_of(transcript.context, peer)
        await self._devices.touch(self.name, device)
        interrupt = Interrupt(
            text=text, channel=self.name, reply=ReplyHandle(), device_id=device,
            capabilities=self.capabilities,
        )
        started = False
        async with open_turn(self._inbox, interrupt) as turn:
            async for event in turn:
                if isinstance(event, AnswerDelta) and self._settings.stream and event.text:
                    if not started:
                        await conn.write(HandledStart().event())
                        started = True
                    await conn.write(HandledChunk(text=event.text).event())
                elif isinstance(event, TurnDone):
                    if started:
                        await conn.write(HandledStop().event())
                    elif event.text.strip():
                        await conn.write(Handled(text=event.text).event())
                    else:
                        await conn.write(NotHandled(text="I have no answer to that.").event())
                    log.info("wyoming.handled", device=device, turn_id=turn.turn_id, streamed=started)
                    return
                elif isinstance(event, TurnFailed):
                    reason = reason_of(event)
                    if started:  # the peer already has part of an answer: end it with the reason
                        await conn.write(HandledChunk(text=f" {reason}").event())
                        await conn.write(HandledStop().event())
                    else:
                        await conn.write(NotHandled(text=reason).event())
                    log.info("wyoming.not_handled", device=device, turn_id=turn.turn_id, kind=event.kind)
                    return
        await conn.write(NotHandled(text="The answer was interrupted.").event())

    async def _transcribe(self, conn: Connection, audio: Audio, language: str | None) -> None:
        if self._voice is None:
            await conn.write(Transcript(text="").event())
            return
        try:
            result = await self._voice.transcribe(audio, language)
        except (VoiceUnavailable, RequestError) as err:
            log.warning("wyoming.stt.unavailable", error=str(err))
            await conn.write(Transcript(text="").event())
            return
        await conn.write(Transcript(text=result.text, language=result.language).event())

    async def _synthesize(self, conn: Connection, request: Synthesize) -> None:
        language = request.voice.language if request.voice else None
        if language and language.lower().replace("_", "-").split("-")[0] not in ("en", "zh"):
            language = None  # a language not served: the text's own tells the voice
        if not await self._speak(conn.write, request.text, language):
            await conn.write(Error(text="speech is not available", code="tts-unavailable").event())

    async def _speak(self, write: Callable[[Event], Awaitable[None]], text: str, language: str | None) -> bool:
        """The spoken `text` as audio-start / audio-chunk… / audio-stop; False without a voice."""
        if self._voice is None:
            return False
        started = False
        try:
            async for chunk in self._voice.speak(text, language):
                if not started:
                    await write(AudioStart(rate=chunk.rate, width=chunk.width, channels=chunk.channels).event())
                    started = True
                step = SAMPLES_PER_CHUNK * chunk.width * chunk.channels
                for i in range(0, len(chunk.pcm), step):
                    await write(AudioChunk(
                        rate=chunk.rate, width=chunk.width, channels=chunk.channels, audio=chunk.pcm[i : i + step],
                    ).event())
            if not started:  # nothing to say: still a well-formed (empty) answer
                await write(AudioStart(rate=22050, width=2, channels=1).event())
            await write(AudioStop().event())
            return True
        except (VoiceUnavailable, RequestError) as err:
            log.warning("wyoming.tts.unavailable", error=str(err))
            if started:  # the peer has the start: give it the end
                await write(AudioStop().event())
            return False

    # -- announce ------------------------------------------------------------------

    async def deliver(self, message: OutboundMessage) -> bool:
        """Announce `message` on its satellite (or on every satellite when it names none)."""
        if message.device_id:
            targets = [s for s in self.satellites.values() if message.device_id in (s.name, f"wyoming:{s.name}")]
        else:
            targets = list(self.satellites.values())
        reached = False
        for satellite in targets:
            try:
                reached = await self._announce(satellite, message.text) or reached
            except (OSError, anyio.BrokenResourceError, TimeoutError) as err:
                log.warning("wyoming.announce.failed", satellite=satellite.name, error=repr(err))
        return reached

    async def _announce(self, satellite: Satellite, text: str) -> bool:
        with anyio.fail_after(30):
            stream = await anyio.connect_tcp(satellite.host, satellite.port)
            async with stream:
                conn = Connection(stream)
                spoken = self._speech_ready() and await self._speak(conn.write, text, None)
                if not spoken:
                    # No voice here: the satellite's own pipeline can speak the text.
                    await conn.write(Synthesize(text=text).event())
        log.info("wyoming.announced", satellite=satellite.name, audio=spoken)
        return True
