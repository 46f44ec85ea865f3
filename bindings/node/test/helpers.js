// SPDX-License-Identifier: LGPL-2.1-or-later
// What the Node binding's tests share: libuidgen's answers (tests/lib/idref,
// which `make clients` builds; without it the test that needs it skips,
// saying why, and the VM suite counts a skip as a failure), a seeded
// generator of IDs, and the repository's paths.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const REPO = process.env.UIDGEN_REPO || path.resolve(__dirname, '..', '..', '..');
const IDREF = path.join(REPO, 'tests/lib/idref');
const CLI = path.join(REPO, 'userlib/uidgen');

/** libuidgen's answers for @lines, split in words; null (and @t skipped) if idref is not built. */
function idref(t, lines, ...args) {
  if (!fs.existsSync(IDREF)) {
    t.skip(`no ${IDREF}: make clients builds it (libuidgen's answers to compare with)`);
    return null;
  }
  const out = execFileSync(IDREF, args, { input: lines.map((x) => `${x}\n`).join(''), encoding: 'latin1' });
  return out.split('\n').filter((l) => l).map((l) => l.split(' '));
}

/** A seeded generator of 64-bit BigInts (xorshift64*). */
function rng(seed) {
  let s = BigInt(seed) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn || 1n;
  return () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
}

/** Edge IDs, then @n IDs of every size (63 random bits shifted right by 0..63). */
function someIds(n, seed) {
  const r = rng(seed);
  const ids = [0n, 1n, 4095n, 4096n, (1n << 22n) - 1n, 1n << 22n, (1n << 53n) - 1n, 1n << 53n,
    (1n << 53n) + 1n, (1n << 63n) - 2n, (1n << 63n) - 1n];
  for (let i = 0; i < n; i++) ids.push((r() >> 1n) >> (r() % 64n));
  return ids;
}

module.exports = { REPO, IDREF, CLI, idref, rng, someIds };
