// SPDX-License-Identifier: LGPL-2.1-or-later
// uidgen for Node.js: 64-bit, time-sortable, machine-unique IDs from the
// uidgen kernel module's /dev/uid, as BigInts and decimal strings.
//
// Two backends, one API. The native addon (build/uidgen.node, built by
// build.sh against the system's N-API headers with libuidgen compiled in)
// gives next() from libuidgen's per-thread reserved run (uidgen_next(): no
// system call for most IDs, never more than one tick stale, dropped on a
// revoke or a VM fork, cut at an observed ID), observe(), and the public
// form at C speed. Without it (no headers, no compiler, or
// UIDGEN_NODE_BACKEND=js) the pure-JS fallback reads /dev/uid with
// fs.readSync(), one read() per next() (8 bytes, a little-endian u64), one
// per batch(n); decode() takes the layout from /sys/module/uidgen/parameters;
// tokens are computed in BigInt arithmetic; observe() needs the addon.
// README.md weighs the two.
'use strict';

const fs = require('fs');
const path = require('path');
const errors = require('./errors');
const pub = require('./public');

const { E, InvalidIdError, NoDeviceError, NeedsAddonError, errorFor, fromSystem } = errors;
const { Keys, toId, checkId } = pub;

const DEVICE = '/dev/uid';
const ID_BITS = 63n;
const BATCH_MAX = 65536;
const PARAMS = '/sys/module/uidgen/parameters';

// The backend: UIDGEN_NODE_BACKEND=js forces the fallback, =addon insists on
// the addon (an error if it is not built); unset, the addon if it loads.
function loadAddon() {
  const want = process.env.UIDGEN_NODE_BACKEND;
  if (want === 'js') return null;
  try {
    return require(path.join(__dirname, '..', 'build', 'uidgen.node'));
  } catch (e) {
    if (want === 'addon') {
      throw new Error(`uidgen: UIDGEN_NODE_BACKEND=addon, but the addon does not load (${e.message}): ` +
        'build it with `npm run build` (sh build.sh)');
    }
    return null;
  }
}
const native = loadAddon();
if (native) native.setErrorFactory(errorFor);
pub.setNative(native);

/** The layout of a module loaded with no layout parameters. */
function defaultLayout() {
  return {
    tsBits: 41, nodeBits: 5, slotBits: 5, seqBits: 12,
    tickNs: 1000000n, epochUnixNs: 1767225600000000000n,
  };
}

// The layout of the loaded module from its parameters (the fallback has no
// ioctl); null if the module is not loaded.
function notDevice(path) {
  return new errors.UidgenError(E.ENOTTY,
    "not a uidgen device (Inappropriate ioctl for device): give /dev/uid, or the path of its device node", path);
}

