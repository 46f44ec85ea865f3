// SPDX-License-Identifier: LGPL-2.1-or-later
// The Node.js binding's errors: one class for each thing a caller can act
// on, each with the errno (.errno, a number; .code, its name) and a message
// that says what to do next, as the Python binding's (bindings/python).
'use strict';

const os = require('os');

// Linux's numbers, for the errnos os.constants.errno may not list.
const E = Object.assign({
  EPERM: 1, ENOENT: 2, ENXIO: 6, EACCES: 13, EEXIST: 17, ENODEV: 19, EINVAL: 22,
  EFBIG: 27, ENOSPC: 28, EDOM: 33, ERANGE: 34, ENOTTY: 25, EOPNOTSUPP: 95,
  EADDRNOTAVAIL: 99, EOVERFLOW: 75, ENOKEY: 126, EKEYREJECTED: 129, EAGAIN: 11,
}, os.constants.errno);
const NAMES = {};
for (const [k, v] of Object.entries(E)) if (!(v in NAMES)) NAMES[v] = k;
NAMES[E.EOPNOTSUPP] = 'EOPNOTSUPP';
NAMES[E.EAGAIN] = 'EAGAIN';

class UidgenError extends Error {
  constructor(errno, message, what) {
    super(what ? `${what}: ${message}` : message);
    this.name = this.constructor.name;
    this.errno = errno;
    this.code = NAMES[errno] || `E${errno}`;
    if (what !== undefined) this.what = what;
  }
}
/** No /dev/uid (ENOENT, ENODEV, ENXIO): the module is not loaded. */
class NoDeviceError extends UidgenError {}
/** EACCES, EPERM: /dev/uid is restricted to a group, or not root. */
class DevicePermissionError extends UidgenError {}
/** EADDRNOTAVAIL: no node ID assigned (none given, or revoked). */
class NoNodeError extends UidgenError {}
/** EOVERFLOW: the timestamp field has run out. */
class ExhaustedError extends UidgenError {}
/** EINVAL, ERANGE: not an ID (or token, or layout) of this layout. */
class InvalidIdError extends UidgenError {}
/** EDOM: observe() of an ID too far ahead of this machine's clock. */
class ClockAheadError extends UidgenError {}
/** ENOKEY: no key of that key ID in the set (or no key at all). */
class NoKeyError extends UidgenError {}
/** EKEYREJECTED: the check digit fails, or the token opens to no ID. */
class KeyRejectedError extends UidgenError {}
/** EINVAL, EEXIST: a malformed key file; .line is the line (from 1). */
class KeyFileError extends UidgenError {
  constructor(errno, message, what, line) {
    super(errno, message, what);
    this.line = line || 0;
  }
}
/** EPERM: a key file others may read or write, the group may write, or another user owns. */
class KeyFilePermissionError extends UidgenError {}
/** ENOTSUP: what needs the native addon, called on the pure-JS fallback. */
class NeedsAddonError extends UidgenError {}

// Each hint is the whole next step: the module loads with no node ID,
// and the CLI assigns it (the units do at boot).
const NOT_LOADED = 'the uidgen kernel module is not loaded: as root, ' +
  'modprobe uidgen, then uidgen set-node N --new for a node ID that has never issued an ID, ' +
  'else uidgen state restore FILE with its state file ' +
  '(modprobe finds the module once make install or a package (uidgen-dkms) put it in place; ' +
  'from the source tree, insmod module/uidgen.ko, then uidgen set-node N --new)';
const HINTS = {
  [E.ENOENT]: [NoDeviceError, NOT_LOADED],
  [E.ENODEV]: [NoDeviceError, NOT_LOADED],
  [E.ENXIO]: [NoDeviceError, NOT_LOADED],
  [E.EACCES]: [DevicePermissionError, '/dev/uid is restricted to a group (its udev rule, 60-uidgen.rules): add this user to it'],
  [E.EPERM]: [DevicePermissionError, 'needs CAP_SYS_ADMIN'],
  [E.EADDRNOTAVAIL]: [NoNodeError, 'no node ID is assigned: as root, uidgen state restore FILE, or uidgen set-node N --new for a node ID that has never issued an ID'],
  [E.EOVERFLOW]: [ExhaustedError, 'the timestamp field is exhausted for this layout'],
  [E.EDOM]: [ClockAheadError, "the ID is further ahead of this machine's clock than the " +
    "module's observe_ahead_ms: nothing was changed; check both machines' time synchronisation"],
  [E.EINVAL]: [InvalidIdError, 'not an ID, token or layout of this kind'],
  [E.ERANGE]: [InvalidIdError, 'out of range: IDs are 0 to 2^63 - 1'],
  [E.ENOKEY]: [NoKeyError, 'no such key in the key set'],
  [E.EKEYREJECTED]: [KeyRejectedError, 'not a token of these keys (its check fails, or it opens to no ID)'],
  [E.ENOTTY]: [UidgenError, 'the loaded module is older than this call (2.1)'],
};

const STRERROR = {
  [E.ENOENT]: 'No such file or directory', [E.ENODEV]: 'No such device',
  [E.ENXIO]: 'No such device or address', [E.EACCES]: 'Permission denied',
  [E.EPERM]: 'Operation not permitted', [E.EADDRNOTAVAIL]: 'Cannot assign requested address',
  [E.EOVERFLOW]: 'Value too large for defined data type',
  [E.EDOM]: 'Numerical argument out of domain', [E.EINVAL]: 'Invalid argument',
  [E.ERANGE]: 'Numerical result out of range', [E.ENOKEY]: 'Required key not available',
  [E.EKEYREJECTED]: 'Key was rejected by service', [E.ENOTTY]: 'Inappropriate ioctl for device',
};

/** The error for errno @err (a positive number) from the call @what. */
function errorFor(err, what) {
  const [Cls, hint] = HINTS[err] || [UidgenError, null];
  const msg = (STRERROR[err] || `errno ${err}`) + (hint ? ': ' + hint : '');
  return new Cls(err, msg, what);
}

/** The error for a Node system error (fs calls), by its errno. */
function fromSystem(e, what) {
  if (e && typeof e.errno === 'number') return errorFor(-e.errno, what);
  return e;
}

module.exports = {
  E, UidgenError, NoDeviceError, DevicePermissionError, NoNodeError, ExhaustedError,
  InvalidIdError, ClockAheadError, NoKeyError, KeyRejectedError, KeyFileError,
  KeyFilePermissionError, NeedsAddonError, errorFor, fromSystem,
};
