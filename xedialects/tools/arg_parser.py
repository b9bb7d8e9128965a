"""The command-line parser of xe-run's two modes: argparse whose usage errors exit with status 1, as
every other error of our tools (argparse's own exit status is 2), printed as `xe-run: error: ...`;
their --help ends with the named pipelines and the options each forwards (`pipelines_help`)."""
from __future__ import annotations

import argparse
import sys


class UsageExit(Exception):
    """A command-line error, already printed; the tool exits with status 1."""


class ArgParser(argparse.ArgumentParser):
    def __init__(self, *args, more_help=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.more_help = more_help  # () -> text appended to the epilog, computed for --help only

    def format_help(self):
        if self.more_help is not None:
            self.epilog = (self.epilog or "") + self.more_help()
            self.more_help = None
        return super().format_help()

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}{self._hint(message)}", file=sys.stderr)
        raise UsageExit(message)

    def _hint(self, message: str) -> str:
        """'; did you mean ...' for an unrecognized option: xe-opt's spelling of one of ours
        (`--xe-draw` -> `--draw`, a pass flag -> `--pipeline=NAME`) or a close name."""
        import difflib

        prefix = "unrecognized arguments: "
        if not message.startswith(prefix):
            return ""
        first = message[len(prefix):].split()[0]
        name, eq, value = first.partition("=")
        known = self.option_names()
        if name.startswith("--xe-") and "--" + name[5:] in known:
            return f"; did you mean {'--' + name[5:]}{eq}{value} (xe-opt's spelling is --xe-{name[5:]})"
        if name.startswith("--") and "--pipeline" in known and _is_pass_or_pipeline(name[2:]):
            opts = f"{{{value}}}" if eq else ""
            return f"; passes run with --pipeline, e.g. '--pipeline={name[2:]}{opts}'"
        close = difflib.get_close_matches(name, sorted(known), n=1)
        return f"; did you mean {close[0]}" if close else ""

    def option_names(self) -> set[str]:
        """Every option string of this parser (e.g. '--check', '-O')."""
        return {s for a in self._actions for s in a.option_strings}


def _is_pass_or_pipeline(name: str) -> bool:
    from ..passes import lookup

    try:
        return lookup(name) is not None
    except Exception:  # noqa: BLE001 - a hint only: an unknown name is no pass
        return False


def pipelines_help() -> str:
    """The named pipelines for --pipeline, each with the options it forwards to its passes (the end of
    xe-run's --help in both modes)."""
    from ..passes import registered_pipelines
    from ..passes.manager.option_help import pipeline_option_lines

    lines = ["", "", "named pipelines for --pipeline (NAME or 'NAME{opt=v opt2=v}'; each option goes to the passes "
             "after '->' and wins over what the pipeline sets; the options' descriptions: xe-opt --list-passes):"]
    for info in registered_pipelines().values():
        lines.append(f"  {info.name}  -  {info.description}")
        lines += pipeline_option_lines(info.name, "      ")
    return "\n".join(lines)
