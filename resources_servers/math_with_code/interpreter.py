# The interpreter behind math_with_code's execute_python, run inside the sandbox, one sandbox per call.
#
# NeMo Gym keeps one Python process per session; a sandbox here lives for one call only. So the session is rebuilt:
# the cells it ran before (stdin "replay") are executed again, silently and in order, in the same globals and
# locals, then the new cell ("cell") runs and its outcome is the reply. Each cell is run as NeMo Gym runs it:
# exec(code, globals, locals) with its restricted __builtins__ and numpy/scipy/pandas bound, under a SIGALRM of
# "timeout_s" seconds, stdout/stderr captured, then the last line evaluated for "result".
#
# The reply is one JSON line written to the descriptor stdout had when this started; fd 1 and 2 are then pointed at
# /dev/null, so what a cell writes below Python's sys.stdout (os.write, a child process) goes nowhere, as NeMo Gym's
# worker's does. A cell can still find that descriptor and write to it: it can only lie to itself, the reward never
# reads this reply (the server checks the final answer against expected_result, which never enters the sandbox).
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
sys.stdout = open(os.devnull, "w")
sys.stderr = open(os.devnull, "w")

exec_globals = {
    "__builtins__": {
        "print": print,
        "len": len,
        "str": str,
        "int": int,
        "float": float,
        "list": list,
        "dict": dict,
        "tuple": tuple,
        "set": set,
        "min": min,
        "max": max,
        "sum": sum,
        "abs": abs,
        "range": range,
        "enumerate": enumerate,
        "zip": zip,
        "__import__": __import__,
    },
}
# NeMo Gym imports all three at startup. One that is not installed in the sandbox's Python is left unbound (its
# name is then a NameError in a cell), so the server says which in the reply rather than failing every call.
missing_libraries = []
for names, module in ((("np", "numpy"), "numpy"), (("scipy",), "scipy"), (("pd", "pandas"), "pandas")):
    try:
        imported = __import__(module)
    except ImportError:
        missing_libraries.append(module)
        continue
    for name in names:
        exec_globals[name] = imported
exec_locals = {}

LAST_LINE_STATEMENTS = ("print", "import", "from", "def", "class", "if", "for", "while", "try", "with")


def last_expression_value(code):
    # NeMo Gym's _get_last_expr_value: the last line evaluated again (side effects and all) unless it starts
    # like a statement; str() of its value, or None when it does not evaluate.
    lines = code.strip().split("\n")
    last_line = lines[-1].strip()
    if last_line.startswith(LAST_LINE_STATEMENTS):
        return None
    try:
        return str(eval(last_line, exec_globals, exec_locals))
    except Exception:
        return None


def on_alarm(signum, frame):
    raise TimeoutError("code timed-out")


def run_cell(code, timeout_s):
    stdout_capture, stderr_capture = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(timeout_s)
    try:
        with redirect_stdout(stdout_capture), redirect_stderr(stderr_capture):
            exec(code, exec_globals, exec_locals)
            result = last_expression_value(code)
    finally:
        signal.alarm(0)
    return stdout_capture.getvalue(), stderr_capture.getvalue(), result


def outcome(code, timeout_s):
    try:
        stdout, stderr, result = run_cell(code, timeout_s)
        return {"success": True, "stdout": stdout, "stderr": stderr, "error_message": None, "result": result}
    except BaseException as error:  # NeMo Gym's worker reports str(e) of what the cell raised, output dropped
        return {"success": False, "stdout": "", "stderr": "", "error_message": str(error), "result": None}


for previous in request["replay"]:
    outcome(previous, request["timeout_s"])
reply = outcome(request["cell"], request["timeout_s"])
reply["missing_libraries"] = missing_libraries
reply_channel.write(json.dumps(reply) + "\n")
reply_channel.flush()
os._exit(0)
