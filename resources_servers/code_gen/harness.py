# The code_gen test harness: runs inside the sandbox, one process per verify (NeMo Gym runs every test of a verify in
# one process too). It runs the model's program on each test input and reports what the program did — the stdout it
# printed (stdin/stdout mode) or the value fn_name returned (call-based mode) — never a verdict: the expected outputs
# are not in this sandbox, and the server compares. Written for this project from NeMo Gym's observable behaviour
# (lcb_integration/testing_util.py); see README.md.
#
# Input: job.json in the work dir: {"mode": "stdio"|"call", "code": str, "inputs": [str], "fn_name": str|null,
# "timeout": int}. Output: one JSON line per event on the report channel (the sandbox's stdout as this process found
# it); the program's own fd 1 is pointed at stderr first, so nothing it prints reaches the channel by accident.
#   {"setup": "ok"} | {"setup": "error", "message": str}          program loaded (or why not: NeMo's "Error during testing")
#   {"t": i, "status": "ok", ...what it produced, "seconds": float}
#   {"t": i, "status": "error", "error": repr, "traceback": str}   an exception: NeMo's -4
#   {"t": i, "status": "timeout", "error": repr}                   the per-test alarm: NeMo's -3
#   {"end": true}
import ast
import faulthandler
import io
import json
import os
import signal
import sys
import time
import traceback
from types import ModuleType

REPORT_FD = os.dup(1)
os.dup2(2, 1)


def report(record):
    data = (json.dumps(record) + "\n").encode("ascii")
    while data:
        data = data[os.write(REPORT_FD, data):]


# What NeMo Gym puts before every program: star-imports of these modules, then plain imports of them.
STAR_IMPORTS = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
                "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing"]
PLAIN_IMPORTS = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
                 "itertools", "functools", "operator", "io", "sys", "json"]
PRELUDE = "".join(f"from {m} import *\n" for m in STAR_IMPORTS) + "".join(f"import {m}\n" for m in PLAIN_IMPORTS) + \
    "sys.setrecursionlimit(50000)\n"

sys.set_int_max_str_digits(50000)


class TimeoutException(Exception):
    pass


def on_alarm(signum, frame):
    raise TimeoutException


def raise_soft_limit(resource, kind, target):
    soft, hard = resource.getrlimit(kind)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(kind, (target if hard == resource.RLIM_INFINITY else min(target, hard), hard))
        except ValueError:
            pass


def guard():
    """What NeMo Gym's reliability_guard does to the process: the same functions are gone, so a program that calls
    them fails here as it fails there (it is no security measure; the sandbox is)."""
    import resource
    import shutil
    import subprocess
    import builtins
    four_gb = 4 * 1024 ** 3
    raise_soft_limit(resource, resource.RLIMIT_DATA, four_gb)
    # Raised here, at run time, as NeMo Gym does, not as the sandbox's stackBytes: glibc sizes thread stacks by the
    # soft limit it saw at start, and a 4 GB one under the sandbox's 4 GB address-space limit leaves no room for a thread.
    raise_soft_limit(resource, resource.RLIMIT_STACK, four_gb)
    faulthandler.disable()
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[name] = None


