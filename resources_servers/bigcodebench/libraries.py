# Which libraries a BigCodeBench task needs, and whether this interpreter has them: the row's `libs` and every
# top-level module that code_prompt and the test import (read with ast, never run). Each is imported here, in a
# sandbox holding no model code, so a library that is absent or broken is named before the task is scored.
# job.json {"sources": [str], "libs": [str]}. Sends {"missing": {module: "<error>"}}.
import ast
import importlib
import json

from channel import Channel


def imported_modules(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def main():
    channel = Channel()
    with open("job.json") as f:
        job = json.load(f)
    modules = set(job["libs"])
    for source in job["sources"]:
        modules |= imported_modules(source)
    missing = {}
    for name in sorted(modules):
        try:
            importlib.import_module(name)
        except BaseException as error:
            missing[name] = "%s: %s" % (type(error).__name__, error)
    channel.send({"missing": missing})


main()
