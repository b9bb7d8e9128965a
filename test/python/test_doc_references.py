"""References to the docs resolve: every `docs/NAME.md` in the README, the docs, the code (docstrings,
comments, messages), tests, benchmarks and scripts names a file that exists, and a section it quotes
exists in that file. In the Markdown files, every relative link `[text](path)` and every path of a file of
the repository from its top (`bench/sim_gemm.py`, `test/lit/xe-run/whole-program.mlir`) names a file that
exists.

The rule for a section: a quoted name right after the path (`docs/igc.md "K loops"`,
`docs/planner.md, "Local k-slicing"`, `(docs/arch.md "The arch in the IR")`; a comma, semicolon or
colon and line breaks with their comment markers may come between, the name may be wrapped over lines,
its quotes may be escaped inside a string) must be, compared without case, Markdown emphasis or
backticks and with whitespace collapsed, part of a heading of that file, the lead of a bold paragraph
(`**name`), or the start of a paragraph or list item. Plain text elsewhere in the file does not count:
a section that was renamed or moved to another file is then a finding.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("README.md", "docs/*.md", "xedialects/**/*.py", "xedialects/**/*.md", "tools/*.py", "bench/*.py",
           "scripts/*", "examples/*", "test/**/*.py", "test/**/*.mlir", "pyproject.toml")

# a docs path not inside a longer path or URL (another project's docs/... is not ours)
_BREAK = r"(?:[ \t]+|[ \t]*\n[ \t]*(?:#+|//|\*|--)?[ \t]*)"  # spaces, or a line break and the next line's comment marker
REFERENCE = re.compile(r'(?<![\w/.-])docs/([\w.-]+\.md)(?:[,;:]?' + _BREAK + r'\\?"([^"\\]{1,160})\\?")?')
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
# a file of the repository named by its path from the top (a name with a file suffix; `xedialects/x.f` is a function)
REPO_PATH = re.compile(r"(?<![\w/.-])((?:bench|examples|tools|scripts|test/python|test/lit|xedialects)/[\w./-]*\.(?:py|mlir|md|sh|svg|toml))\b")


def _norm(text: str) -> str:
    text = re.sub(r"\n[ \t]*(?:#+|//|\*|--)?[ \t]*", " ", text)
    return " ".join(text.replace("`", "").replace("*", "").split()).lower()


def _sections(doc: Path) -> tuple[list[str], list[str]]:
    """(headings, paragraph starts -- bold leads and list items included), each normalized."""
    heads, starts, prev_blank, fenced = [], [], True, False
    for line in doc.read_text().splitlines():
        s = line.strip()
        if s.startswith("```"):
            fenced = not fenced
        elif not fenced and s.startswith("#"):
            heads.append(_norm(s.lstrip("#")))
        elif not fenced and (prev_blank or re.match(r"[*+-] |\d+\. ", s) or s.startswith("**")):
            starts.append(_norm(re.sub(r"^(?:[*+-] |\d+\. )", "", s)))
        prev_blank = not s
    return heads, starts


def section_found(name: str, heads: list[str], starts: list[str]) -> bool:
    name = _norm(name)
    return any(name in h for h in heads) or any(p.startswith(name) for p in starts)


def findings(root: Path = ROOT, sources=SOURCES, skip=()) -> tuple[int, list[str]]:
    """(references checked, one 'file:line: reference (why)' per finding)."""
    docs, seen, bad = {}, 0, []

    def doc_sections(path: Path):
        if path not in docs:
            docs[path] = _sections(path) if path.is_file() else None
        return docs[path]

    files = sorted({p for pattern in sources for p in root.glob(pattern) if p.is_file() and p not in skip})
    for src in files:
        try:
            text = src.read_text()
        except UnicodeDecodeError:
            continue
        where = lambda m: f"{src.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}"  # noqa: E731
        for m in REFERENCE.finditer(text):
            seen += 1
            found = doc_sections(root / "docs" / m.group(1))
            ref = " ".join(re.sub(r"\n[ \t]*(?:#+|//|\*|--)?", " ", m.group(0)).split())
            if found is None:
                bad.append(f"{where(m)}: {ref} (no such file)")
            elif m.group(2) and not section_found(m.group(2), *found):
                bad.append(f"{where(m)}: {ref} (no such section in docs/{m.group(1)})")
        if src.suffix != ".md":
            continue
        for m in LINK.finditer(re.sub(r"`[^`\n]*`", lambda c: " " * len(c.group(0)), text)):  # not in code
            target = m.group(1).split("#", 1)[0]
            if not target or re.match(r"[a-z][a-z0-9+.-]*:", target) or REFERENCE.fullmatch(target):
                continue                    # an anchor, a URL, or a docs path (checked above)
            seen += 1
            if not (src.parent / target).exists():
                bad.append(f"{where(m)}: {m.group(0)} (no such file)")
        for m in REPO_PATH.finditer(text):
            seen += 1
            if not (root / m.group(1)).exists():
                bad.append(f"{where(m)}: {m.group(1)} (no such file)")
    return seen, bad


def test_doc_references_resolve():
    seen, bad = findings(skip={Path(__file__).resolve()})
    assert seen >= 100, seen
    assert not bad, "\n".join(bad)


def test_checker_finds_missing_files_sections_and_links(tmp_path):
    """The checker itself: each kind of reference that points nowhere is found, each good one is not."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# A\n\n## Local `k`-slicing\n\nText.\n\n**Bold lead.** More.\n\nParagraph start here.\n"
        "Not a start: Hidden words.\n\n* Listed item\n\n```\n# Fenced heading\n```\n")
    (tmp_path / "README.md").write_text(
        'docs/a.md "Local k-slicing", docs/a.md, "bold lead", (docs/a.md "Paragraph start")\n'
        'docs/a.md "Listed item" [a](docs/a.md#x) [web](https://example.com/docs/z.md)\n'
        'docs/a.md "Hidden words" docs/a.md "Fenced heading" [b](docs/b.md) [c](c.md)\n'
        "`bench/gone.py` and `docs/a.md`; xedialects/x.f is a function\n")
    (tmp_path / "code.py").write_text(
        '# see docs/a.md\n#   "Local k-slicing" and docs/a.md "Gone\n# section"\n'
        'raise ValueError("see docs/a.md \\"Bold lead\\" or docs/a.md \\"Moved\\"")\n')
    seen, bad = findings(tmp_path, ("README.md", "code.py"))
    assert bad == [
        'README.md:3: docs/a.md "Hidden words" (no such section in docs/a.md)',
        'README.md:3: docs/a.md "Fenced heading" (no such section in docs/a.md)',
        "README.md:3: docs/b.md (no such file)",
        "README.md:3: [c](c.md) (no such file)",
        "README.md:4: bench/gone.py (no such file)",
        'code.py:2: docs/a.md "Gone section" (no such section in docs/a.md)',
        'code.py:4: docs/a.md \\"Moved\\" (no such section in docs/a.md)',
    ], bad
    assert seen == 15


def test_readme_lists_every_doc():
    """README's Layout row of `docs/` names each docs/*.md (the guide and the reference of upstream xegpu)."""
    row = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `docs/` |"))
    listed = set(re.findall(r"`([\w.-]+\.md)`", row))
    assert listed == {p.name for p in (ROOT / "docs").glob("*.md")}, listed ^ {p.name for p in (ROOT / "docs").glob("*.md")}
