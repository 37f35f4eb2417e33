# SciCode sub-step runner, in two sandboxed runs that never share a process:
#
#   capture  the model's code, then the sub-step's test cases with every "site" (an expression that needs the model's
#            code: a call of its function, a name only it defines) evaluated and its value written out as data. No
#            target is in this run, and no verdict comes out of it.
#   check    no model code at all: the same test cases, with each site replaced by the next captured value of that
#            site (decoded as plain data: numbers, strings, containers, numpy arrays, sparse matrices, never a pickle),
#            the targets loaded, and every assertion run. This run's exit status is the verdict.
#
# The model's code can print, exit, patch numpy or rewrite this file in the capture run: all it can change is the
# data it hands over, which is what its functions are asked to produce anyway. Both runs derive the sites from the
# test source alone, with the same function below, so the check run never takes the capture run's word for them.
#
# argv: capture <spec.json>   |   check <spec.json> <captures.json> <targets.json|targets.h5>
# spec.json: {"tests": [source, ...], "preamble": source, "step": "1.1", "nonce": "..."}
import ast
import base64
import builtins
import io
import json
import math
import sys

# Exit statuses of the check run; 1 (an uncaught error in this file) is none of them, and is a server fault.
CHECK_PASSED, CHECK_FAILED, CHECK_UNSUPPORTED, CHECK_MISSING_MODULE, CHECK_MISSING_TARGET = 0, 3, 4, 5, 6

# Names the check run binds before the tests (besides the preamble's imports): the comparison helpers SciCode's
# tests import from scicode.compare.cmp, and the usual module aliases.
HELPER_NAMES = {"cmp_tuple_or_list", "are_dicts_close", "are_csc_matrix_close", "process_symbol_in_dict"}
DEFAULT_IMPORTS = "import numpy as np\nimport numpy\nimport scipy\nimport scipy.sparse\nimport sympy\nimport math\n"


class LazyModule:
    """A module imported at its first attribute: sympy alone costs a second or more per run, and few tests touch it."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        import importlib

        return getattr(importlib.import_module(self._name), attribute)


def bind_default_modules(namespace):
    import numpy

    namespace.update(np=numpy, numpy=numpy, math=math, scipy=LazyModule("scipy"), sympy=LazyModule("sympy"))


class Unsupported(Exception):
    """A test shape the two-run scheme cannot split (e.g. the model's function called on the target)."""


# ---------------------------------------------------------------------------------------------------- the analysis

def imported_names(source):
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name)
    return names


def bound_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class Plan:
    """Which expressions of one test are sites, numbered in a fixed traversal order; shared by both runs."""

    def __init__(self, source, preamble_names):
        self.tree = ast.parse(source)
        self.resolvable = set(dir(builtins)) | preamble_names | HELPER_NAMES | bound_names(self.tree) | {"target"}
        self.tainted = self._tainted_names()
        self.sites = []

    def _tainted_names(self):
        # Names whose value comes from the target: the capture run cannot compute them.
        tainted = {"target"}
        changed = True
        while changed:
            changed = False
            for node in ast.walk(self.tree):
                sources = []
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    sources = [(node.targets if isinstance(node, ast.Assign) else [node.target], node.value)]
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                    sources = [([node.target], node.iter)]
                elif isinstance(node, (ast.With, ast.AsyncWith)):
                    sources = [([item.optional_vars], item.context_expr) for item in node.items if item.optional_vars]
                for targets, value in sources:
                    if loads(value) & tainted:
                        for t in targets:
                            for n in ast.walk(t):
                                if isinstance(n, ast.Name) and n.id not in tainted:
                                    tainted.add(n.id)
                                    changed = True
        return tainted

    def needs_model(self, node):
        return bool(loads(node) - self.resolvable)

    def is_tainted(self, node):
        return bool(loads(node) & self.tainted)


