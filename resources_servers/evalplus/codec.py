# Python values as tagged JSON, so a function's return value can leave the sandbox it was computed in and be compared
# elsewhere exactly as EvalPlus compares it in place: int and float and bool stay apart, tuples stay tuples, NumPy
# scalars and arrays keep their dtype. Encoding reads only the builtin structure of a value (never its __eq__ or
# __repr__), so what arrives is data: a subclass of a builtin comes back as a subclass of that builtin (equal by
# value, a different type), anything else as an opaque object that equals nothing.
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

_BASES = (int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


def encode(value):
    try:
        return _encode(value)
    except BaseException:  # a cycle, absurd depth, a hostile iterator
        return ["o", "unencodable"]


def _encode(x):
    t = type(x)
    if x is None:
        return ["N"]
    if t is bool:
        return ["b", x]
    if t is int:
        return ["i", int.__repr__(x)]
    if t is float:
        return ["f", float.__repr__(x)]
    if t is complex:
        return ["c", float.__repr__(x.real), float.__repr__(x.imag)]
    if t is str:
        return ["s", x]
    if t is bytes:
        return ["y", bytes.hex(x)]
    if t is list:
        return ["l", [_encode(v) for v in list.__iter__(x)]]
    if t is tuple:
        return ["t", [_encode(v) for v in tuple.__iter__(x)]]
    if t is dict:
        return ["d", [[_encode(k), _encode(v)] for k, v in dict.items(x)]]
    if t is set:
        return ["S", [_encode(v) for v in set.__iter__(x)]]
    if t is frozenset:
        return ["F", [_encode(v) for v in frozenset.__iter__(x)]]
    if getattr(t, "__module__", None) == "numpy" and hasattr(x, "dtype"):
        if t.__name__ == "ndarray":
            return ["na", str(x.dtype), _encode(x.tolist())]
        return ["ns", str(x.dtype), _encode(x.item())]
    for base in _BASES:
        if isinstance(x, base):
            return ["x", _encode(_as_base(base, x))]
    return ["o", getattr(t, "__qualname__", "object")]


def _as_base(base, x):
    if base in (list, tuple, set, frozenset):
        return base(base.__iter__(x))
    if base is dict:
        return dict(dict.items(x))
    if base is complex:
        return complex(complex.real.__get__(x), complex.imag.__get__(x))
    if base is float:
        return float.__float__(x)
    if base is int:
        return int.__int__(x)
    if base is str:
        return str.__str__(x)
    return bytes(x)


class Opaque:
    """A value the harness could not carry out of the sandbox: it equals nothing (not even another Opaque)."""

    def __init__(self, type_name):
        self.type_name = type_name

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = object.__hash__

    def __repr__(self):
        return "<opaque %s>" % self.type_name


_FOREIGN = {base: type("Foreign" + base.__name__, (base,), {}) for base in _BASES}


def decode(node):
    try:
        return _decode(node)
    except BaseException:
        return Opaque("undecodable")


def _decode(n):
    tag = n[0]
    if tag == "N":
        return None
    if tag == "b":
        return bool(n[1])
    if tag == "i":
        return int(n[1])
    if tag == "f":
        return float(n[1])
    if tag == "c":
        return complex(float(n[1]), float(n[2]))
    if tag == "s":
        return n[1]
    if tag == "y":
        return bytes.fromhex(n[1])
    if tag == "l":
        return [_decode(v) for v in n[1]]
    if tag == "t":
        return tuple(_decode(v) for v in n[1])
    if tag == "d":
        return {_decode(k): _decode(v) for k, v in n[1]}
    if tag == "S":
        return {_decode(v) for v in n[1]}
    if tag == "F":
        return frozenset(_decode(v) for v in n[1])
    if tag == "ns":
        import numpy as np

        return np.dtype(n[1]).type(_decode(n[2]))
    if tag == "na":
        import numpy as np

        return np.array(_decode(n[2]), dtype=n[1])
    if tag == "x":
        inner = _decode(n[1])
        return _FOREIGN[type(inner)](inner)
    return Opaque(str(n[1]) if len(n) > 1 else "object")
