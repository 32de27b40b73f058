"""The local engine: llama.cpp through llama-cpp-python, streaming from a worker thread.

A llama.cpp context is not thread-safe, so one generation runs at a time per loaded
model (an anyio lock on the loop side, a threading lock on the worker side). Tokens
stream back to the event loop as they are sampled; closing the stream sets a stop flag
that the sampler checks after every token, so cancellation takes effect within one
token.

KV-cache reuse: llama-cpp-python re-evaluates only the part of a prompt that differs
from the tokens already in the context, and HomeAgent's prompt puts its stable part
(personality, and for the `[ACTION]` dialect its instructions and examples) first. `prime()` evaluates that stable prefix once
and saves the evaluated state in the data dir, keyed by the model and the exact prefix
tokens, so a restart loads it instead of paying for the prefix again.

Between turns `warm()` evaluates the conversation as the next prompt will start (the
stable prefix and the history with the answer just given), in small batches that stop
as soon as a request arrives; so the next turn pays only for its own part, and the
session state saved at shutdown is the one the next start's first turn continues.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

import anyio
import numpy as np

from homeagent.errors import ModelError
from homeagent.llm.base import (
    ChatRequest,
    Message,
    ProviderBase,
    ProviderEvent,
    ProviderStatus,
    StreamDone,
    StreamError,
    TextDelta,
    ToolDef,
    Usage,
    Warmed,
)
from homeagent.log import get_logger

log = get_logger("homeagent.llm.llama_cpp")

_STATE_MAGIC = b"HASTATE1"
_PREFIX_SLACK = 4  # tokens at the prefix's end that may tokenise differently in context
_PREFIX_MARK = "\u2063HOMEAGENT_PREFIX_END\u2063"
_WARM_BATCH = 32  # tokens per step of warm(): a request waits at most one step (~0.5 s at 60 tok/s)
_PRIME_BATCH = 128  # tokens per step of prime(): a stop during the start waits at most one step



class LlamaCppProvider(ProviderBase):
    name = "llama_cpp"
    supports_tools = False
    supports_grammar = True

    def __init__(
        self,
        *,
        model_path: Path,
        model: str,
        n_ctx: int = 4096,
        n_threads: int = 0,
        n_batch: int = 512,
        temperature: float = 0.7,
        top_p: float = 0.9,
        repeat_penalty: float = 1.1,
        max_tokens: int = 512,
        seed: int = -1,
        state_dir: Path | None = None,
    ):
        self.model = model
        self.model_path = Path(model_path)
        self._n_ctx = n_ctx
        self._n_threads = n_threads or _auto_threads()
        self._n_batch = n_batch
        self._temperature = temperature
        self._top_p = top_p
        self._repeat_penalty = repeat_penalty
        self._max_tokens = max_tokens
        self._seed = seed
        self._state_dir = state_dir
        self._llm: Any = None
        self._template: Any = None
        self._eos = self._bos = ""
        self._lock = anyio.Lock()
        self._thread_lock = threading.Lock()
        self._state = "loading"
        self._detail = ""
        self.prefix_tokens = 0
        self.prefix_source = "none"  # none | evaluated | restored
        self._warming: threading.Event | None = None  # set: the running warm() stops
        self._token_head: tuple[str, list[int]] = ("", [])  # see _tokens_for()
        self._split_tokens: bool | None = None  # head + tail == whole, once checked
        self._opening: str | None = None  # what the template writes before a user's words
        self._preloading: threading.Thread | None = None  # preload(): the load in its own thread
        self._preload_error: Exception | None = None
        self._restored_ids: list[int] | None = None  # a session state preload() put in the context

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        if self._preloading is not None:  # preload() is loading it: wait for that
            thread, self._preloading = self._preloading, None
            await anyio.to_thread.run_sync(thread.join)
            if self._preload_error is not None:
                raise self._preload_error
            return
        await anyio.to_thread.run_sync(self._load)

    def preload(self) -> None:
        """Begin loading now, in a thread of its own: the model, and into it the session
        state the last stop saved. `homeagent serve` calls this before it imports the rest
        of the daemon, so the engine loads while Python imports (llama.cpp does its work
        without the GIL). `start()` then waits for this load instead of doing its own, and
        `prime()` only checks the restored tokens against the stable prefix."""
        if self._preloading is None and self._llm is None:
            # Imported here, not in the thread: its Python (a tenth of a second) is then
            # done before the daemon's imports begin instead of sharing the interpreter
            # with them, and the load, which does not need it, begins that much sooner.
            import llama_cpp  # noqa: F401

            self._preloading = threading.Thread(target=self._preload_sync, name="llama-preload", daemon=True)
            self._preloading.start()

    def preloaded(self, timeout: float = 60.0) -> None:
        """Wait for a load preload() began (a failed start waits for it before it exits,
        so the loading thread does not die with the interpreter mid-load)."""
        thread = self._preloading
        if thread is not None:
            thread.join(timeout)

    def _preload_sync(self) -> None:
        try:
            self._load()
        except Exception as err:  # noqa: BLE001 - raised by start(), as its own load would
            self._preload_error = err
            return
        path = self._session_path()
        if path is None or not path.is_file():
            return
        started = time.monotonic()
        with self._thread_lock:
            try:
                ids, state = self._read_state(path)
                self._put_state(ids, state)
            except (OSError, ValueError, RuntimeError) as err:
                log.info("llm.session_state.unusable", path=str(path), error=str(err))
                path.unlink(missing_ok=True)
                self._llm.reset()
                return
            self._restored_ids = ids.tolist()
        log.info("llm.session_state.loaded", tokens=len(ids),
                 duration_ms=round((time.monotonic() - started) * 1000, 1))

    def _load(self) -> None:
        if not self.model_path.is_file():
            self._state, self._detail = "error", f"model file {self.model_path} missing"
            raise ModelError(f"model file {self.model_path} does not exist")
        from llama_cpp import Llama

        from homeagent.llm import llama_log

        llama_log.install()
        started = time.monotonic()
        try:
            llm = Llama(
                model_path=str(self.model_path),
                n_ctx=self._n_ctx,
                n_threads=self._n_threads,
                n_threads_batch=self._n_threads,
                n_batch=self._n_batch,
                seed=self._seed if self._seed >= 0 else 0xFFFFFFFF,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as err:
            self._state, self._detail = "error", str(err)
            raise ModelError(f"model file {self.model_path} cannot be loaded: {err}") from err
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            self._state, self._detail = "error", "no chat template"
            raise ModelError(f"model {self.model_path} has no chat template in its metadata")
        vocab = llm._model
        self._eos = vocab.token_get_text(llm.token_eos())
        self._bos = vocab.token_get_text(llm.token_bos())
        self._template = _compile_template(template)
        self._llm = llm
        self._state = "ready"
        log.info(
            "llm.model.loaded",
            model=self.model,
            path=str(self.model_path),
            n_ctx=self._n_ctx,
            n_threads=self._n_threads,
            duration_ms=round((time.monotonic() - started) * 1000, 1),
        )

    async def aclose(self) -> None:
        self._halt_warm()
        async with self._lock:
            llm, self._llm = self._llm, None
            if llm is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self._save_session, llm)
                    await anyio.to_thread.run_sync(llm.close)
            self._state = "loading"

    def _session_path(self) -> Path | None:
        return self._state_dir / f"session-{self._state_key([])}.bin" if self._state_dir else None

    def _save_session(self, llm: Any) -> None:
        """Keep the whole evaluated context (prefix and conversation) for the next start,
        so its first turn does not pay for the history again."""
        path = self._session_path()
        if path is None or llm.n_tokens <= self.prefix_tokens:
            return
        started = time.monotonic()
        try:
            with self._thread_lock:
                self._save(path, llm.save_state(), prune="session-*.bin")
        except (OSError, RuntimeError) as err:
            log.warning("llm.session_state.save_failed", path=str(path), error=str(err))
            return
        log.info("llm.session_state.saved", tokens=int(llm.n_tokens),
                 duration_ms=round((time.monotonic() - started) * 1000, 1))

    def status(self) -> ProviderStatus:
        return ProviderStatus(
            self.name,
            self.model,
            self._state,  # type: ignore[arg-type]
            self._detail,
            {
                "path": str(self.model_path),
                "n_ctx": self._n_ctx,
                "n_threads": self._n_threads,
                "prefix_tokens": self.prefix_tokens,
                "prefix_source": self.prefix_source,
            },
        )

    # -- prompt rendering ---------------------------------------------------------------

    def render(self, messages: Sequence[Message], generation: bool = True) -> tuple[str, list[str]]:
        """The prompt text through the model's own chat template, and its stop strings."""
        prompt = self._template.render(
            messages=[{"role": m.role, "content": m.content} for m in messages],
            add_generation_prompt=generation,
            eos_token=self._eos,
            bos_token=self._bos,
        )
        return prompt, [self._eos] if self._eos else []

    def _user_opening(self) -> str:
        """What the chat template writes before a user's words ("<|im_start|>user\\n"). A
        preparation ends with it: the next message is most often the user's, whose turn
        then evaluates only its words; when the turn brings system sections of its own
        first, the engine reuses the state up to where they differ, so nothing is lost.
        "" when the template does not render it as a plain continuation."""
        if self._opening is None:
            mark = "\u2063HOMEAGENT_USER\u2063"
            system = Message("system", "-")
            before, _ = self.render([system], generation=False)
            after, _ = self.render([system, Message("user", mark)], generation=False)
            at = after.find(mark)
            self._opening = after[len(before) : at] if after.startswith(before) and at >= len(before) else ""
        return self._opening

    def _tokenize(self, text: str) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8"), special=True)

    def _tokens_for(self, prompt: str) -> list[int]:
        """The prompt's tokens; a head already tokenised for an earlier prompt (the prepared
        history, up to its last end-of-message token) is not tokenised again. Special
        tokens split the text before it is tokenised, so head + tail gives the same tokens
        as the whole; checked once against the whole, and never used if it did not."""
        head, ids = self._token_head
        if self._split_tokens is not False and head and prompt.startswith(head):
            tail = self._llm.tokenize(prompt[len(head) :].encode("utf-8"), add_bos=False, special=True)
            tokens = ids + tail
            if self._split_tokens is None:
                self._split_tokens = tokens == self._tokenize(prompt)
                if not self._split_tokens:
                    log.info("llm.tokens.split_unsupported", model=self.model)
                    tokens = self._tokenize(prompt)
        else:
            tokens = self._tokenize(prompt)
        eos_id = self._llm.token_eos()
        cut = prompt.rfind(self._eos) if self._eos else -1
        if cut >= 0 and eos_id in tokens:
            last = len(tokens) - 1 - tokens[::-1].index(eos_id)
            self._token_head = (prompt[: cut + len(self._eos)], tokens[: last + 1])
        return tokens

    # -- the stable prefix --------------------------------------------------------------

    async def prime(self, stable_prefix: str, tools: Sequence[ToolDef] = ()) -> None:
        """Evaluate (or restore) the state of the prompt's stable prefix."""
        if self._llm is None or not stable_prefix:
            return
        halt, done = threading.Event(), threading.Event()
        async with self._lock:
            try:
                await anyio.to_thread.run_sync(self._prime_sync, stable_prefix, halt, done, abandon_on_cancel=True)
            except anyio.get_cancelled_exc_class():
                # The daemon stops while it warms: the evaluation ends within one batch,
                # and the engine is not touched again before it has.
                halt.set()
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(done.wait)
                raise

    def _prime_sync(self, stable_prefix: str, halt: threading.Event, done: threading.Event) -> None:
        try:
            self._prime_locked(stable_prefix, halt)
        finally:
            done.set()

    def _prime_locked(self, stable_prefix: str, halt: threading.Event) -> None:
        rendered, _ = self.render([Message("system", stable_prefix + _PREFIX_MARK)], generation=False)
        cut = rendered.find(_PREFIX_MARK)
        if cut < 0:
            return
        tokens = self._tokenize(rendered[:cut])
        llm = self._llm
        started = time.monotonic()
        key = self._state_key(tokens)
        path = self._state_dir / f"prefix-{key}.bin" if self._state_dir else None
        with self._thread_lock:
            session = self._session_path()
            preloaded, self._restored_ids = self._restored_ids, None
            if preloaded is not None:  # preload() put the saved session in the context
                if _starts_with(preloaded, tokens):
                    self.prefix_tokens, self.prefix_source = len(tokens), "restored"
                    log.info("llm.session_state.restored", tokens=len(preloaded), preloaded=True,
                             duration_ms=round((time.monotonic() - started) * 1000, 1))
                    return
                log.info("llm.session_state.unusable", path=str(session),
                         error="state does not start with the prefix tokens")
                if session is not None:
                    session.unlink(missing_ok=True)
                llm.reset()
            if session is not None and session.is_file():
                try:
                    n = self._restore(session, tokens)
                    self.prefix_tokens, self.prefix_source = len(tokens), "restored"
                    log.info(
                        "llm.session_state.restored",
                        tokens=n,
                        duration_ms=round((time.monotonic() - started) * 1000, 1),
                    )
                    return
                except (OSError, ValueError, RuntimeError) as err:
                    # A session of another prefix (the personality changed) is stale.
                    log.info("llm.session_state.unusable", path=str(session), error=str(err))
                    session.unlink(missing_ok=True)
            if path is not None and path.is_file():
                try:
                    self._restore(path, tokens)
                    self.prefix_tokens, self.prefix_source = len(tokens), "restored"
                    log.info(
                        "llm.prefix_state.restored",
                        tokens=len(tokens),
                        duration_ms=round((time.monotonic() - started) * 1000, 1),
                    )
                    return
                except (OSError, ValueError, RuntimeError) as err:
                    log.warning("llm.prefix_state.unusable", path=str(path), error=str(err))
                    path.unlink(missing_ok=True)
            llm.reset()
            for i in range(0, len(tokens), _PRIME_BATCH):
                if halt.is_set():
                    llm.n_tokens = 0  # a part of the prefix is no state worth keeping
                    log.info("llm.prefix_state.halted", tokens=i, of=len(tokens))
                    return
                llm.eval(tokens[i : i + _PRIME_BATCH])
            self.prefix_tokens, self.prefix_source = len(tokens), "evaluated"
            evaluated_ms = round((time.monotonic() - started) * 1000, 1)
            if path is not None:
                try:
                    self._save(path, llm.save_state())
                except OSError as err:
                    log.warning("llm.prefix_state.save_failed", path=str(path), error=str(err))
            log.info("llm.prefix_state.evaluated", tokens=len(tokens), duration_ms=evaluated_ms)

    # -- between turns ------------------------------------------------------------------

    def _halt_warm(self) -> None:
        if self._warming is not None:
            self._warming.set()

    async def warm(self, messages: Sequence[Message], tools: Sequence[ToolDef] = ()) -> Warmed | None:
        """Evaluate `messages` (no generation prompt) into the context while idle, so a
        next prompt that starts with them evaluates only the rest. A request arriving
        meanwhile stops it within one small batch; what was evaluated is kept."""
        if self._llm is None or not messages:
            return None
        prompt, _ = self.render(messages, generation=False)
        if messages[-1].role != "user":
            prompt += self._user_opening()
        self._halt_warm()
        halt = self._warming = threading.Event()
        async with self._lock:
            if halt.is_set():
                return None  # a request came first; the next warm() is the current one
            return await anyio.to_thread.run_sync(self._warm_sync, prompt, halt)

    def _warm_sync(self, prompt: str, halt: threading.Event) -> Warmed | None:
        llm = self._llm
        started = time.monotonic()
        with self._thread_lock:
            tokens = self._tokens_for(prompt)
            if len(tokens) > self._n_ctx - 64:
                return None  # the next turn must drop history anyway; nothing to prepare
            cached = llm.longest_token_prefix(llm._input_ids.tolist(), tokens)
            if cached < len(tokens):
                llm.n_tokens = cached  # eval() drops the KV cells from here on
                for i in range(cached, len(tokens), _WARM_BATCH):
                    if halt.is_set():
                        break
                    llm.eval(tokens[i : i + _WARM_BATCH])
            done = Warmed(cached, int(llm.n_tokens) - cached, len(tokens), halt.is_set())
        log.debug("llm.warmed", reused=done.reused, evaluated=done.evaluated, of=done.total,
                  halted=done.halted, duration_ms=round((time.monotonic() - started) * 1000, 1))
        return done

    def _state_key(self, tokens: list[int]) -> str:
        stat = self.model_path.stat()
        h = hashlib.sha256()
        h.update(f"{self.model_path.resolve()}|{stat.st_size}|{int(stat.st_mtime)}|{self._n_ctx}|{self._n_batch}".encode())
        h.update(np.asarray(tokens, dtype=np.int32).tobytes())
        return h.hexdigest()[:32]

    def _save(self, path: Path, state: Any, prune: str = "prefix-*.bin") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        header = json.dumps({"n_tokens": int(state.n_tokens), "size": int(state.llama_state_size)}).encode()
        ids = np.asarray(state.input_ids[: state.n_tokens], dtype=np.int32).tobytes()
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            fh.write(_STATE_MAGIC + len(header).to_bytes(4, "little") + header + ids + state.llama_state)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        for stale in path.parent.glob(prune):
            if stale != path:
                stale.unlink(missing_ok=True)

    def _restore(self, path: Path, tokens: list[int]) -> int:
        """Load a saved state whose tokens start with `tokens`; returns its token count."""
        ids, state = self._read_state(path)
        if not _starts_with(ids.tolist(), tokens):
            raise ValueError("state does not start with the prefix tokens")
        self._put_state(ids, state)
        return len(ids)

    def _read_state(self, path: Path) -> tuple[np.ndarray, bytes]:
        """A saved state file's tokens and llama.cpp state, checked for shape."""
        blob = path.read_bytes()
        if not blob.startswith(_STATE_MAGIC):
            raise ValueError("not a HomeAgent prefix state file")
        hlen = int.from_bytes(blob[8:12], "little")
        header = json.loads(blob[12 : 12 + hlen])
        n = int(header["n_tokens"])
        ids_end = 12 + hlen + 4 * n
        ids = np.frombuffer(blob[12 + hlen : ids_end], dtype=np.int32)
        if len(ids) != n or n > self._n_ctx:
            raise ValueError("state file is truncated")
        state_bytes = blob[ids_end:]
        if len(state_bytes) != int(header["size"]):
            raise ValueError("state file is truncated")
        return ids, state_bytes

    def _put_state(self, ids: np.ndarray, state_bytes: bytes) -> None:
        from llama_cpp.llama import LlamaState

        llm = self._llm
        n = len(ids)
        input_ids = np.zeros(self._n_ctx, dtype=np.intc)
        input_ids[:n] = ids
        llm.load_state(
            LlamaState(
                input_ids=input_ids,
                scores=np.zeros((1, llm.n_vocab()), dtype=np.single),
                n_tokens=n,
                llama_state=state_bytes,
                llama_state_size=len(state_bytes),
                seed=llm._seed,
            )
        )

    # -- generation ---------------------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        if self._llm is None:
            yield StreamError("the local model is not loaded", retryable=True, kind="not_loaded")
            return
        self._halt_warm()
        prompt, stop = self.render(request.messages)
        send, receive = anyio.create_memory_object_stream[ProviderEvent](float("inf"))
        halt = threading.Event()
        handoff = _Handoff(send, halt)
        max_tokens = request.max_tokens or self._max_tokens
        temperature = self._temperature if request.temperature is None else request.temperature
        stop_strings = list(dict.fromkeys([*stop, *request.stop]))
        grammar = None
        if request.grammar:
            from llama_cpp import LlamaGrammar

            try:
                grammar = LlamaGrammar.from_string(request.grammar, verbose=False)
            except (ValueError, RuntimeError) as err:
                yield StreamError(f"the reply grammar does not compile: {err}", kind="bad_grammar")
                return
            # A grammar fixes the shape; sampling greedily without a repetition penalty
            # keeps the JSON punctuation it needs from being penalised.
            temperature = 0.0
        async with self._lock:
            worker = threading.Thread(
                target=self._generate_sync,
                args=(prompt, stop_strings, max_tokens, temperature, halt, handoff, grammar),
                name="llama-generate",
                daemon=True,
            )
            worker.start()
            try:
                async with receive:
                    async for event in receive:
                        yield event
            finally:
                halt.set()
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(worker.join)

    def _generate_sync(self, prompt, stop, max_tokens, temperature, halt, handoff, grammar=None) -> None:
        put = handoff.put
        from llama_cpp import StoppingCriteriaList

        generated = 0

        def should_stop(_ids: Any, _logits: Any) -> bool:
            nonlocal generated
            generated += 1
            return halt.is_set()

        llm = self._llm
        try:
            with self._thread_lock:
                tokens = self._tokens_for(prompt)
                room = self._n_ctx - len(tokens)
                if room < 16:
                    put(StreamError(
                        f"prompt of {len(tokens)} tokens does not fit the context of {self._n_ctx}",
                        kind="context_overflow",
                    ))
                    return
                cached = llm.longest_token_prefix(llm._input_ids.tolist(), tokens)
                finish = "stop"
                for chunk in llm.create_completion(
                    tokens,
                    stream=True,
                    max_tokens=min(max_tokens, room),
                    temperature=temperature,
                    top_p=self._top_p,
                    repeat_penalty=1.0 if grammar is not None else self._repeat_penalty,
                    grammar=grammar,
                    stop=stop,
                    seed=self._seed if self._seed >= 0 else None,
                    stopping_criteria=StoppingCriteriaList([should_stop]),
                ):
                    choice = chunk["choices"][0]
                    if choice["text"] and not put(TextDelta(choice["text"])):
                        break
                    if choice.get("finish_reason") == "length":
                        finish = "length"
                    elif choice.get("finish_reason") == "stop":
                        # The end-of-generation token was sampled but is not output.
                        generated = max(0, generated - 1)
                    if halt.is_set():
                        finish = "cancelled"
                        break
            # llama-cpp-python consults the stopping criteria once per sampled token and
            # once more after its loop; the end-of-generation token is sampled, not output.
            generated = max(0, generated - 1)
            put(Usage(prompt_tokens=len(tokens), completion_tokens=generated, cached_tokens=cached))
            put(StreamDone(finish))  # type: ignore[arg-type]
        except Exception as err:  # noqa: BLE001 - reported to the agent as a stream error
            log.exception("llm.generate.failed")
            put(StreamError(f"local generation failed: {type(err).__name__}: {err}", kind="engine_error"))
        finally:
            handoff.close()


