// SPDX-License-Identifier: GPL-2.0
// make bench: the Node.js binding's per-ID cost, "node ROW NS" lines like
// uidgen_bench's "bindings" (best of 5 rounds of about 0.2 s each): next()
// and batch(4096) on the addon (libuidgen's cached uidgen_next(), one read()
// a batch), next() on the pure-JS fallback (one read() an ID), and
// crypto.randomBytes(8) in the same run, the yardstick of issue 29's goal
// (node next <= 1.0x it). Run in the VM from the repository, after make
// clients built bindings/node/build/uidgen.node.
'use strict';

const crypto = require('crypto');
const path = require('path');

function best(fn, idsPerCall) {
  let n = 1;
  for (;;) {                          // calls taking about 20 ms
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    if (process.hrtime.bigint() - t0 > 20000000n) break;
    n *= 2;
  }
  n *= 10;
  let min = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t0) / (n * idsPerCall));
  }
  return min;
}

const pkg = path.join(__dirname, '..', 'bindings', 'node');
const rows = [];
let sink = 0n;
if (process.argv[2] === 'js') {
  process.env.UIDGEN_NODE_BACKEND = 'js';
  const u = require(pkg);
  const g = new u.Uidgen();
  rows.push(['node-js', 'next', best(() => { sink ^= g.next(); }, 1)]);
} else {
  process.env.UIDGEN_NODE_BACKEND = 'addon';
  const u = require(pkg);
  const g = new u.Uidgen();
  rows.push(['node', 'next', best(() => { sink ^= g.next(); }, 1)]);
  rows.push(['node', 'batch4096', best(() => { sink ^= g.batch(4096)[0]; }, 4096)]);
  rows.push(['node', 'randombytes8', best(() => { sink ^= BigInt(crypto.randomBytes(8)[0]); }, 1)]);
  rows.push(['node', 'next-module', best(() => { sink ^= u.next(); }, 1)]);
}
for (const [lang, what, ns] of rows) console.log(`${lang} ${what} ${ns.toFixed(1)}`);
if (sink === -1n) console.log('');
