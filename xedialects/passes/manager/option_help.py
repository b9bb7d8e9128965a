"""How options read in `xe-opt --help` / `--list-passes` / `xe-run --help`: one line per pass option
(`option_line`), and the options a named pipeline accepts (`pipeline_options`): each option of our
passes inside it after expansion, with the passes it is forwarded to and the values the pipeline's
own text sets (pipeline.py's `_forward` is the rule this describes)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import PassPipelineError
from .options import Option
from .registry import PassInfo, lookup


@dataclass
class PipelineOption:
    """One option of a named pipeline: its declaration in the first pass that takes it, every pass it
    goes to (in pipeline order, once each) and what the pipeline text itself sets in each run."""

    name: str
    option: Option
    passes: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    defaults: dict[str, str] = field(default_factory=dict)
    runs: dict[str, list] = field(default_factory=dict)  # {pass: [value the text sets, or None, per run]}

    def presets(self) -> list[str]:
        """'arch=pvc for pass' per pass whose runs the pipeline text gives a value ('in run 1 of 2')."""
        out = []
        for name, values in self.runs.items():
            for i, v in enumerate(values):
                if v is not None:
                    which = f" (its run {i + 1} of {len(values)})" if len(values) > 1 else ""
                    out.append(f"{self.name}={v} for {name}{which}")
        return out

    @property
    def description(self) -> str:
        """The part of the passes' descriptions they share ('; '-separated clauses), else the first."""
        parts = [d.split("; ") for d in self.descriptions]
        common = []
        for clauses in zip(*parts):
            if len(set(clauses)) > 1:
                break
            common.append(clauses[0])
        return "; ".join(common) or self.descriptions[0]


def default_note(o: Option, description: str | None = None) -> str:
    """' (default: X)' unless the description already says what the default does."""
    return "" if "default" in (o.description if description is None else description) else \
        f" (default: {default_text(o)})"


def default_text(o: Option) -> str:
    return o.format_value(o.default) if o.default is not None else '""'


def option_line(o: Option, description: str | None = None) -> str:
    """`name=<type>  description (default: X) [a|b]`."""
    text = o.description if description is None else description
    choices = f" [{'|'.join(map(str, o.choices))}]" if o.choices else ""
    return f"{o.name}=<{o.type_name}>  {text}{default_note(o, text)}{choices}"


def pipeline_options(name: str) -> list[PipelineOption]:
    """The options the named pipeline `name` forwards, in the order its passes first declare them."""
    from .pipeline import Pipeline  # pipeline.py imports this package's registry; import when asked

    found: dict[str, PipelineOption] = {}
    for element in _leaves(Pipeline(name)._expanded()):
        info = lookup(element.name)
        if not isinstance(info, PassInfo):
            continue        # upstream passes (canonicalize, one-shot-bufferize) get no forwarded options
        given = info.make_options(element.options) if element.options else None
        for o in info.options:
            entry = found.setdefault(o.name, PipelineOption(o.name, o))
            if info.name not in entry.passes:
                entry.passes.append(info.name)
                entry.descriptions.append(o.description)
                entry.defaults[info.name] = default_text(o)
            told = given is not None and given.is_given(o.name)
            entry.runs.setdefault(info.name, []).append(o.format_value(given[o.name]) if told else None)
    return list(found.values())


def pipeline_option_lines(name: str, indent: str) -> list[str]:
    """One line per option of the named pipeline: type, default, choices, the passes it goes to (their
    descriptions are under those passes) and what the pipeline's own text sets."""
    try:
        options = pipeline_options(name)
    except PassPipelineError as e:   # a registered pipeline that cannot expand: say so, list the rest
        return [f"{indent}(its options cannot be listed: {e})"]
    lines = []
    for p in options:
        o = p.option
        said = re.search(r"\(default: ([^()]*(?:\([^()]*\)[^()]*)*)\)", p.description)
        defaults = set(p.defaults.values())
        default = said.group(1) if said else next(iter(defaults)) if len(defaults) == 1 else \
            ", ".join(f"{k}: {v}" for k, v in p.defaults.items())
        choices = f" [{'|'.join(map(str, o.choices))}]" if o.choices else _listed_choices(p.description)
        sets = "".join(f"; the pipeline sets {x}" for x in p.presets())
        lines.append(f"{indent}{o.name}=<{o.type_name}> (default: {default}){choices} -> {', '.join(p.passes)}{sets}")
    return lines


def _listed_choices(description: str) -> str:
    """' [a|b]' when the description lists its values as 'one of a|b' (the arch option), else ''."""
    m = re.search(r"one of ([\w.-]+(?:\|[\w.-]+)+)", description)
    return f" [{m.group(1)}]" if m else ""


def _leaves(elements):
    for e in elements:
        if e.children is not None:
            yield from _leaves(e.children)
        else:
            yield e
