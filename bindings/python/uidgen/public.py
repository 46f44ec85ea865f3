# SPDX-License-Identifier: LGPL-2.1-or-later
"""The opaque public form of an ID, as libuidgen makes it (userlib/public.c,
man 3 uidgen_public, Documentation/public-ids.rst): an 8-round Feistel network
over the ID's 32-bit halves with SipHash-2-4 as the round function; a text of
13 base62 characters (key ID, 11 token digits, check digit), a decimal
form and a short code (the 11 token digits alone); key sets and key files,
with libuidgen's format and permission checks.
Pure Python, standard library only; its tests compare every token with
libuidgen's (tests/lib/idref -k)."""
import errno as _errno
import os
import stat

from . import UidgenError, InvalidIdError

ROUNDS = 8
KEY_BYTES = 16
KEY_IDS = 62
TEXT_LEN = 13
SHORT_LEN = 11
_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_B62V = {c: i for i, c in enumerate(_B62)}
_KEYFILE_MAX = 64 * 1024


class NoKeyError(UidgenError, LookupError):
    """ENOKEY: the key set holds no key of that key ID (or no key at all)."""


class KeyRejectedError(UidgenError, ValueError):
    """EKEYREJECTED: the check digit does not match, or the token opens to no
    ID: a token of another key under the same key ID, or mistyped."""


class KeyFileError(UidgenError, ValueError):
    """EINVAL, EEXIST: a malformed key file; .line is the line (from 1)."""

    def __init__(self, err, msg, filename=None, line=0):
        super().__init__(err, msg, filename)
        self.line = line


class KeyFilePermissionError(UidgenError, PermissionError):
    """EPERM: a key file others may read or write, the group may write, or
    another user owns."""


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M64


def _siphash(k0, k1, m):
    """SipHash-2-4 of the bytes m under the key (k0, k1), as an int."""
    v0 = k0 ^ 0x736f6d6570736575
    v1 = k1 ^ 0x646f72616e646f6d
    v2 = k0 ^ 0x6c7967656e657261
    v3 = k1 ^ 0x7465646279746573
    n = len(m)
    end = n - n % 8
    words = [int.from_bytes(m[i:i + 8], "little") for i in range(0, end, 8)]
    words.append(int.from_bytes(m[end:], "little") | (n & 0xff) << 56)
    for w in words:
        v3 ^= w
        for _ in range(2):
            v0 = (v0 + v1) & _M64; v1 = _rotl(v1, 13); v1 ^= v0; v0 = _rotl(v0, 32)  # noqa: E702
            v2 = (v2 + v3) & _M64; v3 = _rotl(v3, 16); v3 ^= v2                      # noqa: E702
            v0 = (v0 + v3) & _M64; v3 = _rotl(v3, 21); v3 ^= v0                      # noqa: E702
            v2 = (v2 + v1) & _M64; v1 = _rotl(v1, 17); v1 ^= v2; v2 = _rotl(v2, 32)  # noqa: E702
        v0 ^= w
    v2 ^= 0xff
    for _ in range(4):
        v0 = (v0 + v1) & _M64; v1 = _rotl(v1, 13); v1 ^= v0; v0 = _rotl(v0, 32)  # noqa: E702
        v2 = (v2 + v3) & _M64; v3 = _rotl(v3, 16); v3 ^= v2                      # noqa: E702
        v0 = (v0 + v3) & _M64; v3 = _rotl(v3, 21); v3 ^= v0                      # noqa: E702
        v2 = (v2 + v1) & _M64; v1 = _rotl(v1, 17); v1 ^= v2; v2 = _rotl(v2, 32)  # noqa: E702
    return v0 ^ v1 ^ v2 ^ v3


def siphash24(key, data):
    """SipHash-2-4 of bytes data under a 16-byte key, as a 64-bit int."""
    return _siphash(int.from_bytes(key[:8], "little"), int.from_bytes(key[8:16], "little"),
                    bytes(data))


def _sip8(k0, k1, w):
    """SipHash-2-4 of the 8 bytes le64(w), unrolled: the round function."""
    M = _M64
    v0 = k0 ^ 0x736f6d6570736575
    v1 = k1 ^ 0x646f72616e646f6d
    v2 = k0 ^ 0x6c7967656e657261
    v3 = k1 ^ 0x7465646279746573 ^ w
    for r in range(8):
        v0 = (v0 + v1) & M
        v1 = ((v1 << 13) | (v1 >> 51)) & M ^ v0
        v0 = ((v0 << 32) | (v0 >> 32)) & M
        v2 = (v2 + v3) & M
        v3 = ((v3 << 16) | (v3 >> 48)) & M ^ v2
        v0 = (v0 + v3) & M
        v3 = ((v3 << 21) | (v3 >> 43)) & M ^ v0
        v2 = (v2 + v1) & M
        v1 = ((v1 << 17) | (v1 >> 47)) & M ^ v2
        v2 = ((v2 << 32) | (v2 >> 32)) & M
        if r == 1:
            v0 ^= w
            v3 ^= 8 << 56
        elif r == 3:
            v0 ^= 8 << 56
            v2 ^= 0xff
    return v0 ^ v1 ^ v2 ^ v3