class _Handoff:
    """Passes events from the generating thread to the event loop without waiting for the
    loop: the sampler never stalls behind a loop busy writing the previous token out (a
    blocking hand-off per token cost about 8 % of the tokens/s). Events keep their order;
    a consumer that has gone away sets `halt`, which the sampler checks every token."""

    def __init__(self, send: Any, halt: threading.Event):
        self._loop = asyncio.get_running_loop()
        self._send = send
        self._halt = halt

    def _deliver(self, event: ProviderEvent) -> None:
        try:
            self._send.send_nowait(event)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._halt.set()

    def put(self, event: ProviderEvent) -> bool:
        if self._halt.is_set():
            return False
        try:
            self._loop.call_soon_threadsafe(self._deliver, event)
        except RuntimeError:  # the loop is closed
            self._halt.set()
            return False
        return True

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._send.close)


def _starts_with(ids: list[int], tokens: list[int]) -> bool:
    """Does a saved state begin with the prefix `tokens`? The prefix alone may end in a
    token that merges differently inside a longer text; a state that agrees on all but
    the last few tokens is still the same prefix."""
    head = ids[: len(tokens)]
    common = next((i for i, (a, b) in enumerate(zip(head, tokens, strict=False)) if a != b), len(head))
    return len(ids) >= len(tokens) and common >= max(1, len(tokens) - _PREFIX_SLACK)


def _auto_threads() -> int:
    """Threads for `n_threads: 0`: every usable core but one, at least one.

    llama.cpp's OpenMP workers spin while they wait, so with one worker per core the
    daemon's own event loop (HTTP, token hand-off) competes with them for a core. On the
    2-core target this measured slower for HomeAgent than one thread (bench/ttft.py,
    docs/benchmarks.md); the in-process engine alone gains little from the second core
    when the machine is shared.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def _compile_template(source: str) -> Any:
    """The GGUF's chat template in a sandboxed Jinja environment, as llama.cpp servers do."""
    from jinja2 import BaseLoader
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise ValueError(f"chat template error: {message}")

    env = ImmutableSandboxedEnvironment(loader=BaseLoader(), trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(source)