// Whether @fd is the uidgen device: a character device whose number is the
// one /sys/class/misc/uid/dev gives ("MAJOR:MINOR").
function isUidDevice(fd) {
  let st, dev;
  try {
    st = fs.fstatSync(fd);
    dev = fs.readFileSync('/sys/class/misc/uid/dev', 'utf8').trim().split(':').map(Number);
  } catch (e) {
    return false;
  }
  // Linux's dev_t: major in bits 8-19 and 32-43, minor in bits 0-7 and 20-31.
  const rdev = BigInt(st.rdev);
  const major = Number(((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn));
  const minor = Number((rdev & 0xffn) | ((rdev >> 12n) & ~0xffn));
  return st.isCharacterDevice() && major === dev[0] && minor === dev[1];
}

function sysfsLayout() {
  const rd = (name) => fs.readFileSync(`${PARAMS}/${name}`, 'latin1').trim();
  try {
    return {
      tsBits: Number(rd('ts_bits')), nodeBits: Number(rd('node_bits')),
      slotBits: Number(rd('slot_bits')), seqBits: Number(rd('seq_bits')),
      tickNs: BigInt(rd('tick_us')) * 1000n, epochUnixNs: BigInt(rd('epoch_ms')) * 1000000n,
    };
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw fromSystem(e, PARAMS);
  }
}

function checkLayout(l) {
  const ok = [l.tsBits, l.nodeBits, l.slotBits, l.seqBits].every(Number.isInteger) &&
    l.tsBits > 0 && l.tsBits + l.nodeBits + l.slotBits + l.seqBits === 63 &&
    l.seqBits < 32 && l.slotBits < 32 && l.nodeBits < 32 &&
    BigInt(l.tickNs) > 0n && BigInt(l.epochUnixNs) >= 0n;
  if (!ok) throw new InvalidIdError(E.EINVAL, 'not a valid layout', toJSON(l));
}

// decode() in JS: uidgen_decode()'s arithmetic, exact in BigInt.
function decodeJs(id, l) {
  checkLayout(l);
  if (id >> ID_BITS) throw new InvalidIdError(E.ERANGE, 'not an ID: IDs are 0 to 2^63 - 1', String(id));
  const low = BigInt(l.nodeBits + l.slotBits + l.seqBits);
  const tick = id >> low;
  const ms = (BigInt(l.epochUnixNs) + tick * BigInt(l.tickNs)) / 1000000n;
  if (ms > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InvalidIdError(E.ERANGE, 'decode: its time is past 2^53 ms', String(id));
  }
  const field = (shift, bits) => Number((id >> BigInt(shift)) & ((1n << BigInt(bits)) - 1n));
  return [tick, Number(ms), field(l.slotBits + l.seqBits, l.nodeBits),
    field(l.seqBits, l.slotBits), field(0, l.seqBits)];
}

function parts(a) {
  return { tick: a[0], unixMs: a[1], node: a[2], slot: a[3], seq: a[4] };
}

/** A handle on /dev/uid (or another path). */
class Uidgen {
  constructor(devicePath = DEVICE) {
    this.path = devicePath;
    if (native) {
      this._h = native.open(devicePath);
      // Any readable file opens; only the device answers INFO. Else its
      // bytes would be taken for IDs (/dev/zero: 0, 0, 0...).
      try {
        native.info(this._h);
      } catch (e) {
        native.close(this._h);
        this._h = null;
        throw e.errno === E.ENOTTY ? notDevice(devicePath) : e;
      }
    } else {
      try {
        this._fd = fs.openSync(devicePath, fs.constants.O_RDONLY);
      } catch (e) {
        throw fromSystem(e, devicePath);
      }
      // No ioctl here: the device is the character device the misc
      // class names /dev/uid's number (/sys/class/misc/uid/dev).
      if (!isUidDevice(this._fd)) {
        fs.closeSync(this._fd);
        this._fd = undefined;
        throw notDevice(devicePath);
      }
      this._buf = Buffer.alloc(8);
    }
    this._layout = null;
  }

  /** One fresh ID, a BigInt (the addon: from this thread's reserved run). */
  next() {
    if (this._h) return native.next(this._h);
    return this._read1();
  }

  /** One fresh ID in decimal. */
  nextString() {
    if (this._h) return native.nextString(this._h);
    return this._read1().toString();
  }

  // Every call on a closed handle: EBADF, as the Go binding's.
  _closedError() {
    return new errors.UidgenError(E.EBADF || 9, 'Bad file descriptor: the handle is closed', this.path);
  }

  _read1() {
    if (this._fd === undefined) throw this._closedError();
    let r;
    try {
      r = fs.readSync(this._fd, this._buf, 0, 8, null);
    } catch (e) {
      throw fromSystem(e, `read ${this.path}`);
    }
    if (r !== 8) throw errorFor(E.EIO || 5, `read ${this.path}: ${r} bytes, not an ID`);
    return this._buf.readBigUInt64LE(0);
  }

  /** @n fresh IDs from the kernel, a BigUint64Array: one read() for up to 65536. */
  batch(n) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('batch(n): n is a whole number');
    if (this._closed) throw this._closedError();
    const ids = new BigUint64Array(n);
    let done = 0;
    while (done < n) {
      const want = Math.min(n - done, BATCH_MAX);
      const part = done === 0 && want === n ? ids : ids.subarray(done, done + want);
      let got;
      if (this._h) {
        got = native.fill(this._h, part);
      } else {
        try {
          got = fs.readSync(this._fd, part, 0, part.byteLength, null) / 8;
        } catch (e) {
          throw fromSystem(e, `read ${this.path}`);
        }
      }
      if (!Number.isInteger(got) || got <= 0) {
        throw errorFor(E.EIO || 5, `read ${this.path}: not whole IDs`);
      }
      done += got;
    }
    return ids;
  }

  /**
   * The layout in force (the addon: UIDGEN_IOC_INFO, with the node ID,
   * its state, floor, grant and token; the fallback: the module's
   * parameters, the layout alone).
   */
  info() {
    if (this._closed) throw this._closedError();
    if (this._h) return native.info(this._h);
    const l = sysfsLayout();
    if (!l) throw errorFor(E.ENODEV, PARAMS);
    return l;
  }

  /** The layout this handle decodes by (read once). */
  get layout() {
    if (!this._layout) this._layout = this.info();
    return this._layout;
  }

  /** The parts of an ID by this device's layout: {tick, unixMs, node, slot, seq}. */
  decode(id) {
    return decode(id, this.layout);
  }

  /**
   * UIDGEN_IOC_OBSERVE (uidgen_observe()): every ID this machine mints
   * after it returns is greater than @id, an ID of this layout received
   * from anywhere. ClockAheadError (EDOM) if @id is more than the module's
   * observe_ahead_ms ahead of this machine's clock. Needs the addon.
   */
  observe(id) {
    id = toId(id);
    if (this._closed) throw this._closedError();
    if (!this._h) {
      throw new NeedsAddonError(E.EOPNOTSUPP, 'observe() is an ioctl, which JS cannot make: ' +
        'build the native addon (npm run build, with libnode-dev installed)', 'observe');
    }
    if (id < 0n || id > 0xffffffffffffffffn) throw errorFor(E.EINVAL, 'observe');
    native.observe(this._h, id);
  }

  /** Close the device; a later call on this handle throws. */
  close() {
    if (this._h) native.close(this._h);
    this._h = null;
    this._closed = true;
    if (this._fd !== undefined) {
      fs.closeSync(this._fd);
      this._fd = undefined;
    }
  }
}