class SiteRewriter(ast.NodeTransformer):
    """Replaces each maximal target-free expression that needs the model's code by `make_site(index, expression)`."""

    def __init__(self, plan, make_site):
        self.plan = plan
        self.make_site = make_site

    def visit(self, node):
        if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            if not self.plan.needs_model(node):
                return node
            if not self.plan.is_tainted(node):
                index = len(self.plan.sites)
                self.plan.sites.append(node)
                return ast.copy_location(self.make_site(index, node), node)
            if isinstance(node, ast.Call) and self.plan.needs_model(node.func):
                raise Unsupported(f"line {node.lineno}: the model's function is called on the target")
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                raise Unsupported(f"line {node.lineno}: the model's code is used inside a lambda or comprehension over the target")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and self.plan.needs_model(node):
            raise Unsupported(f"line {node.lineno}: a function or class defined in the test uses the model's code")
        return self.generic_visit(node)


def check_tree(plan):
    def pop(index, node):
        return ast.Call(func=ast.Name(id="__pop", ctx=ast.Load()), args=[ast.Constant(index)], keywords=[])

    tree = SiteRewriter(plan, pop).visit(plan.tree)
    return ast.fix_missing_locations(tree)


def capture_tree(plan):
    """The test as the capture run executes it: untainted statements run as written; tainted ones only evaluate their sites."""

    def record(index, node):
        thunk = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=node)
        return ast.Call(func=ast.Name(id="__site", ctx=ast.Load()), args=[ast.Constant(index), thunk], keywords=[])

    rewriter = SiteRewriter(plan, record)

    def statements(body):
        out = []
        for stmt in body:
            if not plan.is_tainted(stmt):
                out.append(rewriter.visit(stmt))
                continue
            if isinstance(stmt, (ast.Assert, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
                first = len(plan.sites)
                rewriter.visit(stmt)
                # Each site alone, each in its own try: B may skip some (short-circuit), so none aborts the others.
                for index in range(first, len(plan.sites)):
                    call = record(index, plan.sites[index])
                    call.func.id = "__site_soft"
                    out.append(ast.Expr(value=call))
                continue
            if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
                header = [getattr(stmt, name) for name in ("test", "iter") if hasattr(stmt, name)]
                header += [item.context_expr for item in getattr(stmt, "items", [])]
                if any(plan.is_tainted(h) for h in header):
                    if plan.needs_model(stmt):
                        raise Unsupported(f"line {stmt.lineno}: the model's code runs under a condition or loop over the target")
                    rewriter.visit(stmt)
                    continue
                for name in ("test", "iter"):
                    if hasattr(stmt, name):
                        setattr(stmt, name, rewriter.visit(getattr(stmt, name)))
                for item in getattr(stmt, "items", []):
                    item.context_expr = rewriter.visit(item.context_expr)
                if isinstance(stmt, ast.Try):
                    raise Unsupported(f"line {stmt.lineno}: try blocks that reference the target")
                rebuilt = stmt
                for name in ("body", "orelse", "finalbody"):
                    if hasattr(rebuilt, name) and getattr(rebuilt, name):
                        setattr(rebuilt, name, statements(getattr(rebuilt, name)) or [ast.Pass()])
                out.append(rebuilt)
                continue
            raise Unsupported(f"line {stmt.lineno}: a {type(stmt).__name__} statement that references the target")
        return out

    plan.tree.body = statements(plan.tree.body)
    return ast.fix_missing_locations(plan.tree)


# ---------------------------------------------------------------------------------------------------- data encoding

def encode(value, depth=0):
    import numpy as np

    if depth > 50:
        return {"t": "opaque", "type": "nesting deeper than 50"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value if abs(value) < 2**53 else {"t": "int", "v": str(value)}
    if isinstance(value, float):
        if math.isfinite(value) and value != int(value):
            return value
        return {"t": "float", "v": repr(value)}
    if isinstance(value, complex):
        return {"t": "complex", "re": encode(value.real), "im": encode(value.imag)}
    if isinstance(value, bytes):
        return {"t": "bytes", "v": base64.b64encode(value).decode()}
    if isinstance(value, (list, tuple, set, frozenset)):
        kind = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}[next(k for k in (list, tuple, set, frozenset) if isinstance(value, k))]
        return {"t": kind, "v": [encode(item, depth + 1) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return {"t": "ndobj", "shape": list(value.shape), "v": [encode(item, depth + 1) for item in value.ravel().tolist()]}
        buffer = io.BytesIO()
        np.save(buffer, value, allow_pickle=False)
        return {"t": "ndarray", "v": base64.b64encode(buffer.getvalue()).decode()}
    if isinstance(value, np.generic):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        return {"t": "npscalar", "v": base64.b64encode(buffer.getvalue()).decode()}
    if "scipy.sparse" in type(value).__module__ and hasattr(value, "tocoo"):
        coo = value.tocoo()
        return {"t": "sparse", "format": value.format, "shape": list(coo.shape), "data": encode(coo.data), "row": encode(coo.row), "col": encode(coo.col)}
    if type(value).__module__.startswith("sympy"):
        import sympy

        if isinstance(value, sympy.Symbol):
            return {"t": "symbol", "v": value.name}
        if isinstance(value, sympy.Rational):
            return {"t": "rational", "p": str(value.p), "q": str(value.q)}
        if isinstance(value, sympy.Float):
            return {"t": "sympyfloat", "v": str(value)}
    return {"t": "opaque", "type": f"{type(value).__module__}.{type(value).__qualname__}"}


class CapturedError(Exception):
    pass


def decode(data):
    """Data only: every branch builds a value of a fixed type from strings and numbers (np.load without pickles)."""
    import numpy as np

    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        raise ValueError("bare JSON list in encoded data")
    tag = data["t"]
    if tag == "int":
        return int(data["v"])
    if tag == "float":
        return float(data["v"])
    if tag == "complex":
        return complex(decode(data["re"]), decode(data["im"]))
    if tag == "bytes":
        return base64.b64decode(data["v"])
    if tag in ("list", "tuple", "set", "frozenset"):
        items = [decode(item) for item in data["v"]]
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
    if tag == "dict":
        return {decode(k): decode(v) for k, v in data["v"]}
    if tag == "ndarray" or tag == "npscalar":
        array = np.load(io.BytesIO(base64.b64decode(data["v"])), allow_pickle=False)
        return array[()] if tag == "npscalar" else array
    if tag == "ndobj":
        items = [decode(item) for item in data["v"]]
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(data["shape"])
    if tag == "sparse":
        import scipy.sparse

        coo = scipy.sparse.coo_matrix((decode(data["data"]), (decode(data["row"]), decode(data["col"]))), shape=tuple(data["shape"]))
        return coo.asformat(str(data["format"]))
    if tag == "symbol":
        import sympy

        return sympy.Symbol(str(data["v"]))
    if tag == "rational":
        import sympy

        return sympy.Rational(int(data["p"]), int(data["q"]))
    if tag == "sympyfloat":
        import sympy

        return sympy.Float(str(data["v"]))
    if tag == "raise":
        raise CapturedError(f"the model's code raised {data['type']}: {data['message']}")
    if tag == "opaque":
        raise CapturedError(f"the model's code produced a {data['type']}, which cannot be handed over as data")
    raise ValueError(f"unknown tag {tag!r}")


# ---------------------------------------------------------------------------------------------------- the runs

def capture(spec):
    # Everything the run hands over is kept here and written once, at the end, between nonce lines; what the model's
    # code prints goes to the same stdout, and the nonce only keeps an honest print from being read as data.
    records = {}
    current = {}
    model_globals = {"__name__": "__main__", "__builtins__": builtins}

    def put(index, encoded):
        current.setdefault(str(index), []).append(encoded)

    def evaluate(index, thunk):
        try:
            value = thunk()
        except Exception as error:  # noqa: BLE001 -- the check run fails the test when it reaches this value
            put(index, {"t": "raise", "type": type(error).__name__, "message": str(error)[:500]})
            raise
        try:
            put(index, encode(value))
        except Exception as error:  # noqa: BLE001
            put(index, {"t": "opaque", "type": f"unencodable ({type(error).__name__})"})
        return value

    def evaluate_soft(index, thunk):
        try:
            evaluate(index, thunk)
        except Exception:  # noqa: BLE001
            pass

    plans = []
    for test in spec["tests"]:
        plan = Plan(test, imported_names(spec["preamble"]) | imported_names(DEFAULT_IMPORTS))
        plans.append(compile(capture_tree(plan), "<test>", "exec"))
    outcome = "complete"
    try:
        exec(compile(spec["model_code"], "<solution>", "exec"), model_globals)
        model_globals["__site"], model_globals["__site_soft"] = evaluate, evaluate_soft
        for number, code in enumerate(plans):
            current = records.setdefault(str(number), {})
            exec(code, model_globals)
    except BaseException as error:  # noqa: BLE001 -- SystemExit included: whatever stopped the run, hand over what exists
        outcome = f"stopped: {type(error).__name__}"
    sys.stdout.flush()
    sys.stdout.write("\n" + spec["nonce"] + "\n" + json.dumps({"outcome": outcome, "tests": records}) + "\n" + spec["nonce"] + "\n")
    sys.stdout.flush()


def load_targets(path, step, count):
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            return [decode(item) for item in json.load(f)]
    try:
        import h5py  # noqa: F401
    except ImportError:
        print("h5py is not installed in the sandbox's Python", file=sys.stderr)
        sys.exit(CHECK_MISSING_MODULE)
    return h5_targets(path, step, count)


def h5_targets(path, step, count):
    """SciCode's test_data.h5 layout: /<step>/test<k>/<var...>; one variable is the target itself, several a tuple."""
    import h5py

    def dataset_value(dataset):
        value = dataset[()]
        return value.decode("utf-8", errors="strict") if isinstance(value, bytes) else value

    def sparse(group):
        import scipy.sparse

        data, shape = group["data"][()], tuple(group["shape"][()])
        if "row" in group and "col" in group:
            return scipy.sparse.coo_matrix((data, (group["row"][()], group["col"][()])), shape=shape)
        if "blocksize" in group:
            return scipy.sparse.bsr_matrix((data, group["indices"][()], group["indptr"][()]), shape=shape, blocksize=tuple(group["blocksize"][()]))
        return scipy.sparse.csr_matrix((data, group["indices"][()], group["indptr"][()]), shape=shape)

    def as_dict(group):
        out = {}
        for key, item in group.items():
            if isinstance(item, h5py.Group):
                out[key] = sparse(item["sparse_matrix"])
            elif isinstance(item[()], bytes):
                out[key] = item[()].decode("utf-8", errors="strict")
            else:
                try:
                    out[float(key)] = item[()]
                except ValueError:
                    out[key] = item[()]
        return out

    def group_value(group):
        # SciCode reads a group by its first key: a "list", a "sparse_matrix", or else a dict.
        for key in group.keys():
            if key == "list":
                return [group["list"][k][()] for k in group["list"].keys()]
            if key == "sparse_matrix":
                return sparse(group[key])
            return as_dict(group)
        return None

    def value(item):
        return dataset_value(item) if isinstance(item, h5py.Dataset) else group_value(item)

    targets = []
    with h5py.File(path, "r") as f:
        for k in range(count):
            name = f"{step}/test{k + 1}"
            if name not in f or not isinstance(f[name], h5py.Group):
                print(f"{name} is not in the test data", file=sys.stderr)
                sys.exit(CHECK_MISSING_TARGET)
            group = f[name]
            keys = list(group.keys())
            targets.append(value(group[keys[0]]) if len(keys) == 1 else tuple(value(group[key]) for key in keys))
    return targets


def check(spec, captures_path, targets_path):
    preamble_names = imported_names(spec["preamble"]) | imported_names(DEFAULT_IMPORTS)
    try:
        trees = [compile(check_tree(Plan(test, preamble_names)), "<test>", "exec") for test in spec["tests"]]
    except Unsupported as error:
        print(f"unsupported test shape: {error}", file=sys.stderr)
        sys.exit(CHECK_UNSUPPORTED)
    targets = load_targets(targets_path, spec["step"], len(spec["tests"]))
    if len(targets) < len(trees):
        print(f"the test data holds {len(targets)} targets for step {spec['step']}, its tests need {len(trees)}", file=sys.stderr)
        sys.exit(CHECK_MISSING_TARGET)
    namespace = {"__name__": "__check__", "__builtins__": builtins}
    bind_default_modules(namespace)
    exec(spec["preamble"], namespace)
    exec(COMPARISON_HELPERS, namespace)
    try:
        with open(captures_path, encoding="utf-8") as f:
            captured = json.load(f)["tests"]
    except Exception as error:  # noqa: BLE001 -- whatever the capture run handed over, unreadable means failed
        print(f"the capture run handed over nothing readable: {error}", file=sys.stderr)
        sys.exit(CHECK_FAILED)
    for number, code in enumerate(trees):
        queues = captured.get(str(number), {}) if isinstance(captured, dict) else {}
        positions = {}

        def pop(index, queues=queues, positions=positions):
            queue = queues.get(str(index), []) if isinstance(queues, dict) else []
            position = positions.get(index, 0)
            if position >= len(queue):
                raise CapturedError(f"site {index} has no captured value (the capture run stopped before it)")
            positions[index] = position + 1
            return decode(queue[position])

        namespace["__pop"] = pop
        namespace["target"] = targets[number]
        try:
            exec(code, namespace)
        except BaseException as error:  # noqa: BLE001
            print(f"test {number + 1} failed: {type(error).__name__}: {error}"[:2000], file=sys.stderr)
            sys.exit(CHECK_FAILED)
    sys.exit(CHECK_PASSED)


# The comparison helpers of SciCode's tests (scicode.compare.cmp), written for this runner from their documented
# behaviour: allclose with numpy's defaults for values, element-wise for tuples and lists, per key for dicts.
COMPARISON_HELPERS = """
def process_symbol_in_dict(d):
    import sympy
    out = {}
    for key, value in d.items():
        value = str(value) if isinstance(value, sympy.Symbol) else value
        out[str(key) if isinstance(key, sympy.Symbol) else key] = value
    return out

def are_csc_matrix_close(matrix1, matrix2):
    import numpy as np
    return np.allclose(matrix1.toarray(), matrix2.toarray())

def are_dicts_close(dict1, dict2, atol=1e-8, rtol=1e-5):
    import numpy as np
    import scipy.sparse
    import sympy
    dict1, dict2 = process_symbol_in_dict(dict1), process_symbol_in_dict(dict2)
    if dict1.keys() != dict2.keys():
        return False
    for key, value1 in dict1.items():
        value2 = dict2[key]
        if isinstance(value1, (sympy.Symbol, str)):
            if not value1 == value2:
                return False
        elif scipy.sparse.issparse(value1):
            if not np.allclose(value1.toarray(), value2.toarray(), atol=atol, rtol=rtol):
                return False
        else:
            try:
                if not np.allclose(value1, value2, atol=atol, rtol=rtol):
                    return False
            except ValueError:
                if not value1 == value2:
                    return False
    return True

def cmp_tuple_or_list(var1, var2):
    import numpy as np
    import scipy.sparse
    if len(var1) != len(var2):
        return False
    for v1, v2 in zip(var1, var2):
        if isinstance(v1, dict):
            if not are_dicts_close(v1, v2):
                return False
        elif isinstance(v1, (scipy.sparse.csr_matrix, scipy.sparse.csc_matrix)):
            if not are_csc_matrix_close(v1, v2):
                return False
        elif isinstance(v1, bool):
            if not v1 == v2:
                return False
        else:
            try:
                if not np.allclose(v1, v2):
                    return False
            except ValueError:
                if not v1 == v2:
                    return False
    return True
"""


def main():
    mode = sys.argv[1]
    with open(sys.argv[2], encoding="utf-8") as f:
        spec = json.load(f)
    if mode == "capture":
        capture(spec)
    elif mode == "check":
        check(spec, sys.argv[3], sys.argv[4])
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
