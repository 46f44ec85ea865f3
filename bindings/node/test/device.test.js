// SPDX-License-Identifier: LGPL-2.1-or-later
// The Node binding against the real /dev/uid, node ID $UIDGEN_NODE assigned
// after load; run as root in the repository (the VM's `node` suite,
// tests/shell/node.sh, runs it on both backends). Without the device every
// test here skips, saying so; UIDGEN_REQUIRE_DEVICE=1 makes that a failure.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Worker } = require('worker_threads');
const uidgen = require('..');
const { CLI, idref } = require('./helpers');

const NODE = Number(process.env.UIDGEN_NODE);
const HAVE = fs.existsSync('/dev/uid') && process.env.UIDGEN_NODE !== undefined;
const WHY = 'needs /dev/uid and UIDGEN_NODE (the VM suite node: tests/shell/node.sh)';

function dtest(name, fn) {
  test(name, (t) => {
    if (!HAVE) {
      assert.ok(!process.env.UIDGEN_REQUIRE_DEVICE, `UIDGEN_REQUIRE_DEVICE is set: ${WHY}`);
      t.skip(WHY);
      return undefined;
    }
    return fn(t);
  });
}

const ADDON = uidgen.backend === 'addon';

dtest('info is the module\'s layout', () => {
  const i = uidgen.info();
  const par = (f) => BigInt(fs.readFileSync(`/sys/module/uidgen/parameters/${f}`, 'latin1').trim());
  assert.equal(BigInt(i.tsBits), par('ts_bits'));
  assert.equal(BigInt(i.nodeBits), par('node_bits'));
  assert.equal(BigInt(i.slotBits), par('slot_bits'));
  assert.equal(BigInt(i.seqBits), par('seq_bits'));
  assert.equal(i.tickNs, par('tick_us') * 1000n);
  assert.equal(i.epochUnixNs, par('epoch_ms') * 1000000n);
  if (ADDON) {
    assert.equal(i.nodeId, NODE);
    assert.equal(i.nrSlots, 2 ** i.slotBits);
  }
});

dtest('next: BigInts, unique, this node, now', () => {
  const ids = new Set();
  for (let i = 0; i < 20000; i++) ids.add(uidgen.next());
  assert.equal(ids.size, 20000);
  for (const id of ids) {
    assert.equal(typeof id, 'bigint');
    assert.equal(uidgen.decode(id).node, NODE);
  }
  assert.ok(Math.abs(uidgen.decode(uidgen.next()).unixMs - Date.now()) < 2000);
  const s = uidgen.nextString();
  assert.match(s, /^[1-9][0-9]*$/);
  assert.equal(uidgen.decode(s).node, NODE);
  assert.ok(BigInt(s) > [...ids].reduce((a, b) => (a > b ? a : b)));
});

dtest('batch: one read() for up to 65536, BigUint64Array', () => {
  assert.equal(uidgen.batch(0).length, 0);
  const one = uidgen.batch(1);
  assert.ok(one instanceof BigUint64Array);
  assert.equal(one.length, 1);
  const ids = uidgen.batch(70000);       // two reads: 65536 + 4464
  assert.equal(ids.length, 70000);
  assert.equal(new Set(ids).size, 70000);
  assert.ok(!ids.includes(0n));
  assert.throws(() => uidgen.batch(-1), RangeError);
  assert.throws(() => uidgen.batch(1.5), RangeError);
});

dtest('decode by the device\'s layout, against libuidgen', (t) => {
  const ids = [...uidgen.batch(300)];
  for (let i = 0; i < 300; i++) ids.push(uidgen.next());
  const ref = idref(t, ids);
  if (!ref) return;
  ids.forEach((id, i) => {
    const p = uidgen.decode(id);
    assert.deepEqual([String(p.tick), String(p.unixMs), String(p.node), String(p.slot),
      String(p.seq)], ref[i].slice(1, 6));
  });
});

dtest('public form: token by token as the CLI makes and opens them', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uidgen-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'keys');
  execFileSync(CLI, ['keygen', file], { stdio: 'ignore' });
  const texts = execFileSync(CLI, ['-f', 'public', '--key', file, '-n', '50'], { encoding: 'latin1' })
    .trim().split('\n');
  assert.equal(texts.length, 50);
  const out = execFileSync(CLI, ['decode', '--key', file, ...texts], { encoding: 'latin1' })
    .trim().split('\n');
  assert.equal(out.length, 50);
  texts.forEach((text, i) => {
    const id = BigInt(/ id=([0-9]+)/.exec(out[i])[1]);
    assert.equal(uidgen.private(text, file), id, text);
    assert.equal(uidgen.public(id, file), text, String(id));
    assert.equal(uidgen.decode(id).node, NODE);
  });
  // And the other way: IDs minted here, opened by the CLI.
  const ids = [uidgen.next(), uidgen.next(), ...uidgen.batch(3)];
  const mine = ids.map((id) => uidgen.public(id, file));
  const back = execFileSync(CLI, ['decode', '--key', file, ...mine], { encoding: 'latin1' })
    .trim().split('\n').map((l) => BigInt(/ id=([0-9]+)/.exec(l)[1]));
  assert.deepEqual(back, ids);
});

