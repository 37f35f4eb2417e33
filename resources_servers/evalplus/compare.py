# Judges a solution's outputs against the canonical ones, as EvalPlus 0.3.1's unsafe_execute does after each call
# (special oracles, set equality, atol with rtol 1e-7 and a 1e-6 floor for floats) — but in a sandbox of its own that
# runs no model code: both sides arrive as codec data. The find_zero oracle records its pass (EvalPlus 0.3.1 skipped
# that, so every HumanEval/32 answer failed; fixed upstream in evalplus 6eb1e19).
#   job.json {"dataset", "entry_point", "atol", "sets": {name: {"expected": [codec], "outcomes": [record]}}}
#   problem.json: the task's row (the oracles read the inputs)
# Sends {"details": {name: [bool per outcome]}}.
import json
import math

import numpy as np

from channel import Channel
from codec import decode
from inputs import task_inputs

SET_EQUAL = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"}
OUTPUT_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}


def poly(xs, x):
    return sum(coefficient * math.pow(x, i) for i, coefficient in enumerate(xs))


def surface_area(base_edge, height):
    # The pyramid's height is the perpendicular one (EvalPlus's oracle for Mbpp/581).
    slant = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant) / 2)


def digit_distance(a, b):
    # Both numbers zero-padded to one length (EvalPlus's oracle for Mbpp/558).
    left, right = str(a), str(b)
    width = max(len(left), len(right))
    return sum(abs(int(x) - int(y)) for x, y in zip(left.zfill(width), right.zfill(width)))


def is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64 or x.dtype == np.float32
    return False


def judge(dataset, entry_point, atol, inputs, expected, outcomes):
    details = []
    for outcome in outcomes:
        i = outcome["i"]
        if "value" not in outcome:
            details.append(False)
            continue
        try:
            out = decode(outcome["value"])
            inp = inputs[i]
            exp = decode(expected[i])
            exact_match = out == exp
            if dataset == "mbpp":
                if entry_point == "are_equivalent":
                    exact_match = exact_match or True
                elif entry_point == "sum_div":
                    exact_match = exact_match or out == 0
                elif entry_point == "surface_Area":
                    exact_match = exact_match or abs(out - surface_area(*inp)) <= atol
                elif entry_point == "digit_distance_nums":
                    exact_match = exact_match or out == digit_distance(*inp)
                elif entry_point in SET_EQUAL:
                    exact_match = set(out) == set(exp)
                elif entry_point in OUTPUT_NOT_NONE:
                    exact_match = out == exp if isinstance(out, bool) else exp == (out is not None)
            if dataset == "humaneval" and entry_point == "find_zero":
                assert abs(poly(*inp, out)) <= atol
                details.append(True)
                continue
            if atol == 0 and is_floats(exp):
                atol = 1e-6
            if not exact_match and atol != 0:
                assert type(out) == type(exp)
                if isinstance(exp, (list, tuple)):
                    assert len(out) == len(exp)
                assert np.allclose(out, exp, rtol=1e-07, atol=atol)
            else:
                assert exact_match
        except BaseException:
            details.append(False)
            continue
        details.append(True)
    return details


def main():
    channel = Channel()
    with open("job.json") as f:
        job = json.load(f)
    with open("problem.json") as f:
        problem = json.load(f)
    atol = problem["atol"]
    details = {}
    for name, pair in job["sets"].items():
        inputs = task_inputs(job["dataset"], problem, name)
        # EvalPlus carries atol from one input to the next (the 1e-6 floor, once set, stays), within one set.
        details[name] = judge(job["dataset"], job["entry_point"], atol, inputs, pair["expected"], pair["outcomes"])
    channel.send({"details": details})


main()
