# The stateful_python_code_exec interpreter, run inside the sandbox, one sandbox per call: an IPython shell as the
# NeMo-Skills local sandbox keeps one (TerminalInteractiveShell, history in memory, Plain tracebacks). The session's
# earlier cells ("replay") are run again first with their output thrown away, then the new cell ("cell") with its
# stdout/stderr captured. At "timeout_s" the cell gets a KeyboardInterrupt, as NeMo-Skills' SIGINT; one that is still
# running "grace_s" later is killed by the sandbox's clock (the server's "timed out" answer).
#
# The reply is one JSON line on the descriptor stdout had at the start; fd 1/2 then point at /dev/null. A cell can
# find that descriptor and write to it: it only lies to itself (the reward is the verifier's, on the final answer).
import io
import json
import os
import signal
import sys
from contextlib import redirect_stderr, redirect_stdout

request = json.loads(sys.stdin.read())
reply_channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
_devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(_devnull, 1)
os.dup2(_devnull, 2)

try:
    from IPython.terminal.interactiveshell import TerminalInteractiveShell
    from traitlets.config import Config
except ImportError as error:
    reply_channel.write(json.dumps({"no_ipython": str(error)}) + "\n")
    reply_channel.flush()
    os._exit(0)

shell_config = Config()
shell_config.HistoryManager.hist_file = ":memory:"
shell = TerminalInteractiveShell(config=shell_config)
signal.signal(signal.SIGINT, signal.SIG_DFL)
shell.InteractiveTB.set_mode(mode="Plain")


def run(code, timeout_s):
    stdout_buf, stderr_buf = io.StringIO(), io.StringIO()
    # Python's own SIGINT handler (C, no frame of ours in the traceback): a KeyboardInterrupt, as NeMo-Skills' SIGINT.
    signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    interrupted = False
    try:
        with redirect_stdout(stdout_buf), redirect_stderr(stderr_buf):
            result = shell.run_cell(code)
        has_error = bool(result.error_before_exec or result.error_in_exec)
        interrupted = isinstance(result.error_in_exec, KeyboardInterrupt)
    except KeyboardInterrupt:
        has_error = interrupted = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return {"stdout": stdout_buf.getvalue(), "stderr": stderr_buf.getvalue(), "has_error": has_error, "interrupted": interrupted}


for previous in request["replay"]:
    run(previous, request["timeout_s"])
reply_channel.write(json.dumps(run(request["cell"], request["timeout_s"])) + "\n")
reply_channel.flush()
os._exit(0)
