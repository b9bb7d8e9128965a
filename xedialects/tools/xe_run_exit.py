"""How xe-run ends, in both its modes (`xe_run.main`, `xe_run_program.main`): a usage error, a located
diagnostic, an error the input caused and an internal error each print their message and exit 1, never
a traceback (XE_RUN_DEBUG=1 re-raises); Ctrl-C exits 130, a closed stdout (`| head`) ends quietly.
"""
from __future__ import annotations

import sys

from ..diagnostics import DiagnosticError
from ..user_errors import stdout_closed_exit, unexpected_error_exit
from .arg_parser import UsageExit


def guarded(body) -> int:
    """`body()`'s exit status, or 1 (130 on Ctrl-C) after printing what went wrong."""
    try:
        return body()
    except UsageExit:                           # printed by the parser
        return 1
    except DiagnosticError as e:
        sys.stdout.flush()                      # a whole program's output comes before its error
        for d in e.diagnostics:
            print(d.format(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:                     # the reader of stdout has gone (`| head`): end quietly
        return stdout_closed_exit()
    except Exception as e:  # never a traceback for users
        return unexpected_error_exit("xe-run", e, "XE_RUN_DEBUG")
