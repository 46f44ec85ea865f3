# SPDX-License-Identifier: LGPL-2.1-or-later
"""IDs in JSON (Documentation/clients.rst, "IDs in JSON and JavaScript"): a
JavaScript number is a double, exact for integers only up to 2^53 - 1
(Number.MAX_SAFE_INTEGER), and JSON.parse() rounds a larger one without a
word. JSONEncoder writes every int beyond that as a decimal string (an ID
of the default layout always is one); to_json() is json.dumps() with it;
id_from_json() reads an ID back from either form. Standard library only."""
import errno as _errno
import json

from . import InvalidIdError

MAX_SAFE_INTEGER = (1 << 53) - 1


def _safe(o):
    """o with every int (not bool) beyond +-MAX_SAFE_INTEGER, in dicts,
    lists and tuples, made its decimal string."""
    if isinstance(o, int) and not isinstance(o, bool):
        return o if -MAX_SAFE_INTEGER <= o <= MAX_SAFE_INTEGER else str(int(o))
    if isinstance(o, dict):
        return {k: _safe(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_safe(v) for v in o]
    return o


class JSONEncoder(json.JSONEncoder):
    """json.JSONEncoder that writes every int JavaScript cannot hold exactly
    (beyond +-(2^53 - 1)) as a JSON string of its decimal digits, including
    those a subclass's default() returns; other ints stay numbers:
    json.dumps({"id": uidgen.next()}, cls=uidgen.JSONEncoder)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        default = self.default
        self.default = lambda o: _safe(default(o))

    def iterencode(self, o, _one_shot=False):
        return super().iterencode(_safe(o), _one_shot)


def to_json(obj, **kwargs):
    """json.dumps(obj, cls=JSONEncoder, **kwargs): IDs out as strings."""
    return json.dumps(obj, cls=JSONEncoder, **kwargs)


def id_from_json(v):
    """An ID from what JSON gave: a string of decimal digits (no sign, no
    leading zero, at most 2^63 - 1), or an int from 0 to MAX_SAFE_INTEGER (a
    larger number may already have been rounded by a JavaScript writer).
    InvalidIdError otherwise: EINVAL for no ID, ERANGE for one out of range."""
    if isinstance(v, str):
        if not v or not v.isascii() or not v.isdigit() or (v[0] == "0" and len(v) > 1):
            raise InvalidIdError(_errno.EINVAL, "not an ID: a string of decimal digits", v)
        n = int(v)
        if n >> 63:
            raise InvalidIdError(_errno.ERANGE, "not an ID: IDs are 0 to 2^63 - 1", v)
        return n
    if isinstance(v, int) and not isinstance(v, bool):
        if not 0 <= v <= MAX_SAFE_INTEGER:
            raise InvalidIdError(_errno.ERANGE, "an ID as a JSON number must be 0 to 2^53 - 1 "
                                 "(JavaScript rounds larger ones): send IDs as strings", str(v))
        return v
    raise InvalidIdError(_errno.EINVAL, "not an ID: a decimal string or an integer", repr(v))