dtest('worker threads: each its own run, nothing repeats', async () => {
  const src = `const u = require(${JSON.stringify(path.resolve(__dirname, '..'))});
    const { parentPort } = require('worker_threads');
    const ids = new BigUint64Array(5000);
    for (let i = 0; i < ids.length; i++) ids[i] = u.next();
    parentPort.postMessage(ids);`;
  const runs = await Promise.all([0, 1, 2].map(() => new Promise((resolve, reject) => {
    const w = new Worker(src, { eval: true });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  const mine = [];
  for (let i = 0; i < 5000; i++) mine.push(uidgen.next());
  const all = new Set(mine);
  for (const r of runs) for (const id of r) all.add(id);
  assert.equal(all.size, 20000);
});

dtest('a child process repeats nothing of its parent\'s', () => {
  const g = new uidgen.Uidgen();
  const before = g.next();          // a run is cached now (the addon)
  const code = `const u = require(${JSON.stringify(path.resolve(__dirname, '..'))});
    const a = []; for (let i = 0; i < 2000; i++) a.push(u.next());
    process.stdout.write(u.toJSON(a));`;
  const theirs = JSON.parse(execFileSync(process.execPath, ['-e', code], { encoding: 'latin1' })).map(BigInt);
  const ours = [before];
  for (let i = 0; i < 2000; i++) ours.push(g.next());
  assert.equal(new Set([...theirs, ...ours]).size, 4001);
  g.close();
});

dtest('a closed handle says so (EBADF), every call', () => {
  const g = new uidgen.Uidgen();
  assert.equal(typeof g.next(), 'bigint');
  g.close();
  g.close();
  for (const call of [() => g.next(), () => g.nextString(), () => g.batch(1), () => g.observe(1n)]) {
    assert.throws(call, (e) => e instanceof uidgen.UidgenError && e.errno === 9 && e.code === 'EBADF' &&
      /closed/.test(e.message));
  }
});

dtest('observe: later IDs are greater (addon); the fallback says it needs the addon', () => {
  const g = new uidgen.Uidgen();
  const a = g.next();
  const l = g.layout;
  const low = BigInt(l.nodeBits + l.slotBits + l.seqBits);
  const top = (uidgen.decode(a).tick << low) | ((1n << low) - 1n);   // the last ID of a's tick
  if (!ADDON) {
    assert.throws(() => g.observe(top), (e) => e instanceof uidgen.NeedsAddonError &&
      /build the native addon/.test(e.message));
    return;
  }
  g.observe(top);
  assert.ok(g.next() > top);
  assert.ok(uidgen.next() > top);
  assert.ok(g.batch(1)[0] > top);
  uidgen.observe(String(top));
  assert.throws(() => g.observe((1n << 63n) - 1n), (e) => e instanceof uidgen.ClockAheadError &&
    e.errno === 33 && e.code === 'EDOM' && /observe_ahead_ms/.test(e.message));
  assert.throws(() => g.observe(1n << 63n), (e) => e instanceof uidgen.InvalidIdError && e.errno === 22);
  g.close();
});

dtest('a revoke stops next() at once, with NoNodeError', () => {
  const g = new uidgen.Uidgen();
  g.next();                         // a run is cached now (the addon)
  execFileSync(CLI, ['revoke-node']);
  try {
    assert.throws(() => g.next(), (e) => e instanceof uidgen.NoNodeError && e.errno === 99 &&
      e.code === 'EADDRNOTAVAIL' && /uidgen set-node N --new/.test(e.message));
    assert.throws(() => g.nextString(), uidgen.NoNodeError);
    assert.throws(() => g.batch(3), uidgen.NoNodeError);
  } finally {
    execFileSync(CLI, ['set-node', String(NODE), '--new'], { stdio: 'ignore' });
  }
  assert.equal(g.decode(g.next()).node, NODE);
  g.close();
});

dtest('JSON of minted IDs round-trips as strings, and loses them as numbers', () => {
  const ids = [uidgen.next(), ...uidgen.batch(99)];
  const back = JSON.parse(uidgen.toJSON({ ids })).ids.map(BigInt);
  assert.deepEqual(back, ids);
  // Every ID of the default layout minted after 2026-01-25 is above 2^53.
  const lossy = ids.filter((id) => id > uidgen.MAX_SAFE_ID && BigInt(Number(id)) !== id);
  if (uidgen.info().tsBits === 41) assert.ok(lossy.length > 50, String(lossy.length));
});

dtest('a cached run goes stale: after a pause the next ID is of the time after it', async () => {
  const g = new uidgen.Uidgen();
  const a = g.next();               // a run is cached now (the addon)
  g.next();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const b = g.next();
  // The run of a's tick is long stale (one tick of staleness allowed):
  // a cache that ignored it would hand out a's neighbour, 0 ms later.
  assert.ok(Number(g.layout.tickNs) <= 10000000);
  assert.ok(uidgen.decode(b).unixMs - uidgen.decode(a).unixMs >= 80,
    `${uidgen.decode(a).unixMs} then ${uidgen.decode(b).unixMs}`);
  g.close();
});
