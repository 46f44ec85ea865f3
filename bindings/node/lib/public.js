// SPDX-License-Identifier: LGPL-2.1-or-later
// The opaque public form of an ID, as libuidgen makes it (userlib/public.c,
// man 3 uidgen_public, Documentation/public-ids.rst): key sets and key files
// (libuidgen's format and permission checks, read here in JS), and the
// tokens: through the native addon's uidgen_public() and its kin when it is
// built, else the same 8-round Feistel network over SipHash-2-4 in pure JS
// (BigInt; some 100 times slower); each token's three texts (13 characters,
// decimal, and the 11-character short code). Its tests compare every token
// and code with libuidgen's (tests/lib/idref -k, -S, -s; the CLI in the VM).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const {
  E, UidgenError, InvalidIdError, NoKeyError, KeyRejectedError, KeyFileError,
  KeyFilePermissionError, errorFor, fromSystem,
} = require('./errors');

const ROUNDS = 8;
const KEY_BYTES = 16;
const KEY_IDS = 62;
const TEXT_LEN = 13;
const SHORT_LEN = 11;
// libuidgen's forms (UIDGEN_PUBLIC_TEXT, _DEC, _SHORT), as the addon takes them.
const TEXT = 0;
const DEC = 1;
const SHORT = 2;
const M64 = (1n << 64n) - 1n;
const M32 = 0xffffffffn;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEYFILE_MAX = 64 * 1024;

function b62v(c) {
  const i = B62.indexOf(c);
  return c.length === 1 ? i : -1;
}

/** The form {decimal, short} asks for; both at once is no form. */
function formOf(decimal, short) {
  if (decimal && short) throw new TypeError('decimal or short: one form at a time');
  return short ? SHORT : decimal ? DEC : TEXT;
}

/** The 11 base62 digits of a 64-bit token, most significant first. */
function b62Digits(token) {
  let s = '';
  for (let i = 0, t = token; i < SHORT_LEN; i++, t /= 62n) s = B62[Number(t % 62n)] + s;
  return s;
}

const rotl = (x, b) => ((x << b) | (x >> (64n - b))) & M64;

