"""docs/upstream-xegpu.md (the guide) and docs/upstream-xegpu-reference.md (the reference): the guide
points to the reference and keeps the commands, the reference holds the op-by-op sections. That every
mention of them resolves is test_doc_references.py's, for every doc."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
def _sections(doc: Path) -> tuple[list[str], str]:
    text = doc.read_text()
    return [re.sub(r"^#+\s*", "", line) for line in text.splitlines() if line.startswith("#")], text


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
