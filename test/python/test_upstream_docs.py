"""docs/upstream-xegpu.md (the guide) and docs/upstream-xegpu-reference.md (the reference): every
mention of them in the README, docs, code and tests names a file that exists and, when it quotes a
section ('docs/upstream-xegpu.md, "Import"'), a heading or bold paragraph of that file."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MENTION = re.compile(r'docs/(upstream-xegpu[\w-]*\.md)(?:[,;:]?\s+"([^"]+)")?')


def _sources():
    yield ROOT / "README.md"
    for pattern in ("docs/*.md", "xedialects/**/*.py", "test/**/*.py", "test/**/*.mlir", "bench/*.py"):
        yield from ROOT.glob(pattern)


def _sections(doc: Path) -> tuple[list[str], str]:
    text = doc.read_text()
    return [re.sub(r"^#+\s*", "", line) for line in text.splitlines() if line.startswith("#")], text


def test_upstream_xegpu_mentions_resolve():
    seen, bad = 0, []
    for src in _sources():
        # join wrapped lines (and their comment markers) so a quoted section split over two lines is one
        text = re.sub(r"\s*\n\s*(?:#|//)?\s*", " ", src.read_text(errors="replace"))
        for m in MENTION.finditer(text):
            seen += 1
            doc = ROOT / "docs" / m.group(1)
            if not doc.exists():
                bad.append(f"{src.relative_to(ROOT)}: {m.group(0)} (no such file)")
                continue
            if m.group(2):
                heads, body = _sections(doc)
                name = m.group(2).strip()
                if not any(name in h for h in heads) and f"**{name}" not in body:
                    bad.append(f"{src.relative_to(ROOT)}: {m.group(0)} (no such section)")
    assert seen >= 30, seen
    assert not bad, "\n".join(bad)


def test_guide_points_to_the_reference_and_keeps_the_commands():
    heads, guide = _sections(ROOT / "docs" / "upstream-xegpu.md")
    ref_heads, _ = _sections(ROOT / "docs" / "upstream-xegpu-reference.md")
    assert guide.count("docs/upstream-xegpu-reference.md") >= 4
    for cmd in ("xe-opt --convert-upstream-xegpu", "--emit=upstream-xegpu", "--xe-gemm-to-spirv-upstream",
                "convert-xegpu-to-upstream=level=lane", "bench/upstream_route_compare.py"):
        assert cmd in guide, cmd
    for name in ("Mapping, op by op", "Not exported", "Builtin names", "IGC and constant bool vectors",
                 "Which programs reach spirv-val", "What is checked"):
        assert any(h.startswith(name) for h in ref_heads) and not any(h.startswith(name) for h in heads), name
