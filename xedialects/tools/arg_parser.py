"""The command-line parser of xe-run's two modes: argparse whose usage errors exit with status 1, as
every other error of our tools (argparse's own exit status is 2), printed as `xe-run: error: ...`."""
from __future__ import annotations

import argparse
import sys


class UsageExit(Exception):
    """A command-line error, already printed; the tool exits with status 1."""


class ArgParser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageExit(message)

    def option_names(self) -> set[str]:
        """Every option string of this parser (e.g. '--check', '-O')."""
        return {s for a in self._actions for s in a.option_strings}
