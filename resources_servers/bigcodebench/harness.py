# Runs one BigCodeBench task's unittest suite inside the sandbox, as bigcodebench.eval's unsafe_execute does: the
# calibrated code and the test exec'd as module __test__ (with sys, os, environ in its namespace), I/O and subprocess
# output swallowed, TestCases run under one SIGALRM; failures and errors by test name. The record is
# {"status": "pass" | "fail", "details": {...}}; a run that ends without one is a timeout (the library's unknown).
# job.json {"code", "test_code", "timeout", "max_as_limit", "max_data_limit", "max_stack_limit"} (limits in MiB).
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import types
import unittest

import execution
from channel import Channel
from execution import TimeoutException, time_limit


@contextlib.contextmanager
def swallow_subprocess_output():
    original_popen, original_run = subprocess.Popen, subprocess.run

    def with_pipes(kwargs):
        if kwargs.get("capture_output"):
            kwargs.pop("stdout", None)
            kwargs.pop("stderr", None)
        else:
            kwargs.setdefault("stdout", subprocess.PIPE)
            kwargs.setdefault("stderr", subprocess.PIPE)
        return kwargs

    subprocess.Popen = lambda *args, **kwargs: original_popen(*args, **with_pipes(kwargs))
    subprocess.run = lambda *args, **kwargs: original_run(*args, **with_pipes(kwargs))
    try:
        yield
    finally:
        subprocess.Popen, subprocess.run = original_popen, original_run


def swallow_io():
    return execution.swallow_io(swallow_subprocess_output)


def guard(job):
    """bigcodebench's reliability_guard: UTC, one OpenMP thread, quiet TensorFlow, the rlimits, exit/quit gone."""
    import builtins
    import faulthandler

    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    if job["max_as_limit"] and job["max_data_limit"] and job["max_stack_limit"]:
        import resource

        mib = 1024 * 1024
        for limit, value in ((resource.RLIMIT_AS, job["max_as_limit"]), (resource.RLIMIT_DATA, job["max_data_limit"]), (resource.RLIMIT_STACK, job["max_stack_limit"])):
            soft, hard = resource.getrlimit(limit)
            wanted = value * mib if hard == resource.RLIM_INFINITY else min(value * mib, hard)
            resource.setrlimit(limit, (wanted, wanted))
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    # bigcodebench closes every matplotlib figure here (and needs matplotlib for it); without matplotlib there is none.
    try:
        import matplotlib.pyplot as plt

        plt.close("all")
    except ImportError:
        pass


def main():
    channel = Channel()
    with open("job.json") as f:
        job = json.load(f)
    import tempfile

    os.chdir(tempfile.mkdtemp())  # bigcodebench runs each task in a fresh temporary directory
    guard(job)
    import builtins

    module = types.ModuleType("__test__")
    module.__dict__.update({"__builtins__": builtins, "__file__": "__test__.py", "__package__": None, "__doc__": None, "sys": sys, "os": os, "environ": os.environ})
    details = {}
    try:
        with swallow_io():
            exec(compile(job["code"] + "\n" + job["test_code"], "__test__.py", "exec"), module.__dict__)
            sys.modules["__test__"] = module
            suite = unittest.TestLoader().loadTestsFromTestCase(getattr(module, "TestCases"))
            result = unittest.TestResult()
            with time_limit(job["timeout"]):
                suite.run(result)
        for test, trace in result.failures + result.errors:
            details[test.id().split(".")[-1]] = trace
        status = "fail" if details else "pass"
    except BaseException as error:
        try:
            details["ALL"] = str(error)
        except BaseException:
            details["ALL"] = type(error).__name__
        status = "fail"
    channel.send({"status": status, "details": details})


main()
