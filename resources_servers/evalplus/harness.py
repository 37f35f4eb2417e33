# Runs one function on one EvalPlus input set inside the sandbox, as EvalPlus 0.3.1 does, and sends back what each
# call returned (never a verdict: the expected outputs are not in this sandbox, and compare.py judges elsewhere).
#   job.json {"mode": "solution" | "canonical", "dataset", "code", "entry_point", "sets": ["base_input", ...],
#             "time_limits": [seconds per input] (solution mode)}
#   problem.json: the task's row of HumanEvalPlus / MbppPlus, as the dataset file holds it.
# Records: {"i": n, "value": <codec>} | {"i": n, "error": "<exception type>"} | {"i": n, "timeout": true} per input,
# then {"done": "success"} — or {"done": "failed"} when the code does not even define the function. Canonical mode
# sends {"set": name, "values": [...], "times": [...]} per set (EvalPlus's trusted_exec: a deep copy of each input,
# time.time() around each call) and no guard.
import contextlib
import copy
import io
import json
import signal
import sys
import time

from channel import Channel
from execution import TimeoutException, reliability_guard, swallow_io, time_limit
from codec import encode
from inputs import task_inputs

# EvalPlus's MBPP tasks whose expected output is only "not None" (its MBPP_OUTPUT_NOT_NONE_TASKS, by entry point).
OUTPUT_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}


def guard():
    """EvalPlus's reliability_guard, whose effects a program can observe (open, os.remove, subprocess… are None). The
    memory limit is the sandbox's; the sandbox, not this, is what contains the program."""
    reliability_guard(disable_open=True)


def run_solution(channel, job, inputs):
    limits = job["time_limits"]
    guard()
    scope = {}
    try:
        with swallow_io():
            exec(job["code"], scope)
            fn = scope[job["entry_point"]]
    except BaseException:
        channel.send({"done": "failed"})
        return
    for i, inp in enumerate(inputs):
        try:
            with time_limit(limits[i]):
                with swallow_io():
                    out = fn(*inp)
        except TimeoutException:
            channel.send({"i": i, "timeout": True})
            continue
        except BaseException as error:
            channel.send({"i": i, "error": type(error).__name__})
            continue
        channel.send({"i": i, "value": encode(out)})
    channel.send({"done": "success"})


def run_canonical(channel, job, problem):
    scope = {}
    with swallow_io():
        exec(job["code"], scope)
    fn = scope[job["entry_point"]]
    not_none = job["dataset"] == "mbpp" and job["entry_point"] in OUTPUT_NOT_NONE
    for name in job["sets"]:
        values, times = [], []
        for inp in task_inputs(job["dataset"], problem, name):
            inp = copy.deepcopy(inp)
            start = time.time()
            with swallow_io():
                out = fn(*inp)
            times.append(time.time() - start)
            values.append(encode(out is not None) if not_none else encode(out))
        channel.send({"set": name, "values": values, "times": times})


def main():
    channel = Channel()
    with open("job.json") as f:
        job = json.load(f)
    with open("problem.json") as f:
        problem = json.load(f)
    if job["mode"] == "canonical":
        run_canonical(channel, job, problem)
    else:
        run_solution(channel, job, task_inputs(job["dataset"], problem, job["sets"][0]))


main()
