"""What `help()` and IDEs show for an op class: its docstring (RFC summary, operands, attributes,
results, readable syntax) and `build`'s keyword signature, generated once from the definition when
the dialect registers the op (`Dialect.op`)."""
from __future__ import annotations

import inspect

_KW = inspect.Parameter.KEYWORD_ONLY


class _Ann:
    """An annotation printed as its text (inspect quotes plain strings)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


def _mixed_list(cls, o) -> bool:
    """Whether operand `o` is given as one mixed list of ints and Values (with `static_<name>`)."""
    return f"static_{o.name}" in cls._attr_by_name


def _operand_line(cls, o) -> tuple[str, str]:
    if _mixed_list(cls, o):
        py, what = "list[int | ir.Value]", f"{o.constraint.description} list; ints are static"
    elif o.variadic:
        py, what = "list[ir.Value]", f"variadic {o.constraint.description}"
    else:
        py, what = "ir.Value", o.constraint.description + (", optional" if o.optional else "")
    return py, f"  {o.name}: {what}" + (f" -- {o.doc}" if o.doc else "")


def _attr_line(a) -> tuple[str, str]:
    """(annotation, docstring line): the annotation is the short Python type ('str' of
    "str: 'vc' | ..."), the line gives the whole."""
    py = a.kind.python_type
    ann = py.split(":")[0].split(" (")[0].split(" or ")[0]
    if a.number_type_of:
        py += f" | a number (typed as {a.number_type_of}'s elements)"
        ann += " | float"
    opt = f", default {a.default!r}" if a.default is not None else ", optional" if a.optional else ""
    return ann, f"  {a.name}: {a.kind.description}{opt} ({py})" + (f" -- {a.doc}" if a.doc else "")


def _result_line(r) -> str:
    if r.same_as:
        how = f"derived: the type of {r.same_as}"
    elif r.derive is not None:
        how = "derived when it can be: " + (inspect.getdoc(r.derive) or "").replace("\n", " ")
    else:
        how = "give it in result_types"
    return f"  {r.name}: {r.constraint.description} ({how})" + (f" -- {r.doc}" if r.doc else "")


def _derivable(cls) -> bool:
    return all(r.same_as or r.derive is not None for r in cls.results_)


def _hidden(cls, a) -> bool:
    """static_<x> attributes filled from operand x's mixed list."""
    return a.name.startswith("static_") and any(o.name == a.name[7:] for o in cls.operands_)


def op_docstring(cls) -> str:
    formats = cls.format if isinstance(cls.format, (tuple, list)) else (cls.format,)
    own = cls.__dict__.get("__doc__")
    lines = [f"{cls.full_name()}: {cls.summary}"] + ([""] + inspect.cleandoc(own).splitlines() if own else [])
    lines += ["", "Syntax:"] + [f"  {cls.full_name()} {f}" for f in formats if f]
    for title, items in (("Operands:", [_operand_line(cls, o)[1] for o in cls.operands_]),
                         ("Attributes:", [_attr_line(a)[1] for a in cls.attributes_ if not _hidden(cls, a)]),
                         ("Results:", [_result_line(r) for r in cls.results_])):
        if items:
            lines += ["", title] + items
    sig = build_signature(cls)
    sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    lines += ["", f"Build: {cls.__name__}.build{sig}; wrap an op: {cls.__name__}(operation)."]
    return "\n".join(lines)


def build_signature(cls) -> inspect.Signature:
    params = [inspect.Parameter("cls", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for o in cls.operands_:
        optional = o.variadic or o.optional
        params.append(inspect.Parameter(o.name, _KW, annotation=_Ann(_operand_line(cls, o)[0]),
                                        default=None if optional else inspect.Parameter.empty))
    for a in cls.attributes_:
        if not _hidden(cls, a):
            params.append(inspect.Parameter(a.name, _KW, annotation=_Ann(_attr_line(a)[0]),
                                            default=None if a.optional else inspect.Parameter.empty))
    if cls.results_:
        params.append(inspect.Parameter("result_types", _KW, annotation=_Ann("list[ir.Type | str]"),
                                        default=None if _derivable(cls) else inspect.Parameter.empty))
    params += [inspect.Parameter("loc", _KW, default=None), inspect.Parameter("ip", _KW, default=None)]
    return inspect.Signature(params, return_annotation=_Ann(cls.__name__))


def document(cls) -> None:
    """Give op class `cls` its docstring and a `build` with its own signature and docstring."""
    impl = getattr(cls.build.__func__, "impl", cls.build.__func__)   # Op.build, not a parent's wrapper

    def build(klass, **kwargs):
        return impl(klass, **kwargs)

    build.impl = impl

    build.__signature__ = build_signature(cls)
    build.__name__, build.__qualname__, build.__module__ = "build", f"{cls.__name__}.build", cls.__module__
    build.__doc__ = (inspect.getdoc(impl).replace("Create the op.", f"Create {cls.full_name()} (at `ip`, else the "
                                                  "insertion point).") + "\n"
                     + "\n".join(line for line in op_docstring(cls).splitlines()[1:] if not line.startswith("Build:")))
    cls.build = classmethod(build)
    cls.__doc__ = op_docstring(cls)
