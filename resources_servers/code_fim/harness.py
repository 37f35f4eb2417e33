# Runs one HumanEval-Infilling check program inside the sandbox, as human_eval_infilling's unsafe_execute does:
# prefix + completion + suffix + test + check(entry_point), exec'd under its reliability_guard with I/O swallowed and
# one SIGALRM limit for the whole program. The record is the library's result string: "passed", "timed out" or
# "failed: <exception>". A run that ends without one (os._exit, a crash, the sandbox's wall clock) is "timed out",
# as the library reads an empty result list. job.json {"program", "timeout"}.
import contextlib
import io
import json
import signal
import sys

from channel import Channel
from execution import TimeoutException, reliability_guard, swallow_io, time_limit


def guard():
    """human_eval_infilling's reliability_guard (no memory limit, open() left alone): what a program can observe."""
    reliability_guard()


def main():
    channel = Channel()
    with open("job.json") as f:
        job = json.load(f)
    guard()
    try:
        scope = {}
        with swallow_io():
            with time_limit(job["timeout"]):
                exec(job["program"], scope)
        result = "passed"
    except TimeoutException:
        result = "timed out"
    except BaseException as error:
        try:
            result = "failed: %s" % (error,)
        except BaseException:
            result = "failed: "
    channel.send({"result": result})


main()