/** SipHash-2-4 of the bytes @m under the 16-byte key, a 64-bit BigInt. */
function siphash24(key, m) {
  const k0 = key.readBigUInt64LE(0);
  const k1 = key.readBigUInt64LE(8);
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const n = m.length;
  const end = n - (n % 8);
  const words = [];
  for (let i = 0; i < end; i += 8) words.push(m.readBigUInt64LE(i));
  let last = BigInt(n & 0xff) << 56n;
  for (let i = end; i < n; i++) last |= BigInt(m[i]) << BigInt(8 * (i - end));
  words.push(last);
  const round = () => {
    v0 = (v0 + v1) & M64; v1 = rotl(v1, 13n); v1 ^= v0; v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & M64; v3 = rotl(v3, 16n); v3 ^= v2;
    v0 = (v0 + v3) & M64; v3 = rotl(v3, 21n); v3 ^= v0;
    v2 = (v2 + v1) & M64; v1 = rotl(v1, 17n); v1 ^= v2; v2 = rotl(v2, 32n);
  };
  for (const w of words) {
    v3 ^= w;
    round(); round();
    v0 ^= w;
  }
  v2 ^= 0xffn;
  round(); round(); round(); round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/** The permutation on 2 * halfBits bits (32 for tokens). */
function feistel(key, x, halfBits = 32, decrypt = false) {
  const hb = BigInt(halfBits);
  const mask = (1n << hb) - 1n;
  const m = Buffer.alloc(8);
  const f = (i, r) => {
    m.writeBigUInt64LE(BigInt(i) << 32n | r);
    return siphash24(key, m) & mask;
  };
  let l = (x >> hb) & mask;
  let r = x & mask;
  if (!decrypt) {
    for (let i = 0; i < ROUNDS; i++) [l, r] = [r, l ^ f(i, r)];
  } else {
    for (let i = ROUNDS - 1; i >= 0; i--) [l, r] = [r ^ f(i, l), l];
  }
  return l << hb | r;
}

function checkDigit(key, kid, token) {
  const m = Buffer.alloc(9);
  m.writeBigUInt64LE(token);
  m[8] = kid;
  return B62[Number(siphash24(key, m) % 62n)];
}

/** An ID argument as a BigInt: a BigInt, a decimal string or a safe integer Number. */
function toId(id, what = 'ID') {
  if (typeof id === 'bigint') return id;
  if (typeof id === 'string' && /^[0-9]{1,20}$/.test(id)) return BigInt(id);
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return BigInt(id);
  if (typeof id === 'number') {
    throw new InvalidIdError(E.ERANGE, `not a safe integer: ${what}s above 2^53 lose their low ` +
      'bits as a JS Number; pass a BigInt or a decimal string', String(id));
  }
  throw new TypeError(`${what}: a BigInt, a decimal string or a safe integer`);
}

function checkId(id) {
  if (id < 0n || id >> 63n) {
    throw new InvalidIdError(E.ERANGE, 'not an ID: IDs are 0 to 2^63 - 1', String(id));
  }
  return id;
}

let native = null;

/**
 * A key set: up to 62 keys of 16 bytes, each named by a key ID (0..61,
 * written as one of 0-9A-Za-z); the last added is the current one.
 */
class Keys {
  constructor() {
    this._keys = new Map();
    this._order = [];
    this._native = null;
  }

  /** Add @key (16 bytes) as @keyId; it becomes the current key. */
  add(keyId, key) {
    if (!Number.isInteger(keyId) || keyId < 0 || keyId >= KEY_IDS) {
      throw new InvalidIdError(E.EINVAL, 'key IDs are 0 to 61', String(keyId));
    }
    if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
      throw new InvalidIdError(E.EINVAL, 'a key is 16 bytes');
    }
    if (this._keys.has(keyId)) {
      throw new KeyFileError(E.EEXIST, `key ID ${B62[keyId]} is in the set already`);
    }
    const k = Buffer.from(key);
    this._keys.set(keyId, k);
    this._order.push(keyId);
    if (this._native) native.keysAdd(this._native, keyId, k);
  }

  /** Add a new key from crypto.randomBytes() under the first free key ID
   * after the current one's (1 in an empty set); its key ID. */
  generate() {
    let kid = this._order.length ? this._order[this._order.length - 1] + 1 : 1;
    let i = 0;
    for (; i < KEY_IDS && this._keys.has(kid % KEY_IDS); i++) kid++;
    if (i === KEY_IDS) throw new UidgenError(E.ENOSPC, 'all 62 key IDs are taken');
    kid %= KEY_IDS;
    this.add(kid, crypto.randomBytes(KEY_BYTES));
    return kid;
  }

  /** The current key's ID. */
  get current() {
    if (!this._order.length) throw new NoKeyError(E.ENOKEY, 'no key in the set');
    return this._order[this._order.length - 1];
  }

  _key(keyId) {
    if (keyId === undefined || keyId === null) keyId = this.current;
    if (!Number.isInteger(keyId) || keyId < 0 || keyId >= KEY_IDS) {
      throw new InvalidIdError(E.EINVAL, 'key IDs are 0 to 61', String(keyId));
    }
    const k = this._keys.get(keyId);
    if (!k) throw new NoKeyError(E.ENOKEY, `no key ${B62[keyId]} in the set`);
    return [keyId, k];
  }

  // The addon's copy of the set (uidgen_keys_add() of each key, in order).
  _nat() {
    if (!native) return null;
    if (!this._native) {
      const h = native.keysNew();
      for (const kid of this._order) native.keysAdd(h, kid, this._keys.get(kid));
      this._native = h;
    }
    return this._native;
  }

  /** The 64-bit token of an ID (uidgen_public()), under @keyId (default: the current key). */
  public(id, keyId) {
    id = checkId(toId(id));
    const [kid, key] = this._key(keyId);
    const h = this._nat();
    return h ? native.publicToken(h, kid, id) : feistel(key, id);
  }

  /** The ID a 64-bit token opens to (uidgen_private()); KeyRejectedError if none. */
  private(token, keyId) {
    token = toId(token, 'token');
    if (token < 0n || token > M64) {
      throw new InvalidIdError(E.EINVAL, 'not a 64-bit token', String(token));
    }
    const [kid, key] = this._key(keyId);
    const h = this._nat();
    if (h) return native.privateId(h, kid, token);
    const id = feistel(key, token, 32, true);
    if (id >> 63n) {
      throw new KeyRejectedError(E.EKEYREJECTED, 'not a token of this key (it opens to no ID)',
        String(token));
    }
    return id;
  }

  /** The token of an ID as its 13-character text (uidgen_format_public()),
   * with {decimal: true} the bare token in decimal, or with {short: true}
   * its short code: the text's 11 token digits alone (UIDGEN_PUBLIC_SHORT). */
  format(id, { keyId, decimal = false, short = false } = {}) {
    const form = formOf(decimal, short);
    id = checkId(toId(id));
    const [kid, key] = this._key(keyId);
    const h = this._nat();
    if (h) return native.formatPublic(h, kid, id, form);
    const token = feistel(key, id);
    if (form === DEC) return token.toString();
    if (form === SHORT) return b62Digits(token);
    return B62[kid] + b62Digits(token) + checkDigit(key, kid, token);
  }

  /** The ID of a token's text (uidgen_parse_public()), or of a decimal token
   * with {decimal: true}, or of a short code with {short: true} (those two
   * opened with @keyId, default the current key). */
  parse(s, { keyId, decimal = false, short = false } = {}) {
    const form = formOf(decimal, short);
    if (typeof s !== 'string') throw new TypeError("a token's text is a string");
    if (keyId !== undefined && keyId !== null) this._keyIdCheck(keyId);
    const h = this._nat();
    if (h) return native.parsePublic(h, keyId === undefined || keyId === null ? -1 : keyId, s, form);
    if (form === DEC) {
      if (!/^(0|[1-9][0-9]{0,19})$/.test(s) || BigInt(s) > M64) {
        throw new InvalidIdError(E.EINVAL, 'not a decimal token', s);
      }
      return this.private(BigInt(s), keyId);
    }
    if (form === SHORT) {
      if (s.length !== SHORT_LEN || [...s].some((c) => b62v(c) < 0)) {
        throw new InvalidIdError(E.EINVAL, 'not a short code: 11 characters of 0-9A-Za-z', s);
      }
      let token = 0n;
      for (const c of s) token = token * 62n + BigInt(b62v(c));
      if (token > M64) throw new InvalidIdError(E.EINVAL, 'not a short code: past 2^64', s);
      return this.private(token, keyId);
    }
    if (s.length !== TEXT_LEN || [...s].some((c) => b62v(c) < 0)) {
      throw new InvalidIdError(E.EINVAL, 'not a token: 13 characters of 0-9A-Za-z', s);
    }
    let token = 0n;
    for (const c of s.slice(1, -1)) token = token * 62n + BigInt(b62v(c));
    if (token > M64) throw new InvalidIdError(E.EINVAL, 'not a token: past 2^64', s);
    const kid = b62v(s[0]);
    if (keyId !== undefined && keyId !== null && keyId !== kid) {
      throw new KeyRejectedError(E.EKEYREJECTED, `made under key ${s[0]}, not ${B62[keyId]}`, s);
    }
    const [, key] = this._key(kid);
    if (s[TEXT_LEN - 1] !== checkDigit(key, kid, token)) {
      throw new KeyRejectedError(E.EKEYREJECTED, `not a token of key ${s[0]} (check digit)`, s);
    }
    return this.private(token, kid);
  }

  _keyIdCheck(keyId) {
    if (!Number.isInteger(keyId) || keyId < 0 || keyId >= KEY_IDS) {
      throw new InvalidIdError(E.EINVAL, 'key IDs are 0 to 61', String(keyId));
    }
  }

  /** A key set from a key file's text (libuidgen's format). */
  static fromText(text, filename) {
    const keys = new Keys();
    const lines = text.split('\n');
    // A last line that is empty (text ending in "\n") is not a line.
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.forEach((raw, i) => {
      const n = i + 1;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      const s = line.replace(/^[ \t]+/, '');
      if (!s || s[0] === '#') return;
      const rest = s.slice(1).replace(/^[ \t]+/, '');
      const hx = rest.slice(0, 2 * KEY_BYTES);
      const tail = rest.slice(2 * KEY_BYTES);
      if (b62v(s[0]) < 0 || s.length < 2 || !' \t'.includes(s[1]) ||
          !/^[0-9a-fA-F]{32}$/.test(hx) || tail.replace(/[ \t]/g, '')) {
        throw new KeyFileError(E.EINVAL, `line ${n}: not a key ID, blanks and 32 hex digits`,
          filename, n);
      }
      try {
        keys.add(b62v(s[0]), Buffer.from(hx, 'hex'));
      } catch (e) {
        if (e instanceof KeyFileError) {
          throw new KeyFileError(e.errno, `line ${n}: key ID ${s[0]} is in the file twice`,
            filename, n);
        }
        throw e;
      }
    });
    if (!keys._order.length) throw new NoKeyError(E.ENOKEY, 'no key in the key file', filename);
    return keys;
  }

  /**
   * A key set from a key file, refused (KeyFilePermissionError) if others
   * may read or write it, the group may write it, or a user other than root
   * and this process's owns it: libuidgen's uidgen_keys_load().
   */
  static load(path) {
    let fd;
    try {
      fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOCTTY);
    } catch (e) {
      throw fromSystem(e, path);
    }
    let data;
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new KeyFileError(E.EINVAL, 'not a regular file', path);
      if (st.mode & 0o027 || (st.uid !== 0 && st.uid !== process.geteuid())) {
        throw new KeyFilePermissionError(E.EPERM, 'others may read it, or the group write it ' +
          `(mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}), or another user owns it: ` +
          'chmod o=,g-w, owner root or this user', path);
      }
      const buf = Buffer.alloc(KEYFILE_MAX + 1);
      let len = 0;
      for (;;) {
        const r = fs.readSync(fd, buf, len, buf.length - len, null);
        if (!r) break;
        len += r;
        if (len > KEYFILE_MAX) break;
      }
      if (len > KEYFILE_MAX) throw errorFor(E.EFBIG, path);
      data = buf.subarray(0, len);
      if (data.includes(0)) throw new KeyFileError(E.EINVAL, 'not text', path);
      data = data.toString('latin1');
      buf.fill(0);
    } catch (e) {
      throw e instanceof UidgenError ? e : fromSystem(e, path);
    } finally {
      fs.closeSync(fd);
    }
    return Keys.fromText(data, path);
  }

  /** The key file's text: a comment, then one key a line, current last. */
  toText() {
    const head = '# uidgen public-ID keys (man 3 uidgen_public): a key ID (one of 0-9A-Za-z)\n' +
      '# and 32 hex digits a line. The last key makes new tokens; every key\n' +
      '# listed opens the tokens made under it. Keep secret: a leak opens them all.\n';
    return head + this._order.map((k) => `${B62[k]} ${this._keys.get(k).toString('hex')}\n`).join('');
  }
}

module.exports = {
  Keys, siphash24, feistel, toId, checkId, ROUNDS, KEY_BYTES, KEY_IDS, TEXT_LEN, SHORT_LEN,
  setNative(n) { native = n; },
};