def without_main_guard(code):
    """A trailing `if __name__ == '__main__':` block is replaced by its body."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def as_function(code):
    """The program's top-level imports stay at module level after the prelude; every other statement becomes the body
    of wrapped_function(), which each test calls."""
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        function = ast.FunctionDef(
            name="wrapped_function",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=body, decorator_list=[], lineno=-1)
        return PRELUDE + "\n" + ast.unparse(imports) + "\n" + ast.unparse(function)
    except Exception:
        return code


def load(code, timeout):
    signal.alarm(timeout)
    try:
        module = ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        # LeetCode-style problems define their function as a method of Solution.
        loaded = module.Solution() if "class Solution" in code else module
        assert loaded is not None
    finally:
        signal.alarm(0)
    return loaded


class FakeStdinBuffer:
    def __init__(self, text):
        self.data = text.encode("utf-8")

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self.data.split(b"\n")[0] + b"\n"


class FakeStdin:
    """The test input as NeMo Gym's sys.stdin stand-in serves it: read() all of it, readline() a line at a time,
    readlines() split on newlines without them, iteration line by line, .buffer as bytes."""

    def __init__(self, text):
        self.text = text
        self.lines = io.StringIO(text)
        self.buffer = FakeStdinBuffer(text)

    def read(self, *args):
        return self.text

    def readline(self, *args):
        return self.lines.readline(*args)

    def readlines(self, *args):
        return self.text.split("\n")

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.lines)

    def __getattr__(self, name):
        return getattr(self.lines, name)


def fake_open(text):
    # NeMo Gym answers every open() of the program with a file holding the test input.
    def opened(*args, **kwargs):
        return io.StringIO(text)
    return opened


class Capturing:
    """A test's stdout: a StringIO whose close() takes an argument, as NeMo Gym's capture does (so a program that
    closes sys.stdout fails the same way)."""

    def __enter__(self):
        self._stringio = io.StringIO()
        self._stringio.close = lambda x: 1
        return self._stringio


def run_stdio(code, inputs, timeout):
    function = getattr(load(as_function(without_main_guard(code)), timeout), "wrapped_function", None)
    if function is None:
        raise TypeError("cannot unpack non-iterable NoneType object")
    report({"setup": "ok"})
    import builtins
    real_open = builtins.open
    for index, text in enumerate(inputs):
        captured = Capturing().__enter__()
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin, sys.stdout, builtins.open = FakeStdin(text), captured, fake_open(text)
        signal.alarm(timeout)
        faulthandler.enable()
        outcome = None
        try:
            start = time.time()
            try:
                function()
            except SystemExit:
                pass
            seconds = time.time() - start
            signal.alarm(0)
        except Exception as error:
            signal.alarm(0)
            outcome = failure(index, error)
        finally:
            signal.alarm(0)
            faulthandler.disable()
            sys.stdin, sys.stdout, builtins.open = stdin, stdout, real_open
        if outcome is not None:
            report(outcome)
            return
        report({"t": index, "status": "ok", "stdout": captured.getvalue(), "seconds": seconds})


def failure(index, error):
    if "timeoutexception" in repr(error).lower():
        return {"t": index, "status": "timeout", "error": repr(error)}
    return {"t": index, "status": "error", "error": repr(error), "traceback": traceback.format_exc()}


def encode(value):
    """A returned value as the server compares it: JSON types tagged so int, float and str stay apart; anything
    Python would never find equal to a JSON value (a set, a nested tuple, a dict with non-str keys, an object) is
    opaque."""
    if value is None or value is True or value is False:
        return value
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return encode(value.item())
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return {"int": str(int(value))}
    if isinstance(value, float):
        return {"float": repr(float(value))}
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict) and all(type(key) is str for key in value):
        return {"dict": [[key, encode(item)] for key, item in value.items()]}
    return {"opaque": type(value).__name__}


def run_call(code, inputs, fn_name, timeout):
    code = PRELUDE + "\n\n" + code
    method = getattr(load(code, timeout), fn_name, None) if fn_name else None
    if method is None:
        raise TypeError("cannot unpack non-iterable NoneType object")
    arguments = [[json.loads(line) for line in text.split("\n")] for text in inputs]
    report({"setup": "ok"})
    for index, args in enumerate(arguments):
        signal.alarm(timeout)
        faulthandler.enable()
        try:
            start = time.time()
            value = method(*args)
            seconds = time.time() - start
            signal.alarm(0)
            if isinstance(value, tuple):
                value = list(value)
            record = {"t": index, "status": "ok", "value": encode(value), "str": str(value), "seconds": seconds}
            try:
                record["json"] = json.dumps(value)
            except Exception:
                record["json"] = None
            try:
                record["float"] = repr(float(value))
            except Exception:
                record["float"] = None
        except Exception as error:
            signal.alarm(0)
            record = failure(index, error)
        finally:
            signal.alarm(0)
            faulthandler.disable()
        report(record)
        if record["status"] != "ok":
            return


def main():
    with open("job.json", encoding="utf-8") as handle:
        job = json.load(handle)
    signal.signal(signal.SIGALRM, on_alarm)
    # NeMo Gym's grader process has numpy loaded before its guard runs; importing it afterwards would fail on the
    # functions the guard removes. Loaded only for programs that mention it (it costs ~100 ms).
    if "numpy" in job["code"]:
        try:
            import numpy  # noqa: F401
        except ImportError:
            pass
    guard()
    try:
        if job["mode"] == "call":
            run_call(job["code"], job["inputs"], job["fn_name"], job["timeout"])
        else:
            run_stdio(job["code"], job["inputs"], job["timeout"])
    except Exception as error:
        report({"setup": "error", "message": str(error)})
    finally:
        signal.alarm(0)
    report({"end": True})


main()
