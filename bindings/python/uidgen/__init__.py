# SPDX-License-Identifier: LGPL-2.1-or-later
"""uidgen: 64-bit, time-sortable, machine-unique IDs from /dev/uid.

The Python binding: os.read() and fcntl.ioctl() on /dev/uid, with the
structures of uapi/linux/uidgen.h. next() hands out IDs from a per-thread
run reserved with UIDGEN_IOC_RESERVE (never more than one tick stale,
dropped on a revoke, cut at an observed ID, empty in a forked child): with
the C extension uidgen._native (built from _native.c against libuidgen),
libuidgen's own uidgen_next(); without it, or with UIDGEN_PURE_PYTHON=1 in
the environment when the module is imported, the same cache in pure Python
(standard library only). NATIVE says which. batch(n) reads n IDs from the
kernel.
observe(id) makes every ID this machine mints afterwards greater than id
(UIDGEN_IOC_OBSERVE: causal order through the IDs a program receives).
decode(), to_uuid() and from_uuid() are libuidgen's arithmetic
(Documentation/uuid.rst), by the layout given, else the device's, else
(no device) the default one. Device errors are OSError subclasses carrying
the errno. JSONEncoder and to_json() write IDs into JSON as strings
(jsonids.py; a JavaScript number holds integers exactly only to 2^53 - 1).
"""
import builtins
import collections
import errno as _errno
import fcntl
import mmap
import os
import struct
import threading
import time
import uuid as _uuid

__all__ = ["NATIVE", "Uidgen", "Info", "Parts", "next", "batch", "info", "observe", "decode",
           "to_uuid", "from_uuid", "to_ulid", "from_ulid", "UidgenError",
           "NoDeviceError", "DevicePermissionError", "NoNodeError",
           "ExhaustedError", "InvalidIdError", "ClockAheadError"]

DEVICE = "/dev/uid"
ID_BITS = 63
NODE_NONE = 0xFFFFFFFF
BATCH_MAX = 65536

# uapi/linux/uidgen.h: _IO(0xB9, nr); the structures, native order.
_IOC_TYPE = 0xB9
IOC_BATCH = _IOC_TYPE << 8 | 0x01
IOC_INFO = _IOC_TYPE << 8 | 0x02
IOC_RESERVE = _IOC_TYPE << 8 | 0x03
IOC_OBSERVE = _IOC_TYPE << 8 | 0x07
_INFO = struct.Struct("=10I7Q")       # struct uidgen_info: 96 bytes
_RESERVE = struct.Struct("=4I2Q")     # struct uidgen_reserve: 32 bytes
_PAGE = struct.Struct("=IIQ")         # struct uidgen_page: fence, 0, observed
_OBSERVE = struct.Struct("=IIQ")      # struct uidgen_observe: 16 bytes
assert _INFO.size == 96 and _RESERVE.size == 32

_FIRST_RUN = 16     # as libuidgen: the first run, then doubling
_STALE_TICKS = 1

# The C extension, unless it is not built or pure Python is asked for.
# (No "_native = None" before the import: from . import would find it.)
try:
    if os.environ.get("UIDGEN_PURE_PYTHON") == "1":
        raise ImportError("UIDGEN_PURE_PYTHON=1")
    from . import _native
except ImportError:
    _native = None
NATIVE = _native is not None


class UidgenError(OSError):
    """A failure of /dev/uid or of the arithmetic, with its errno."""


class NoDeviceError(UidgenError, FileNotFoundError):
    """No /dev/uid (ENOENT, ENODEV, ENXIO): the module is not loaded."""


class DevicePermissionError(UidgenError, PermissionError):
    """EACCES, EPERM: /dev/uid is restricted to a group, or not root."""


class NoNodeError(UidgenError):
    """EADDRNOTAVAIL: no node ID assigned (none given, or revoked)."""


class ExhaustedError(UidgenError):
    """EOVERFLOW: the timestamp field has run out."""


class InvalidIdError(UidgenError, ValueError):
    """EINVAL, ERANGE: not an ID (or UUID) of this layout."""


class ClockAheadError(UidgenError):
    """EDOM: observe() of an ID too far ahead of this machine's clock."""


# Each hint is the whole next step: the module loads with no node ID,
# and the CLI assigns it (the units do at boot).
_NOT_LOADED = ("the uidgen kernel module is not loaded: as root, "
               "modprobe uidgen, then uidgen set-node N --new for a node ID that has never issued an ID, "
               "else uidgen state restore FILE with its state file "
               "(modprobe finds the module once make install or a package put it in place; "
               "from the source tree, insmod module/uidgen.ko, then uidgen set-node N --new)")
