# Runs one cell of OpenEnv's coding_env inside the sandbox. The cell's session state (PythonCodeActEnv keeps one
# interpreter per episode) is rebuilt by replaying the episode's earlier cells, silenced, first.
# Written to stdout, one JSON object per line: {"syntax_ok": bool} before any model code runs (so model code cannot
# change it), then {"stdout", "stderr", "exit_code"} after the cell.
import ast
import contextlib
import io
import json
import sys
import traceback

out = sys.stdout
with open("cell.py", encoding="utf-8") as f:
    code = f.read()
with open("history.json", encoding="utf-8") as f:
    history = json.load(f)

try:
    tree = ast.parse(code)
except SyntaxError:
    tree = None
out.write(json.dumps({"syntax_ok": tree is not None}) + "\n")
out.flush()

namespace = {"__name__": "__main__"}
for earlier in history:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            exec(compile(earlier, "<cell>", "exec"), namespace)
        except BaseException:
            pass

printed = io.StringIO()
value = None
error = None
with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
    try:
        if tree is None:
            compile(code, "<cell>", "exec")
        elif tree.body and isinstance(tree.body[-1], ast.Expr):
            exec(compile(ast.Module(body=tree.body[:-1], type_ignores=[]), "<cell>", "exec"), namespace)
            value = eval(compile(ast.Expression(body=tree.body[-1].value), "<cell>", "eval"), namespace)
        else:
            exec(compile(tree, "<cell>", "exec"), namespace)
    except BaseException:
        # The traceback from the cell's own frames on (the harness's are not the model's code).
        kind, exception, frames = sys.exc_info()
        while frames is not None and frames.tb_frame.f_code.co_filename != "<cell>":
            frames = frames.tb_next
        error = "".join(traceback.format_exception(kind, exception, frames))

# PyExecutor's composition: the printed logs, then the last expression's value (JSON, else repr); an exception
# loses the logs and becomes stderr with exit code 1.
if error is not None:
    result = {"stdout": "", "stderr": error, "exit_code": 1}
else:
    parts = []
    if printed.getvalue():
        parts.append(printed.getvalue())
    if value is not None:
        try:
            parts.append(json.dumps(value))
        except Exception:
            parts.append(repr(value))
    result = {"stdout": "\n".join(parts), "stderr": "", "exit_code": 0}
sys.__stdout__.write("\n" + json.dumps(result) + "\n")
sys.__stdout__.flush()