def feistel(key, x, half_bits=32, decrypt=False):
    """The permutation on 2 * half_bits bits (32 for tokens; smaller for tests)."""
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:16], "little")
    mask = (1 << half_bits) - 1
    left, right = x >> half_bits & mask, x & mask
    if not decrypt:
        for i in range(ROUNDS):
            left, right = right, left ^ (_sip8(k0, k1, i << 32 | right) & mask)
    else:
        for i in reversed(range(ROUNDS)):
            left, right = right ^ (_sip8(k0, k1, i << 32 | left) & mask), left
    return left << half_bits | right


def _b62_digits(v):
    s = []
    for _ in range(TEXT_LEN - 2):
        v, d = divmod(v, 62)
        s.append(_B62[d])
    return "".join(reversed(s))


def _check_id(id):
    if not isinstance(id, int) or isinstance(id, bool) or not 0 <= id < 1 << 63:
        raise InvalidIdError(_errno.ERANGE, "not an ID: IDs are 0 to 2^63 - 1", str(id))


class Keys:
    """A key set: up to 62 keys of 16 bytes, each named by a key ID (0..61,
    written as one of 0-9A-Za-z); the last added is the current one."""

    def __init__(self):
        self._keys = {}
        self._order = []

    def add(self, key_id, key):
        """Add key (16 bytes) as key_id; it becomes the current key."""
        if not isinstance(key_id, int) or not 0 <= key_id < KEY_IDS:
            raise InvalidIdError(_errno.EINVAL, "key IDs are 0 to 61", str(key_id))
        if len(key) != KEY_BYTES:
            raise InvalidIdError(_errno.EINVAL, "a key is 16 bytes", str(len(key)))
        if key_id in self._keys:
            raise KeyFileError(_errno.EEXIST, "key ID %s is in the set already" % _B62[key_id])
        self._keys[key_id] = bytes(key)
        self._order.append(key_id)

    def generate(self):
        """Add a key from os.getrandom() under the first free key ID after
        the current one's (1 in an empty set); return its key ID."""
        kid = self._order[-1] + 1 if self._order else 1
        for _ in range(KEY_IDS):
            if kid % KEY_IDS not in self._keys:
                break
            kid += 1
        else:
            raise UidgenError(_errno.ENOSPC, "all 62 key IDs are taken")
        kid %= KEY_IDS
        self.add(kid, os.getrandom(KEY_BYTES))
        return kid

    @property
    def current(self):
        """The current key's ID."""
        if not self._order:
            raise NoKeyError(_errno.ENOKEY, "no key in the set")
        return self._order[-1]

    def _key(self, key_id):
        if key_id is None:
            key_id = self.current
        if not isinstance(key_id, int) or not 0 <= key_id < KEY_IDS:
            raise InvalidIdError(_errno.EINVAL, "key IDs are 0 to 61", str(key_id))
        try:
            return key_id, self._keys[key_id]
        except KeyError:
            raise NoKeyError(_errno.ENOKEY, "no key %s in the set" % _B62[key_id]) from None

    def public(self, id, key_id=None):
        """The 64-bit token of an ID under key_id (None: the current key)."""
        _check_id(id)
        return feistel(self._key(key_id)[1], id)

    def private(self, token, key_id=None):
        """The ID a 64-bit token opens to under key_id (None: the current key)."""
        if not isinstance(token, int) or not 0 <= token <= _M64:
            raise InvalidIdError(_errno.EINVAL, "not a 64-bit token", str(token))
        id = feistel(self._key(key_id)[1], token, decrypt=True)
        if id >> 63:
            raise KeyRejectedError(_errno.EKEYREJECTED, "not a token of this key", str(token))
        return id

    @staticmethod
    def _check_digit(key, key_id, token):
        return _B62[siphash24(key, token.to_bytes(8, "little") + bytes([key_id])) % 62]

    def format(self, id, key_id=None, decimal=False, short=False):
        """The token of an ID as its 13-character text, in decimal, or (short)
        as its short code: the text's 11 token digits alone."""
        kid, key = self._key(key_id)
        token = self.public(id, kid)
        if decimal:
            return str(token)
        if short:
            return _b62_digits(token)
        return _B62[kid] + _b62_digits(token) + self._check_digit(key, kid, token)

    def parse(self, s, key_id=None, decimal=False, short=False):
        """The ID of a token's text (or decimal form or short code, opened
        with key_id)."""
        if decimal:
            if not s or not s.isascii() or not s.isdigit() or (s[0] == "0" and len(s) > 1) \
                    or int(s) > _M64:
                raise InvalidIdError(_errno.EINVAL, "not a decimal token", s)
            return self.private(int(s), key_id)
        if short:
            if len(s) != SHORT_LEN or any(c not in _B62V for c in s):
                raise InvalidIdError(_errno.EINVAL, "not a short code: 11 characters of 0-9A-Za-z", s)
            token = 0
            for c in s:
                token = token * 62 + _B62V[c]
            if token > _M64:
                raise InvalidIdError(_errno.EINVAL, "not a short code: past 2^64", s)
            return self.private(token, key_id)
        if len(s) != TEXT_LEN or any(c not in _B62V for c in s):
            raise InvalidIdError(_errno.EINVAL, "not a token: 13 characters of 0-9A-Za-z", s)
        token = 0
        for c in s[1:-1]:
            token = token * 62 + _B62V[c]
        if token > _M64:
            raise InvalidIdError(_errno.EINVAL, "not a token: past 2^64", s)
        kid = _B62V[s[0]]
        if key_id is not None and key_id != kid:
            raise KeyRejectedError(_errno.EKEYREJECTED, "made under key %s, not %s" %
                                   (s[0], _B62[key_id]), s)
        kid, key = self._key(kid)
        if s[-1] != self._check_digit(key, kid, token):
            raise KeyRejectedError(_errno.EKEYREJECTED, "not a token of key %s (check digit)" % s[0], s)
        return self.private(token, kid)

    @classmethod
    def from_text(cls, text, filename=None):
        """A key set from a key file's text."""
        keys = cls()
        for n, line in enumerate(text.split("\n"), 1):
            if line.endswith("\r"):
                line = line[:-1]
            s = line.lstrip(" \t")
            if not s or s[0] == "#":
                continue
            rest = s[1:].lstrip(" \t")
            hx, tail = rest[:2 * KEY_BYTES], rest[2 * KEY_BYTES:]
            if s[0] not in _B62V or len(s) < 2 or s[1] not in " \t" or \
                    len(hx) != 2 * KEY_BYTES or any(c not in "0123456789abcdefABCDEF" for c in hx) or \
                    tail.strip(" \t"):
                raise KeyFileError(_errno.EINVAL, "line %d: not a key ID, blanks and 32 hex digits"
                                   % n, filename, n)
            try:
                keys.add(_B62V[s[0]], bytes.fromhex(hx))
            except KeyFileError as e:
                raise KeyFileError(e.errno, "line %d: %s" % (n, e.strerror), filename, n) from None
        if not keys._order:
            raise NoKeyError(_errno.ENOKEY, "no key in the key file", filename)
        return keys

    @classmethod
    def load(cls, path):
        """A key set from a key file, refused (KeyFilePermissionError) if
        others may read or write it, the group may write it, or a user
        other than root and this process's owns it."""
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise KeyFileError(_errno.EINVAL, "not a regular file", path)
            if st.st_mode & (stat.S_IRWXO | stat.S_IWGRP) or st.st_uid not in (0, os.geteuid()):
                raise KeyFilePermissionError(
                    _errno.EPERM, "others may read it, or the group write it (mode %04o), "
                    "or another user owns it: chmod o=,g-w, owner root or this user"
                    % (st.st_mode & 0o7777), path)
            data = b""
            while len(data) <= _KEYFILE_MAX:
                chunk = os.read(fd, _KEYFILE_MAX + 1 - len(data))
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        if len(data) > _KEYFILE_MAX:
            raise UidgenError(_errno.EFBIG, "a key file over 64 KiB", path)
        text = data.decode("latin-1")     # byte for byte, as libuidgen reads it
        if "\0" in text:
            raise KeyFileError(_errno.EINVAL, "not text", path)
        return cls.from_text(text, path)

    def to_text(self):
        """The key file's text: a comment, then one key a line, current last."""
        head = ("# uidgen public-ID keys (man 3 uidgen_public): a key ID (one of 0-9A-Za-z)\n"
                "# and 32 hex digits a line. The last key makes new tokens; every key\n"
                "# listed opens the tokens made under it. Keep secret: a leak opens them all.\n")
        return head + "".join("%s %s\n" % (_B62[k], self._keys[k].hex()) for k in self._order)