_HINTS = {
    _errno.ENOENT: (NoDeviceError, _NOT_LOADED),
    _errno.ENODEV: (NoDeviceError, _NOT_LOADED),
    _errno.ENXIO: (NoDeviceError, _NOT_LOADED),
    _errno.EACCES: (DevicePermissionError, "/dev/uid is restricted to a group (its udev rule, 60-uidgen.rules)"),
    _errno.EPERM: (DevicePermissionError, "needs CAP_SYS_ADMIN"),
    _errno.EADDRNOTAVAIL: (NoNodeError, "no node ID is assigned: as root, uidgen state restore FILE, or uidgen set-node N --new for a node ID that has never issued an ID"),
    _errno.EOVERFLOW: (ExhaustedError, "the timestamp field is exhausted for this layout"),
    _errno.EDOM: (ClockAheadError, "the ID is further ahead of this machine's clock than the "
                  "module's observe_ahead_ms: nothing was changed; check both machines' time "
                  "synchronisation"),
    _errno.EINVAL: (InvalidIdError, None),
    _errno.ERANGE: (InvalidIdError, None),
}


def _error(err, what):
    cls, hint = _HINTS.get(err, (UidgenError, None))
    msg = os.strerror(err) + (": " + hint if hint else "")
    return cls(err, msg, what)


Info = collections.namedtuple(
    "Info", "node_id node_state ts_bits node_bits slot_bits seq_bits nr_slots tick_ns "
    "epoch_unix_ns floor_unix_ns grant_unix_ns deadline_boot_ns token high_water_unix_ns")
Info.__doc__ = ("struct uidgen_info: the layout in force and the node ID, its floor, "
                "grant, lease deadline and token (times in ns, as the uapi has them).")

Parts = collections.namedtuple("Parts", "tick unix_ms unix_us node slot seq")
Parts.__doc__ = ("An ID's parts: its tick, the Unix ms and us its tick starts at "
                 "(unix_ms as libuidgen's uidgen_decode()), node, slot, sequence.")


def default_info():
    """The layout of a module loaded with no layout parameters."""
    return Info(NODE_NONE, 0, 41, 5, 5, 12, 32, 1000000, 1767225600000000000, 0, 0, 0, 0, 0)


def _check_layout(info):
    if (info.ts_bits + info.node_bits + info.slot_bits + info.seq_bits != ID_BITS
            or info.ts_bits == 0 or info.tick_ns == 0 or info.seq_bits >= 32
            or info.slot_bits >= 32 or info.node_bits >= 32):
        raise InvalidIdError(_errno.EINVAL, "not a valid layout", str(info))


def _check_id(id):
    if not isinstance(id, int) or isinstance(id, bool):
        raise TypeError("an ID is an int")
    if id < 0 or id >> ID_BITS:
        raise InvalidIdError(_errno.ERANGE, "not an ID: IDs are 0 to 2^63 - 1", str(id))


class _Cache(threading.local):
    owner = None    # (handle serial, fork generation) of the run
    next = end = start = 0
    deadline = 0
    fence = 0
    run = 0


_fork_gen = 0


def _after_fork():
    global _fork_gen
    _fork_gen += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)

_serials = iter(range(1, 1 << 62))


