"""No import circles between the modules of the xedialects package (docs/architecture.md "Conventions").

Every `xedialects/**/*.py` is parsed with `ast`; each `import` / `from ... import` anywhere in a file
(module level, inside a function, under `if TYPE_CHECKING:`) is an edge to the deepest module of the
package it names (relative imports resolved; a submodule does not depend on its parent package
unless it imports it). Strongly connected components of more than one module are circles; the test
names each with its edges and their lines; there must be none. Imports through `importlib` are not seen.
"""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "xedialects"

def _modules(package: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__)."""
    out = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _statements(body):
    """Every statement, nested ones too (an import is a statement: expressions need no visit)."""
    for s in body:
        yield s
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(s, field, None) or ())
        for part in [*(getattr(s, "handlers", None) or ()), *(getattr(s, "cases", None) or ())]:
            yield from _statements(part.body)


def _import_graph(mods) -> dict[str, dict[str, int]]:
    """Module -> {imported module of the package: line of the first such import}."""
    def deepest(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph = {m: {} for m in mods}
    for m, (path, is_pkg) in mods.items():
        for node in _statements(ast.parse(path.read_text(), str(path)).body):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = m.split(".") if is_pkg else m.split(".")[:-1]
                    here = here[:len(here) - (node.level - 1)]
                    base = ".".join(here + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for t in targets:
                t = deepest(t)
                if t and t != m:
                    graph[m].setdefault(t, node.lineno)
    return graph


def _circles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _short(m: str) -> str:
    return m.removeprefix("xedialects.")


def _describe(comp, graph) -> str:
    edges = [f"    {_short(a)} -> {_short(b)} (line {graph[a][b]})" for a in comp for b in graph[a] if b in comp]
    return "import circle " + " <-> ".join(_short(m) for m in comp) + ":\n" + "\n".join(edges)


def test_no_import_circles():
    graph = _import_graph(_modules())
    circles = _circles(graph)
    assert not circles, "\n".join(_describe(c, graph) for c in circles)


def test_checker_finds_function_level_and_relative_circles(tmp_path):
    """The checker itself: a circle closed by a function-level relative import is found and named."""
    pkg = tmp_path / "xedialects" / "lowering" / "demo"
    pkg.mkdir(parents=True)
    for d in (tmp_path / "xedialects", tmp_path / "xedialects" / "lowering", pkg):
        (d / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import g\n\ndef f():\n    return g()\n")
    (pkg / "b.py").write_text("def g():\n    from .a import f\n    return f\n")
    (pkg / "c.py").write_text("from . import a\nfrom ..demo import b\n")
    graph = _import_graph(_modules(tmp_path / "xedialects"))
    assert _circles(graph) == [["xedialects.lowering.demo.a", "xedialects.lowering.demo.b"]]
    assert graph["xedialects.lowering.demo.c"] == {"xedialects.lowering.demo.a": 1, "xedialects.lowering.demo.b": 2}
    assert _describe(_circles(graph)[0], graph) == (
        "import circle lowering.demo.a <-> lowering.demo.b:\n"
        "    lowering.demo.a -> lowering.demo.b (line 1)\n"
        "    lowering.demo.b -> lowering.demo.a (line 2)")
