# nvarc's inductive mode: the model's program run on the test input, inside the sandbox (one sandbox per answer).
# The same steps as NeMo Gym's subprocess template: the program exec'd with its banned builtins and imports, then
# transform(test_input) under a SIGALRM of timeout_seconds, numpy/torch values turned into lists, and one JSON line
# {"success", "result" | "error"} printed. The expected grid never comes in here: the server compares, so whatever
# this prints (or a program prints in its place) is at most a predicted grid, never a verdict.
import io
import json
import signal
import sys

request = json.loads(sys.stdin.read())
TRANSFORM_TIMEOUT_SECONDS = request["timeout_seconds"]


def _convert_numpy_types(obj):
    import numpy as np

    if isinstance(obj, np.ndarray):
        return _convert_numpy_types(obj.tolist())
    elif isinstance(obj, (np.integer, np.int64, np.int32, np.int16, np.int8)):
        return int(obj)
    elif isinstance(obj, (np.floating, np.float64, np.float32, np.float16)):
        return float(obj)
    elif isinstance(obj, np.bool_):
        return bool(obj)
    elif isinstance(obj, list):
        return [_convert_numpy_types(item) for item in obj]
    elif isinstance(obj, tuple):
        return tuple(_convert_numpy_types(item) for item in obj)
    elif isinstance(obj, dict):
        return {k: _convert_numpy_types(v) for k, v in obj.items()}
    return obj


class TransformTimeoutError(Exception):
    pass


def _timeout_handler(signum, frame):
    raise TransformTimeoutError(f"Transform execution exceeded {TRANSFORM_TIMEOUT_SECONDS}s")


BANNED_BUILTINS = frozenset({"open", "input", "breakpoint", "help", "license", "credits", "copyright", "exit", "quit", "vars", "dir", "globals", "locals"})
BANNED_MODULES = frozenset({
    "os", "subprocess", "shutil", "pathlib", "builtins", "socket", "urllib", "requests", "http", "ftplib", "smtplib",
    "pickle", "shelve", "marshal", "importlib", "pkgutil", "ctypes", "multiprocessing", "threading", "signal",
    "tempfile", "fileinput", "codecs", "pty", "fcntl", "resource", "syslog", "asyncio", "concurrent",
})

_original_import = __builtins__["__import__"] if isinstance(__builtins__, dict) else __builtins__.__import__


def _restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
    if name.split(".")[0] in BANNED_MODULES:
        raise ImportError(f"Import of '{name}' is not allowed in sandbox")
    return _original_import(name, globals, locals, fromlist, level)


# As in NeMo Gym's `python -c` script, __builtins__ here is the module, so the program gets its public names only:
# no __build_class__, hence a `class` statement fails there too.
if isinstance(__builtins__, dict):
    _safe_builtins = {k: v for k, v in __builtins__.items() if k not in BANNED_BUILTINS}
else:
    _safe_builtins = {k: getattr(__builtins__, k) for k in dir(__builtins__) if k not in BANNED_BUILTINS and not k.startswith("_")}
    _safe_builtins["__name__"] = "__main__"
    _safe_builtins["__doc__"] = None
_safe_builtins["__import__"] = _restricted_import
_safe_builtins["__builtins__"] = _safe_builtins

_original_stdout = sys.stdout
sys.stdout = io.StringIO()
sys.stderr = io.StringIO()

try:
    exec_globals = {"__builtins__": _safe_builtins}
    exec(request["code"], exec_globals)
    if "transform" not in exec_globals:
        raise ValueError("No 'transform' function defined in code")
    input_grid = request["input_grid"]
    signal.signal(signal.SIGALRM, _timeout_handler)
    signal.alarm(TRANSFORM_TIMEOUT_SECONDS)
    try:
        result = exec_globals["transform"](input_grid)
    finally:
        signal.alarm(0)
    if result is not None:
        if hasattr(result, "detach") and hasattr(result, "cpu"):
            result = result.detach().cpu().tolist()
        result = _convert_numpy_types(result)
    sys.stdout = _original_stdout
    print(json.dumps({"success": True, "result": result}))
except TransformTimeoutError as e:
    sys.stdout = _original_stdout
    print(json.dumps({"success": False, "error": f"TimeoutError: {str(e)}"}))
except Exception as e:
    sys.stdout = _original_stdout
    print(json.dumps({"success": False, "error": f"{type(e).__name__}: {str(e)[:500]}"}))