class Uidgen:
    """A handle on /dev/uid (or another path). Safe to share by threads."""

    def __init__(self, path=DEVICE):
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as e:
            raise _error(e.errno, path) from None
        self._serial = builtins.next(_serials)
        self._cache = _Cache()
        self._page = None
        self.layout = self.info()
        try:
            self._page = mmap.mmap(self.fd, mmap.PAGESIZE, mmap.MAP_SHARED, mmap.PROT_READ)
        except OSError:
            self._page = None       # not /dev/uid: no cache, one read a time
        self._seq_max = 1 << self.layout.seq_bits
        self._max_run = max(self._seq_max // 4, 1)
        self._tick_ns = self.layout.tick_ns
        # With the C extension, next() is libuidgen's uidgen_next() itself:
        # a bound C method in place of the pure-Python one below.
        self._native = None
        if _native is not None and self._page is not None:
            self._native = _native.Handle(path, _error)
            self.next = self._native.next

    def close(self):
        if self._native is not None:
            self._native.close()
        if self._page is not None:
            self._page.close()
            self._page = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def info(self):
        """UIDGEN_IOC_INFO: the layout in force and the node ID (an Info)."""
        buf = bytearray(_INFO.size)
        struct.pack_into("=II", buf, 0, _INFO.size, 0)
        try:
            fcntl.ioctl(self.fd, IOC_INFO, buf, True)
        except OSError as e:
            raise _error(e.errno, "UIDGEN_IOC_INFO") from None
        v = _INFO.unpack(buf)
        return Info(*v[2:9], *v[10:])       # no size, flags, __reserved

    def _read(self, n):
        want = 8 * n
        out = bytearray()
        while len(out) < want:
            try:
                b = os.read(self.fd, min(want - len(out), 8 * BATCH_MAX))
            except InterruptedError:
                continue
            except OSError as e:
                if out:
                    break
                raise _error(e.errno, "read " + DEVICE) from None
            out += b
        return out

    def batch(self, n):
        """n fresh IDs from the kernel (read(2) in runs of up to 65536)."""
        if n < 0:
            raise ValueError("batch(n): n must not be negative")
        ids = []
        while len(ids) < n:
            buf = self._read(n - len(ids))
            ids.extend(struct.unpack("=%dQ" % (len(buf) // 8), buf))
        return ids

    def next(self):
        """One fresh ID, from this thread's reserved run when it can."""
        c = self._cache
        if (c.next < c.end and c.owner == (self._serial, _fork_gen)
                and self._page_ok(c)
                and time.clock_gettime_ns(time.CLOCK_BOOTTIME) < c.deadline):
            id = c.next
            c.next = id + 1
            return id
        if self._page is None:
            return self.batch(1)[0]
        return self._refill(c)

    def _page_ok(self, c):
        # The fence unchanged (no revoke) and the next ID above every
        # observed one (an observe by any process cuts the run there).
        fence, _, observed = _PAGE.unpack_from(self._page)
        return fence == c.fence and c.next > observed

    def observe(self, id):
        """UIDGEN_IOC_OBSERVE: every ID this machine mints from now on, in
        any process and any cached run, is greater than id (an ID of this
        layout received from anywhere). ClockAheadError (EDOM) if id is more
        than the module's observe_ahead_ms ahead of this machine's clock."""
        _check_id(id)
        buf = bytearray(_OBSERVE.pack(_OBSERVE.size, 0, id))
        while True:
            try:
                fcntl.ioctl(self.fd, IOC_OBSERVE, buf, True)
                return
            except InterruptedError:
                continue
            except OSError as e:
                raise _error(e.errno, "UIDGEN_IOC_OBSERVE") from None

    def _refill(self, c):
        run = c.run
        if c.owner != (self._serial, _fork_gen) or not run:
            run = _FIRST_RUN
        elif c.next >= c.end:
            run *= 2
        else:
            run = max(c.next - c.start, 1)
        run = min(run, self._max_run)
        c.owner = None
        buf = bytearray(_RESERVE.pack(_RESERVE.size, 0, run, 0, 0, 0))
        while True:
            try:
                fcntl.ioctl(self.fd, IOC_RESERVE, buf, True)
                break
            except InterruptedError:
                continue
            except OSError as e:
                raise _error(e.errno, "UIDGEN_IOC_RESERVE") from None
        _, _, count, fence, first, expires = _RESERVE.unpack(buf)
        c.run = run
        c.start = first
        c.next = first + 1
        c.end = first + count
        c.fence = fence
        c.deadline = expires + _STALE_TICKS * self._tick_ns
        c.owner = (self._serial, _fork_gen)
        return first

    def decode(self, id):
        return decode(id, self.layout)

    def to_uuid(self, id, v8=False):
        return to_uuid(id, self.layout, v8)

    def from_uuid(self, u):
        return from_uuid(u, self.layout)


_default = None
_default_lock = threading.Lock()


def _handle():
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Uidgen(DEVICE)
    return _default


def next():    # noqa: A001 (uidgen.next(), as in the C library)
    """One fresh ID from /dev/uid (the module's shared handle)."""
    g = _default
    return (g if g is not None else _handle()).next()


def batch(n):
    """n fresh IDs from /dev/uid."""
    return _handle().batch(n)


def observe(id):
    """Every ID this machine mints from now on is greater than id."""
    return _handle().observe(id)


def info():
    """The layout in force and the node ID (UIDGEN_IOC_INFO)."""
    return _handle().info()


def _layout(info):
    """@info; else the device's layout; with no device (the module not
    loaded), the default layout, as the CLI's decode takes it."""
    if info is not None:
        return info
    try:
        return _handle().layout
    except NoDeviceError:
        return default_info()


def decode(id, info=None):
    """The parts of an ID (a Parts), by @info, else the device's layout,
    else (no device) the default layout."""
    info = _layout(info)
    _check_layout(info)
    _check_id(id)
    low = ID_BITS - info.ts_bits
    tick = id >> low
    ns = info.epoch_unix_ns + tick * info.tick_ns
    return Parts(tick, ns // 1000000, ns // 1000,
                 (id >> (info.slot_bits + info.seq_bits)) & ((1 << info.node_bits) - 1),
                 (id >> info.seq_bits) & ((1 << info.slot_bits) - 1),
                 id & ((1 << info.seq_bits) - 1))


def _whole_us(info, what):
    # The UUID mapping is exact in microseconds: so must the tick and epoch be.
    if info.tick_ns % 1000 or info.epoch_unix_ns % 1000:
        raise InvalidIdError(_errno.EINVAL, "a tick or epoch not in whole us", what)


def _to_int(id, info, v8):
    p = decode(id, info)
    _whole_us(info, str(id))
    ms, sub = divmod(p.unix_us, 1000)
    if ms >> 48:
        raise InvalidIdError(_errno.ERANGE, "its tick starts past 2^48 ms", str(id))
    low = ID_BITS - info.ts_bits
    hi = ms << 16 | (8 if v8 else 7) << 12 | sub * 4096 // 1000
    lo = 2 << 62 | (id & ((1 << low) - 1)) << (62 - low)
    return hi << 64 | lo


def to_uuid(id, info=None, v8=False):
    """The lossless, order-keeping UUIDv7 (v8 with v8=True) of an ID."""
    return _uuid.UUID(int=_to_int(id, _layout(info), v8))


def from_uuid(u, info=None):
    """The ID of a UUID from to_uuid() (a uuid.UUID, its text, or a ULID)."""
    info = _layout(info)
    _check_layout(info)
    _whole_us(info, str(u))
    if isinstance(u, str):
        u = _uuid.UUID(int=_ulid_int(u)) if len(u) == 26 else _uuid.UUID(u)
    v = u.int
    hi, lo = v >> 64, v & ((1 << 64) - 1)
    bad = InvalidIdError(_errno.EINVAL, "not the UUID of an ID in this layout", str(u))
    if (hi >> 12) & 0xF not in (7, 8) or lo >> 62 != 2:
        raise bad
    frac = hi & 0xFFF
    sub = (frac * 1000 + 4095) // 4096
    if sub >= 1000 or sub * 4096 // 1000 != frac:
        raise bad
    us = (hi >> 16) * 1000 + sub - info.epoch_unix_ns // 1000
    if us < 0:
        raise InvalidIdError(_errno.ERANGE, "before the layout's epoch", str(u))
    if us % (info.tick_ns // 1000):
        raise bad
    tick = us // (info.tick_ns // 1000)
    if tick >> info.ts_bits:
        raise InvalidIdError(_errno.ERANGE, "after the layout's last tick", str(u))
    low = ID_BITS - info.ts_bits
    rest = lo & ((1 << 62) - 1)
    if rest & ((1 << (62 - low)) - 1):
        raise bad
    return tick << low | rest >> (62 - low)


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def to_ulid(id, info=None):
    """The ULID of an ID: the UUIDv7's 128 bits in 26 Crockford digits."""
    v = _to_int(id, _layout(info), False)
    return "".join(_CROCKFORD[(v >> (5 * (25 - i))) & 31] for i in range(26))


def _ulid_int(s):
    v = 0
    for i, ch in enumerate(s.upper().replace("O", "0").replace("I", "1").replace("L", "1")):
        d = _CROCKFORD.find(ch)
        if d < 0 or (i == 0 and d > 7):
            raise InvalidIdError(_errno.EINVAL, "not a ULID", s)
        v = v << 5 | d
    return v


def from_ulid(s, info=None):
    """The ID of a ULID from to_ulid()."""
    if len(s) != 26:
        raise InvalidIdError(_errno.EINVAL, "a ULID has 26 characters", s)
    return from_uuid(_uuid.UUID(int=_ulid_int(s)), info)


# The public form (public.py), at the end: it needs the errors above.
from .public import (Keys, NoKeyError, KeyRejectedError, KeyFileError,  # noqa: E402
                     KeyFilePermissionError)
__all__ += ["Keys", "NoKeyError", "KeyRejectedError", "KeyFileError", "KeyFilePermissionError"]
# IDs in JSON (jsonids.py): ints beyond 2^53 - 1 out as strings.
from .jsonids import MAX_SAFE_INTEGER, JSONEncoder, to_json, id_from_json  # noqa: E402
__all__ += ["MAX_SAFE_INTEGER", "JSONEncoder", "to_json", "id_from_json"]
