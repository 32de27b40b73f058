"""The import walk: HomeAgent's modules import along the layers ARCHITECTURE.md draws.

Every module under homeagent/ is parsed with `ast` (nothing is imported or executed);
every import statement counts, at module level, inside a function, or under
`if TYPE_CHECKING:` alike, because each one is a dependency somebody has to reason about.
`from homeagent.x import y` is an edge to `homeagent.x.y` when that is a module, else to
`homeagent.x`. Each rule is its own test, and a failing one lists every offending edge
as `file:line  importer -> imported`, so whoever breaks it knows exactly what to fix.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "homeagent"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE

# -- the architecture, as data ---------------------------------------------------------
# Top to bottom. A module belongs to the layer of the longest prefix that names it
# (`homeagent.io.channel` is io's core even though `homeagent.io` adapters sit higher).
# A module may import its own layer and anything below it; never a layer above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("entry points", ("homeagent.__main__", "homeagent.cli")),  # + every CLI module
    # The one place that knows every piece: it builds them all (the migrations of every
    # package included) and runs the HTTP server among its long-lived tasks.
    ("composition root", ("homeagent.app", "homeagent.doctor", "homeagent.schema")),
    ("http api", ("homeagent.api",)),  # routes get typed dependencies, never the App
    ("channel adapters", ("homeagent.io",)),  # io's adapters: above the agent, never imported by it
    ("agent", ("homeagent.agent", "homeagent.intent")),
    ("services", (  # siblings: they may import each other, without cycles
        "homeagent.io.__init__", "homeagent.io.channel", "homeagent.io.interrupt",  # io's core
        "homeagent.io.events", "homeagent.io.registry",
        "homeagent.llm", "homeagent.tools", "homeagent.actions", "homeagent.memory",
        "homeagent.knowledge", "homeagent.home", "homeagent.voice", "homeagent.schedule",
        "homeagent.ext",
    )),
    ("foundation", ("homeagent.store", "homeagent.config", "homeagent.members", "homeagent.chat")),
    ("ground floor", (  # import nothing from homeagent but each other
        "homeagent.__init__", "homeagent.text", "homeagent.numbers", "homeagent.log",
        "homeagent.clock", "homeagent.errors", "homeagent.systemd", "homeagent.checks",
    )),
)
# The sibling packages of the services layer that may not import each other at all.
NEVER_EACH_OTHER: tuple[tuple[str, str], ...] = (("homeagent.llm", "homeagent.tools"),)
# Third-party modules only one package may import.
THIRD_PARTY_OWNERS: dict[str, str] = {"llama_cpp": "homeagent.llm"}
# The text-protocol adapter at the llm edge: the agent and the tools never see it.
DIALECT = "homeagent.llm.dialect"
DIALECT_BLIND = ("homeagent.agent", "homeagent.tools")
# Nothing of HTTP in the agent: channels and the api speak HTTP, the agent speaks interrupts.
HTTP_BLIND: dict[str, tuple[str, ...]] = {
    "homeagent.agent": ("aiohttp", "homeagent.api"), "homeagent.intent": ("aiohttp", "homeagent.api"),
}
# Command lines live in homeagent.cli (and `python -m homeagent`), not in lower packages.
CLI_HOMES = ("homeagent.cli", "homeagent.__main__")


# -- the walker ------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str  # a homeagent module, or a third-party top-level name
    where: str  # file:line
    how: str = ""  # "", "in function", "TYPE_CHECKING"

    def __str__(self) -> str:
        how = f"  ({self.how})" if self.how else ""
        return f"{self.where}  {self.importer} -> {self.imported}{how}"


@dataclass(frozen=True)
class Source:
    path: str  # shown in reports
    text: str
    is_package: bool = False


def sources_of(root: Path = ROOT) -> dict[str, Source]:
    """Every module of the package by dotted name (a package as `pkg.__init__`)."""
    found: dict[str, Source] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        parts = list(rel.with_suffix("").parts)
        found[".".join(parts)] = Source(str(rel), path.read_text(encoding="utf-8"), parts[-1] == "__init__")
    return found


def _package_of(module: str, source: Source) -> str:
    return module.removesuffix(".__init__") if source.is_package else module.rpartition(".")[0]


def _resolve(name: str, modules: Iterable[str]) -> str | None:
    """A dotted homeagent name as the module that defines it: `a.b` if it is a module,
    `a.b.__init__` if it is a package, else the nearest enclosing one."""
    known = set(modules)
    parts = name.split(".")
    while parts:
        dotted = ".".join(parts)
        for candidate in (dotted, dotted + ".__init__"):
            if candidate in known:
                return candidate
        parts.pop()
    return None


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self, module: str, source: Source, modules: set[str]):
        self.module, self.source, self.modules = module, source, modules
        self.package = _package_of(module, source)
        self.edges: list[Edge] = []
        self._functions = 0
        self._type_checking = 0

    def _how(self) -> str:
        return "TYPE_CHECKING" if self._type_checking else "in function" if self._functions else ""

    def _add(self, target: str, node: ast.stmt | ast.expr) -> None:
        top = target.split(".")[0]
        where = f"{self.source.path}:{node.lineno}"
        if top != PACKAGE:
            self.edges.append(Edge(self.module, top, where, self._how()))
            return
        resolved = _resolve(target, self.modules)
        if resolved is not None and resolved != self.module:
            self.edges.append(Edge(self.module, resolved, where, self._how()))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        guarded = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        if guarded:
            self._type_checking += 1
            for child in node.body:
                self.visit(child)
            self._type_checking -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            parent = ".".join(base + ([node.module] if node.module else []))
        else:
            parent = node.module or ""
        for alias in node.names:
            # `from a import b`: the module a.b when b is one, else (a name in) a itself.
            child = f"{parent}.{alias.name}"
            if parent.split(".")[0] == PACKAGE and _resolve(child, self.modules) in (child, child + ".__init__"):
                self._add(child, node)
            else:
                self._add(parent, node)

    def visit_Call(self, node: ast.Call) -> None:
        # importlib.import_module("homeagent.x") / __import__("x"): lazy imports count too.
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("import_module", "__import__") and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not arg.value.startswith("."):
                self._add(arg.value, node)
        self.generic_visit(node)


def build_graph(sources: Mapping[str, Source]) -> list[Edge]:
    """Every import edge between the given modules (plus third-party top-level names)."""
    modules = set(sources)
    edges: list[Edge] = []
    for module, source in sources.items():
        visitor = _ImportVisitor(module, source, modules)
        visitor.visit(ast.parse(source.text, filename=source.path))
        edges += visitor.edges
    return sorted(set(edges), key=lambda e: (e.where.split(":")[0], int(e.where.split(":")[1]), e.imported))


# -- the rules -------------------------------------------------------------------------


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def is_cli(module: str) -> bool:
    leaf = module.rsplit(".", 1)[-1]
    return leaf == "cli" or leaf.endswith("_cli") or any(_under(module, home) for home in CLI_HOMES)


def layer_of(module: str) -> int | None:
    """The index into LAYERS (0 = top); CLI modules wherever they are sit at the top."""
    if is_cli(module):
        return 0
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _under(module, prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return best[1] if best else None


def _top_package(module: str) -> str:
    """`homeagent.llm.router` -> `homeagent.llm`; `homeagent.app` stays itself."""
    parts = module.split(".")
    return PACKAGE if parts[1] == "__init__" else ".".join(parts[:2])


def _internal(edges: Iterable[Edge], modules: Iterable[str]) -> list[Edge]:
    known = set(modules)
    return [e for e in edges if e.imported in known]


def _strongly_connected(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative; the components with more than one node."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for start in sorted(set(nodes) | set(graph)):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def module_cycles(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    internal = _internal(edges, modules)
    problems = []
    for component in _strongly_connected(modules, [(e.importer, e.imported) for e in internal]):
        names = ", ".join(sorted(component))
        problems.append(f"cycle among {names}:")
        problems += [f"    {e}" for e in internal if e.importer in component and e.imported in component]
    return problems


def package_cycles(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    """Cycles between the sibling packages of one layer (llm -> tools -> llm)."""
    internal = [
        e for e in _internal(edges, modules)
        if _top_package(e.importer) != _top_package(e.imported)
        and layer_of(e.importer) == layer_of(e.imported) and not is_cli(e.importer)
    ]
    pairs = [(_top_package(e.importer), _top_package(e.imported)) for e in internal]
    problems = []
    for component in _strongly_connected({p for pair in pairs for p in pair}, pairs):
        problems.append(f"packages in a cycle: {', '.join(sorted(component))}:")
        problems += [
            f"    {e}" for e in internal
            if _top_package(e.importer) in component and _top_package(e.imported) in component
        ]
    return problems


def upward_imports(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    problems = []
    for e in _internal(edges, modules):
        low, high = layer_of(e.importer), layer_of(e.imported)
        if low is not None and high is not None and high < low:
            problems.append(f"{e}   [{LAYERS[low][0]} imports {LAYERS[high][0]}]")
    return problems


def unplaced_modules(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    return [f"{m}: in no layer of LAYERS; add it to the table" for m in sorted(modules) if layer_of(m) is None]


def forbidden_pairs(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    problems = []
    for e in _internal(edges, modules):
        for a, b in NEVER_EACH_OTHER:
            if (_under(e.importer, a) and _under(e.imported, b)) or (_under(e.importer, b) and _under(e.imported, a)):
                problems.append(str(e))
    return problems


def third_party_owners(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    return [
        f"{e}   [only {owner} may import {e.imported}]"
        for e in edges
        for name, owner in THIRD_PARTY_OWNERS.items()
        if e.imported == name and not _under(e.importer, owner)
    ]


def dialect_blind(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    return [
        str(e) for e in _internal(edges, modules)
        if _under(e.imported, DIALECT) and any(_under(e.importer, p) for p in DIALECT_BLIND)
    ]


def http_blind(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    return [
        str(e) for e in edges
        for importer, banned in HTTP_BLIND.items()
        if _under(e.importer, importer) and any(_under(e.imported, b) for b in banned)
    ]


def cli_placement(edges: list[Edge], modules: Iterable[str]) -> list[str]:
    return [
        f"{m.replace('.', '/')}.py:1  {m} is a command line outside homeagent.cli"
        for m in sorted(modules)
        if is_cli(m) and not any(_under(m, home) for home in CLI_HOMES)
    ]


RULES = {
    "no module cycles": module_cycles,
    "no package cycles within a layer": package_cycles,
    "imports point down": upward_imports,
    "every module has a layer": unplaced_modules,
    "llm and tools never import each other": forbidden_pairs,
    "only homeagent.llm imports llama_cpp": third_party_owners,
    "agent and tools never import llm.dialect": dialect_blind,
    "the agent imports nothing of HTTP": http_blind,
    "command lines live in homeagent.cli": cli_placement,
}


def report(rule: str, problems: list[str]) -> str:
    return f"{rule}: {sum(not p.startswith('    ') for p in problems)} violation(s)\n" + "\n".join(problems)


# -- the tests -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tree() -> tuple[dict[str, Source], list[Edge]]:
    sources = sources_of()
    return sources, build_graph(sources)


@pytest.mark.parametrize("rule", list(RULES))
def test_homeagent_imports_follow_the_layers(rule: str, tree) -> None:
    sources, edges = tree
    problems = RULES[rule](edges, sources)
    if problems:
        pytest.fail(report(rule, problems), pytrace=False)


def test_the_walk_sees_the_whole_package(tree) -> None:
    sources, edges = tree
    assert "homeagent.agent.core" in sources and "homeagent.app" in sources
    assert any(e.importer == "homeagent.app" and e.imported == "homeagent.agent.core" for e in edges)


# -- the walker on a made-up package: it cannot pass by seeing nothing ------------------


def fake(modules: Mapping[str, str]) -> dict[str, Source]:
    """Sources of a made-up package, by dotted name (a package as `x.__init__`)."""
    return {
        name: Source(name.replace(".", "/") + ".py", text, name.endswith(".__init__"))
        for name, text in modules.items()
    }


SYNTHETIC = fake({
    "homeagent.clock": "import homeagent.agent.core\n",  # the ground floor reaching up
    "homeagent.agent.__init__": "",
    "homeagent.agent.core": (
        "from homeagent.agent import prompt\nfrom homeagent.errors import HomeAgentError\n"
        "from homeagent.llm.dialect import render\nfrom aiohttp import web\n"
    ),
    "homeagent.agent.prompt": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .core import Agent\n"  # the cycle's way back, relative
        "def later():\n    from homeagent.io import web_adapter\n"  # an adapter, in a function
    ),
    "homeagent.errors": "",
    "homeagent.io.__init__": "",
    "homeagent.io.web_adapter": "",
    "homeagent.llm.__init__": "",
    "homeagent.llm.dialect.__init__": "",
    "homeagent.llm.dialect.render": "",
    "homeagent.llm.router": "from homeagent.tools.registry import ToolSpec\nimport llama_cpp\n",
    "homeagent.tools.__init__": "",
    "homeagent.tools.registry": "def f():\n    import importlib\n    importlib.import_module('homeagent.llm.router')\n",
    "homeagent.memory.__init__": "",
    "homeagent.memory.cli": "from homeagent.memory import service\n",
    "homeagent.memory.service": "",
    "homeagent.weird": "import llama_cpp.llama_grammar\n",  # in no layer, and not llm
})


def test_synthetic_package_reports_the_cycle_and_the_upward_imports() -> None:
    edges = build_graph(SYNTHETIC)
    cycles = "\n".join(module_cycles(edges, SYNTHETIC))
    assert "cycle among homeagent.agent.core, homeagent.agent.prompt" in cycles
    assert "homeagent/agent/prompt.py:3  homeagent.agent.prompt -> homeagent.agent.core  (TYPE_CHECKING)" in cycles
    assert "homeagent.llm.router, homeagent.tools.registry" in cycles  # the lazy import closes it

    upward = "\n".join(upward_imports(edges, SYNTHETIC))
    assert "homeagent/clock.py:1  homeagent.clock -> homeagent.agent.core" in upward
    assert "homeagent.agent.prompt -> homeagent.io.web_adapter  (in function)" in upward
    assert "homeagent.agent.core -> homeagent.errors" not in upward  # down is fine

    assert "packages in a cycle: homeagent.llm, homeagent.tools" in "\n".join(package_cycles(edges, SYNTHETIC))
    assert len(forbidden_pairs(edges, SYNTHETIC)) == 2
    owners = third_party_owners(edges, SYNTHETIC)  # llm may import llama_cpp, others not
    assert len(owners) == 1 and "homeagent.weird -> llama_cpp" in owners[0]
    assert dialect_blind(edges, SYNTHETIC) == [
        "homeagent/agent/core.py:3  homeagent.agent.core -> homeagent.llm.dialect.render"
    ]
    assert http_blind(edges, SYNTHETIC) == ["homeagent/agent/core.py:4  homeagent.agent.core -> aiohttp"]
    assert unplaced_modules(edges, SYNTHETIC) == ["homeagent.weird: in no layer of LAYERS; add it to the table"]
    assert cli_placement(edges, SYNTHETIC) == [
        "homeagent/memory/cli.py:1  homeagent.memory.cli is a command line outside homeagent.cli"
    ]
    assert all(check(edges, SYNTHETIC) for check in RULES.values()), "every rule must catch its breach"


def test_synthetic_package_that_follows_the_layers_passes() -> None:
    clean = fake({
        "homeagent.agent.__init__": "",
        "homeagent.agent.core": "from homeagent.llm import router\nfrom homeagent import clock\n",
        "homeagent.llm.__init__": "",
        "homeagent.llm.router": "from homeagent.store import db\nimport llama_cpp\n",
        "homeagent.store.__init__": "",
        "homeagent.store.db": "from ..clock import now\n",
        "homeagent.clock": "import datetime\n",
        "homeagent.cli": "from homeagent.agent.core import Agent\n",
    })
    edges = build_graph(clean)
    assert {(e.importer, e.imported) for e in edges} >= {
        ("homeagent.agent.core", "homeagent.llm.router"), ("homeagent.agent.core", "homeagent.clock"),
        ("homeagent.store.db", "homeagent.clock"), ("homeagent.cli", "homeagent.agent.core"),
    }
    for rule, check in RULES.items():
        assert check(edges, clean) == [], rule