let dflt = null;
function handle() {
  if (!dflt) dflt = new Uidgen(DEVICE);
  return dflt;
}

// next() and nextString() call the addon straight (no method call between):
// the module's handle is the one most programs use.
/** One fresh ID from /dev/uid, a BigInt. */
function next() {
  const g = dflt || handle();
  return g._h ? native.next(g._h) : g._read1();
}

/** One fresh ID from /dev/uid, in decimal. */
function nextString() {
  const g = dflt || handle();
  return g._h ? native.nextString(g._h) : g._read1().toString();
}

/** @n fresh IDs from /dev/uid, a BigUint64Array. */
function batch(n) {
  return handle().batch(n);
}

/** The layout in force (and, with the addon, the node ID). */
function info() {
  return handle().info();
}

/** See Uidgen.observe(). */
function observe(id) {
  return handle().observe(id);
}

// The layout decode() uses by default: the device's; with no device (the
// module not loaded), the default layout, as `uidgen decode` does.
let layoutCache = null;
function loadedLayout() {
  if (layoutCache) return layoutCache;
  if (native) {
    try {
      layoutCache = handle().layout;
    } catch (e) {
      if (!(e instanceof NoDeviceError)) throw e;
      return defaultLayout();
    }
  } else {
    const l = sysfsLayout();
    if (!l) return defaultLayout();
    layoutCache = l;
  }
  return layoutCache;
}

/**
 * The parts of an ID, {tick (BigInt), unixMs, node, slot, seq}, by @layout
 * (tsBits, nodeBits, slotBits, seqBits, tickNs, epochUnixNs, as info()
 * gives), else the device's layout, else (no module) the default one.
 */
function decode(id, layout) {
  id = toId(id);
  const l = layout || loadedLayout();
  if (native) return parts(native.decode(l, id));
  return parts(decodeJs(id, l));
}

// The key sets public() and private() load by path, checked against the
// file's identity on each call, so a rotated file is read again.
const keyFiles = new Map();
function keysOf(keys) {
  if (keys instanceof Keys) return keys;
  if (typeof keys !== 'string') throw new TypeError('keys: a Keys or a key file path');
  let st;
  try {
    st = fs.statSync(keys, { bigint: true });
  } catch (e) {
    throw fromSystem(e, keys);
  }
  const tag = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  const hit = keyFiles.get(keys);
  if (hit && hit.tag === tag) return hit.keys;
  const k = Keys.load(keys);
  keyFiles.set(keys, { tag, keys: k });
  return k;
}

/**
 * The public form of an ID: its 13-character token text (key ID, 11
 * base62 digits, check digit) under the current key of @keys (a Keys or a
 * key file path), as `uidgen -f public --key FILE` prints it; with
 * {short: true} its 11-character short code, as `uidgen -f short --key FILE`.
 */
function publicForm(id, keys, { short = false } = {}) {
  return keysOf(keys).format(id, { short });
}

/**
 * The ID a public token opens to, as `uidgen decode --key FILE` finds it:
 * @token a 13-character text, an 11-character short code (not all digits),
 * or a bare 64-bit token (a BigInt, or a decimal string of any other form);
 * all but the text opened with the current key. KeyRejectedError if it is
 * not a token of these keys.
 */
function privateForm(token, keys) {
  const k = keysOf(keys);
  // As the CLI's decode --key: 13 characters are the text form, 11 not
  // all digits the short code, else decimal.
  if (typeof token === 'string' && token.length === pub.TEXT_LEN) return k.parse(token);
  if (typeof token === 'string' && token.length === pub.SHORT_LEN && !/^[0-9]*$/.test(token)) {
    return k.parse(token, { short: true });
  }
  if (typeof token === 'string') return k.parse(token, { decimal: true });
  return k.private(token);
}

// JSON: IDs as decimal strings. A JSON number is a double in JavaScript:
// an integer above 2^53 (9007199254740992) comes back with its low bits
// rounded away, and almost every uidgen ID is above it.
function toJSONValue(v) {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof BigUint64Array || v instanceof BigInt64Array) return Array.from(v, String);
  return v;
}

/** A JSON.stringify() replacer: BigInts (and BigUint64Arrays) as decimal strings. */
function jsonReplacer(key, value) {
  return toJSONValue(value);
}

/** JSON.stringify(@value) with every BigInt as a decimal string. */
function toJSON(value, space) {
  return JSON.stringify(value, jsonReplacer, space);
}

module.exports = {
  Uidgen, Keys, next, nextString, batch, info, decode, observe, defaultLayout,
  public: publicForm, private: privateForm, toJSON, jsonReplacer,
  backend: native ? 'addon' : 'js',
  DEVICE, BATCH_MAX, MAX_SAFE_ID: BigInt(Number.MAX_SAFE_INTEGER), SHORT_LEN: pub.SHORT_LEN,
  siphash24: pub.siphash24, feistel: pub.feistel, checkId,
  ...Object.fromEntries(Object.entries(errors).filter(([k]) => /Error$/.test(k))),
};
