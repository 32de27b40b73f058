"""Write the prompts `bench/ttft.py` measures, as the engine is sent them, to a JSON file.

Run it in two trees and compare the files to see whether a change altered a byte of what
the local engine evaluates (the stable prefix, turn 1, turn 2), e.g.:

    PYTHONPATH=OLD .venv/bin/python OLD/bench/dump_prompts.py OLD /tmp/old.json
    PYTHONPATH=NEW .venv/bin/python NEW/bench/dump_prompts.py NEW /tmp/new.json

The date line changes by the minute, so it is masked.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def main() -> int:
    root, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    sys.path[:0] = [str(root / "bench"), str(root)]
    import ttft

    from homeagent.llm.models import bundled_model_path

    prompts = ttft.build_prompts(root / "personal.md", bundled_model_path(), 4096, root / "config/homeagent.yaml")

    def mask(text: str) -> str:
        return re.sub(r"Current date and time[^\n]*", "Current date and time: X", text)

    kept = {k: mask(prompts[k]) for k in ("prefix", "prompt1", "prompt2")}
    out.write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: len(v) for k, v in kept.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
