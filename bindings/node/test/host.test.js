// SPDX-License-Identifier: LGPL-2.1-or-later
// The Node binding's tests that need no device: decode, the public form and
// JSON, against libuidgen's own answers (tests/lib/idref) on the same IDs,
// with exact values. Run on the backend UIDGEN_NODE_BACKEND names (addon or
// js; unset: the addon if built): test/device.test.js has the device's.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const uidgen = require('..');
const { IDREF, CLI, idref, rng, someIds } = require('./helpers');

const ENOENT = 2; const EPERM = 1; const EINVAL = 22; const ERANGE = 34;
const ENOKEY = 126; const EKEYREJECTED = 129;

test('the backend is the one asked for', () => {
  const want = process.env.UIDGEN_NODE_BACKEND;
  if (want) assert.equal(uidgen.backend, want);
  assert.ok(['addon', 'js'].includes(uidgen.backend));
});

test('decode: the default layout against libuidgen', (t) => {
  const ids = someIds(1000, 1).concat([1n << 63n, (1n << 64n) - 1n]);
  const ref = idref(t, ids, '-d');
  if (!ref) return;
  assert.equal(ref.length, ids.length);
  const l = uidgen.defaultLayout();
  ids.forEach((id, i) => {
    const r = ref[i];
    if (r[1] === 'error') {
      assert.throws(() => uidgen.decode(id, l), (e) => e instanceof uidgen.InvalidIdError &&
        -e.errno === Number(r[2]), String(id));
      return;
    }
    const p = uidgen.decode(id, l);
    assert.deepEqual([String(p.tick), String(p.unixMs), String(p.node), String(p.slot),
      String(p.seq)], r.slice(1, 6), String(id));
    assert.equal(typeof p.tick, 'bigint');
    assert.deepEqual(uidgen.decode(String(id), l), p);
  });
});

test('decode: known values, another layout, refusals', () => {
  const l = uidgen.defaultLayout();
  assert.deepEqual(uidgen.decode(120772217587765248n, l),
    { tick: 28794340512n, unixMs: 1796019940512, node: 7, slot: 1, seq: 0 });
  // The CLI: 123456789012345 time=2026-01-01T08:10:34.392Z node=6 slot=29 seq=3961
  assert.deepEqual(uidgen.decode('123456789012345', l),
    { tick: 29434392n, unixMs: 1767255034392, node: 6, slot: 29, seq: 3961 });
  assert.equal(new Date(uidgen.decode(123456789012345, l).unixMs).toISOString(),
    '2026-01-01T08:10:34.392Z');
  // 36/0/5/22, 2 ms ticks, epoch 1 s after 1970.
  const o = { tsBits: 36, nodeBits: 0, slotBits: 5, seqBits: 22, tickNs: 2000000n, epochUnixNs: 1000000000n };
  assert.deepEqual(uidgen.decode((5n << 27n) | (3n << 22n) | 9n, o),
    { tick: 5n, unixMs: 1010, node: 0, slot: 3, seq: 9 });
  for (const bad of [-1n, 1n << 63n]) {
    assert.throws(() => uidgen.decode(bad, l), (e) => e instanceof uidgen.InvalidIdError &&
      e.errno === ERANGE && e.code === 'ERANGE');
  }
  // A Number above 2^53 is not an ID any more: refused, never rounded.
  assert.throws(() => uidgen.decode(2 ** 53 + 2, l), (e) => e instanceof uidgen.InvalidIdError &&
    e.errno === ERANGE && /2\^53/.test(e.message));
  assert.throws(() => uidgen.decode('12x', l), TypeError);
  assert.throws(() => uidgen.decode(1n, { ...l, tsBits: 40 }), (e) =>
    e instanceof uidgen.InvalidIdError && e.errno === EINVAL);
});

test('no device: NoDeviceError, saying load the module', () => {
  assert.throws(() => new uidgen.Uidgen('/nonexistent/uid'), (e) => {
    assert.ok(e instanceof uidgen.NoDeviceError);
    assert.ok(e instanceof uidgen.UidgenError);
    assert.ok(e instanceof Error);
    assert.equal(e.errno, ENOENT);
    assert.equal(e.code, 'ENOENT');
    assert.match(e.message, /^\/nonexistent\/uid: No such file or directory: the uidgen kernel module is not loaded: as root, modprobe uidgen/);
    return true;
  });
});

// Any readable file opens; none but the device may be read as IDs
// (/etc/passwd's bytes, /dev/zero's zeros: the same ID again and again).
test('a file that is not the device: ENOTTY, no IDs', () => {
  for (const f of ['/etc/passwd', '/dev/zero', '/dev/null']) {
    assert.throws(() => new uidgen.Uidgen(f), (e) => {
      assert.ok(e instanceof uidgen.UidgenError);
      assert.equal(e.errno, 25);
      assert.equal(e.code, 'ENOTTY');
      assert.equal(e.message, `${f}: not a uidgen device (Inappropriate ioctl for device): give /dev/uid, or the path of its device node`);
      return true;
    }, f);
  }
});

// SipHash-2-4, key 00..0f, messages 00 .. (len - 1): the reference's vectors_sip64.
const SIP_VECTORS = [
  0x726fdb47dd0e0e31n, 0x74f839c593dc67fdn, 0x0d6c8009d9a94f5an, 0x85676696d7fb7e2dn,
  0xcf2794e0277187b7n, 0x18765564cd99a68dn, 0xcbc9466e58fee3cen, 0xab0200f58b01d137n,
  0x93f5f5799a932462n, 0x9e0082df0ba9e4b0n, 0x7a5dbbc594ddb9f3n, 0xf4b32f46226bada7n,
  0x751e8fbc860ee5fbn, 0x14ea5627c0843d90n, 0xf723ca908e7af2een, 0xa129ca6149be45e5n,
  0x3f2acc7f57c29bdbn, 0x699ae9f52cbe4794n, 0x4bc1b3f0968dd39cn, 0xbb6dc91da77961bdn,
  0xbed65cf21aa2ee98n, 0xd0f2cbb02e3b67c7n, 0x93536795e3a33e88n, 0xa80c038ccd5ccec8n,
  0xb8ad50c6f649af94n, 0xbce192de8a85b8ean, 0x17d835b85bbb15f3n, 0x2f2e6163076bcfadn,
  0xde4daaaca71dc9a5n, 0xa6a2506687956571n, 0xad87a3535c49ef28n, 0x32d892fad841c342n,
  0x7127512f72f27ccen, 0xa7f32346f95978e3n, 0x12e0b01abb051238n, 0x15e034d40fa197aen,
  0x314dffbe0815a3b4n, 0x027990f029623981n, 0xcadcd4e59ef40c4dn, 0x9abfd8766a33735cn,
  0x0e3ea96b5304a7d0n, 0xad0c42d6fc585992n, 0x187306c89bc215a9n, 0xd4a60abcf3792b95n,
  0xf935451de4f21df2n, 0xa9538f0419755787n, 0xdb9acddff56ca510n, 0xd06c98cd5c0975ebn,
  0xe612a3cb9ecba951n, 0xc766e62cfcadaf96n, 0xee64435a9752fe72n, 0xa192d576b245165an,
  0x0a8787bf8ecb74b2n, 0x81b3e73d20b49b6fn, 0x7fa8220ba3b2ecean, 0x245731c13ca42499n,
  0xb78dbfaf3a8d83bdn, 0xea1ad565322a1a0bn, 0x60e61c23a3795013n, 0x6606d7e446282b93n,
  0x6ca4ecb15c5f91e1n, 0x9f626da15c9625f3n, 0xe51b38608ef25f57n, 0x958a324ceb064572n,
];

// userlib/tests/public_kats.h: key 1 = 00..0f; ID, token, text, decimal.
const PUBLIC_KATS = [
  [0n, 0x94466d533ba26fb4n, '1CjGQJ2ZYu96R', '10684347370233294772'],
  [1n, 0x8adb24b607f7b131n, '1Bv7tf5oeZRR0', '10005631361370009905'],
  [4611686018427387904n, 0xb31d6dc5f46de12bn, '1FNQKa6Ak9Ahg', '12906592804090536235'],
  [9223372036854775807n, 0x0343a413d14e6dbcn, '10HNGxLcualA1', '235212010576309692'],
  [9007199254740993n, 0x4309b3c1c12a17aen, '15kq9QvcEfc6K', '4830589720082388910'],
];
const KEY0 = Buffer.from([...Array(16).keys()]);

test('public: SipHash-2-4 reference vectors (the JS one)', () => {
  SIP_VECTORS.forEach((v, n) => {
    assert.equal(uidgen.siphash24(KEY0, Buffer.from([...Array(n).keys()])), v, String(n));
  });
});

test('public: known answers', () => {
  const k = new uidgen.Keys();
  k.add(1, KEY0);
  for (const [id, token, text, dec] of PUBLIC_KATS) {
    assert.equal(k.public(id), token);
    assert.equal(k.private(token), id);
    assert.equal(k.format(id), text);
    assert.equal(k.format(id, { decimal: true }), dec);
    assert.equal(k.parse(text), id);
    assert.equal(k.parse(dec, { decimal: true }), id);
    assert.equal(uidgen.public(id, k), text);
    assert.equal(uidgen.private(text, k), id);
    assert.equal(uidgen.private(dec, k), id);
    assert.equal(uidgen.private(token, k), id);
    // The JS permutation gives the same token whichever backend runs.
    assert.equal(uidgen.feistel(KEY0, id), token);
    assert.equal(uidgen.feistel(KEY0, token, 32, true), id);
  }
});

function keyDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uidgen-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function twoKeys(t) {
  const keys = new uidgen.Keys();
  assert.equal(keys.generate(), 1);
  assert.equal(keys.generate(), 2);     // key 2 current; key 1 still opens
  const file = path.join(keyDir(t), 'keys');
  fs.writeFileSync(file, keys.toText(), { mode: 0o600 });
  return { keys, file };
}

test('public: tokens against libuidgen', (t) => {
  const { keys, file } = twoKeys(t);
  const ids = someIds(300, 4).concat([1n << 63n, (1n << 64n) - 1n]);
  const ref = idref(t, ids, '-k', file);
  if (!ref) return;
  assert.equal(ref.length, ids.length);
  ids.forEach((id, i) => {
    const r = ref[i];
    if (r[1] === 'error') {
      assert.throws(() => keys.public(id), (e) => e instanceof uidgen.InvalidIdError &&
        -e.errno === Number(r[2]));
      return;
    }
    assert.deepEqual([keys.public(id).toString(16).padStart(16, '0'), keys.format(id),
      keys.format(id, { decimal: true })], r.slice(1), String(id));
    assert.equal(keys.parse(r[2]), id);
    assert.equal(keys.parse(r[3], { decimal: true }), id);
    assert.equal(uidgen.public(id, file), r[2]);
    assert.equal(uidgen.private(r[2], file), id);
  });
});

test('public: short codes against libuidgen (idref -S, -s)', (t) => {
  const { keys, file } = twoKeys(t);
  const r = rng(6);
  const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const ids = someIds(300, 6).concat([1n << 63n]);
  const codes = ['LygHa16AHYG', 'LygHa16AHYF', 'zzzzzzzzzzz', '00000000000', '0'.repeat(10),
    '0'.repeat(12), '0000-000000', '\u00e90000000000', '\u00e9000000000'];
  const made = idref(t, ids, '-k', file, '-S');
  if (!made) return;
  assert.equal(made.length, ids.length);
  ids.forEach((id, i) => {
    const a = made[i];
    if (a[1] === 'error') {
      assert.throws(() => keys.format(id, { short: true }), (e) => e instanceof uidgen.InvalidIdError &&
        -e.errno === Number(a[2]), String(id));
      return;
    }
    const code = keys.format(id, { short: true });
    assert.equal(code, a[1], String(id));
    assert.equal(code, keys.format(id).slice(1, 12), String(id));
    assert.equal(uidgen.public(id, file, { short: true }), code);
    const at = Number(r() % 11n);
    codes.push(code, code.slice(0, at) + B62[Number(r() % 62n)] + code.slice(at + 1));
  });
  for (let i = 0; i < 200; i++) {
    let c = '';
    for (let j = 0; j < 11; j++) c += B62[Number(r() % 62n)];
    codes.push(c);
  }
  const ref = idref(t, codes, '-k', file, '-s');
  assert.equal(ref.length, codes.length);
  let opened = 0;
  codes.forEach((code, i) => {
    const a = ref[i];
    if (a[a.length - 2] === 'error') {
      assert.throws(() => keys.parse(code, { short: true }), (e) => e instanceof uidgen.UidgenError &&
        -e.errno === Number(a[a.length - 1]), code);
      return;
    }
    opened++;
    const id = BigInt(a[a.length - 1]);
    assert.equal(keys.parse(code, { short: true }), id, code);
    // private() reads 11 characters not all digits as a short code, as decode --key.
    if (!/^[0-9]+$/.test(code)) assert.equal(uidgen.private(code, file), id, code);
  });
  assert.ok(opened > 300, `${opened} codes opened`);
});

test('public: short codes, known answers and arguments', (t) => {
  const k = new uidgen.Keys();
  k.add(1, KEY0);
  for (const [id, , text] of PUBLIC_KATS) {
    assert.equal(k.format(id, { short: true }), text.slice(1, 12));
    assert.equal(k.parse(text.slice(1, 12), { short: true }), id);
    assert.equal(uidgen.public(id, k, { short: true }), text.slice(1, 12));
    assert.equal(uidgen.private(text.slice(1, 12), k), id);
  }
  assert.equal(uidgen.SHORT_LEN, 11);
  // Opened with the current key, or the one named.
  const { keys } = twoKeys(t);
  const code = keys.format(5n, { keyId: 1, short: true });
  assert.equal(keys.parse(code, { keyId: 1, short: true }), 5n);
  assert.notEqual(keys.format(5n, { short: true }), code);
  // 11 digits: decimal to private(), as to the CLI's decode --key.
  assert.equal(uidgen.private('12345678902', k), 3352853961834981684n);
  assert.equal(k.parse('12345678902', { short: true }), 8462655382612204714n);
  for (const bad of [() => k.format(1n, { short: true, decimal: true }),
    () => k.parse('Bv7tf5oeZRR', { short: true, decimal: true })]) {
    assert.throws(bad, (e) => e instanceof TypeError && /one form/.test(e.message));
  }
  assert.throws(() => k.parse('Bv7tf5oeZR', { short: true }), (e) => e instanceof uidgen.InvalidIdError &&
    e.errno === EINVAL);
});

test('public: refusals match libuidgen', (t) => {
  const { keys, file } = twoKeys(t);
  const r = rng(5);
  const other = new uidgen.Keys();
  other.add(2, Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
  const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const texts = ['1', '1LygHa16AHYG0', '1LygHa16AHYF0', '1zzzzzzzzzzz0', '1'.repeat(14),
    '1-0000000000A', '3CjGQJ2ZYu96R', '2CjGQJ2ZYu96R'];
  for (let i = 0; i < 100; i++) {
    const tok = keys.format(r() >> 1n, { keyId: Number(r() % 2n) + 1 });
    const at = Number(r() % 13n);
    texts.push(tok, tok.slice(0, at) + B62[Number(r() % 62n)] + tok.slice(at + 1),
      other.format(r() >> 1n));
  }
  const decs = ['0', '01', '+1', '18446744073709551615', '18446744073709551616', 'x'];
  for (let i = 0; i < 100; i++) decs.push(String(r()));
  for (const [args, lines, decimal] of [[['-o'], texts, false], [['-O'], decs, true]]) {
    const ref = idref(t, lines, '-k', file, ...args);
    if (!ref) return;
    assert.equal(ref.length, lines.length);
    lines.forEach((line, i) => {
      const a = ref[i];
      if (a[a.length - 2] === 'error') {
        assert.throws(() => keys.parse(line, { decimal }), (e) => e instanceof uidgen.UidgenError &&
          -e.errno === Number(a[a.length - 1]), line);
      } else {
        assert.equal(keys.parse(line, { decimal }), BigInt(a[a.length - 1]), line);
      }
    });
  }
});

test('public: key files as libuidgen reads them', (t) => {
  const { keys, file } = twoKeys(t);
  const dir = path.dirname(file);
  if (!fs.existsSync(IDREF)) {
    t.skip(`no ${IDREF}: make clients builds it`);
    return;
  }
  const k = uidgen.Keys.load(file);
  assert.equal(k.current, 2);
  assert.equal(k.format(42n, { keyId: 1 }), keys.format(42n, { keyId: 1 }));
  for (const mode of [0o644, 0o604, 0o602, 0o601, 0o660]) {
    fs.chmodSync(file, mode);
    assert.throws(() => uidgen.Keys.load(file), (e) => e instanceof uidgen.KeyFilePermissionError &&
      e.errno === EPERM);
    const r = spawnSync(IDREF, ['-k', file], { input: '', encoding: 'latin1' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Operation not permitted/);
  }
  fs.chmodSync(file, 0o640);
  uidgen.Keys.load(file);
  const k0 = '000102030405060708090a0b0c0d0e0f';
  const bad = [`1 ${k0.slice(0, -1)}`, `1 ${k0}0`, `# x\n1 ${k0.slice(0, -2)}XX`, `10 ${k0}`,
    `- ${k0}`, `1 ${k0}\n\n1 ${k0}`, `1${k0}`, `\r\n1 ${k0}\r\n2\t${k0} \t`,
    `  # c\n \t1 ${k0}\n`, '\n', '', `1 ${k0} x`, `1 ${k0}\x0b`, `# \u00e9t\u00e9\n1 ${k0}`,
    `\x00\n1 ${k0}`];
  bad.forEach((text, n) => {
    const p = path.join(dir, `bad${n}`);
    fs.writeFileSync(p, text, { mode: 0o600 });
    const r = spawnSync(IDREF, ['-k', p], { input: '0\n', encoding: 'latin1' });
    let got;
    try {
      got = uidgen.Keys.load(p);
    } catch (e) {
      assert.ok(e instanceof uidgen.UidgenError, String(e));
      assert.equal(r.status, 1, JSON.stringify(text));
      assert.ok(r.stderr.includes(` line ${e.line || 0}: `), `${JSON.stringify(text)}: ${r.stderr}`);
      assert.equal(r.stderr.split(': ').pop().trim(), STRERROR[e.errno], JSON.stringify(text));
      return;
    }
    assert.equal(r.status, 0, `${JSON.stringify(text)}: ${r.stderr}`);
    assert.equal(r.stdout.split(' ')[2], got.format(0n), JSON.stringify(text));
  });
});
const STRERROR = { 1: 'Operation not permitted', 22: 'Invalid argument', 17: 'File exists', 126: 'Required key not available' };

// 2x4 bits: BigInt SipHash is slow under the VM's TCG (libuidgen's own
// test takes 2x8 and 2x10 bits).
test('public: the permutation on a reduced domain (2x4 bits)', () => {
  const key = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
  const out = [];
  for (let x = 0n; x < 256n; x++) out.push(uidgen.feistel(key, x, 4));
  assert.deepEqual([...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), [...Array(256).keys()].map(BigInt));
  assert.notDeepEqual(out, [...Array(256).keys()].map(BigInt));
  out.forEach((y, x) => assert.equal(uidgen.feistel(key, y, 4, true), BigInt(x)));
});

test('public: bad arguments', (t) => {
  const { keys } = twoKeys(t);
  assert.throws(() => keys.public(1n << 63n), (e) => e instanceof uidgen.InvalidIdError && e.errno === ERANGE);
  assert.throws(() => keys.public(-1n), (e) => e instanceof uidgen.InvalidIdError);
  assert.throws(() => keys.public(1n, 7), (e) => e instanceof uidgen.NoKeyError && e.errno === ENOKEY);
  assert.throws(() => keys.parse(keys.format(5n, { keyId: 1 }), { keyId: 2 }),
    (e) => e instanceof uidgen.KeyRejectedError && e.errno === EKEYREJECTED && e.code === 'EKEYREJECTED');
  assert.throws(() => new uidgen.Keys().current, (e) => e instanceof uidgen.NoKeyError);
  assert.throws(() => keys.add(62, KEY0), (e) => e instanceof uidgen.InvalidIdError && e.errno === EINVAL);
  assert.throws(() => keys.add(3, KEY0.subarray(0, 15)), uidgen.InvalidIdError);
  assert.throws(() => uidgen.public(1n, '/nonexistent/keys'), (e) => e instanceof uidgen.UidgenError && e.errno === ENOENT);
});

test('public: a key file rotated by uidgen keygen is read again', (t) => {
  if (!fs.existsSync(CLI)) {
    t.skip(`no ${CLI}: make userlib builds it`);
    return;
  }
  const file = path.join(keyDir(t), 'keys');
  execFileSync(CLI, ['keygen', file], { stdio: 'ignore' });
  const before = uidgen.public(77n, file);
  assert.equal(before[0], '1');
  execFileSync(CLI, ['keygen', file], { stdio: 'ignore' });
  const after = uidgen.public(77n, file);
  assert.equal(after[0], '2');
  assert.equal(uidgen.private(before, file), 77n);      // key 1 still opens its tokens
  assert.equal(uidgen.private(after, file), 77n);
  // The CLI opens the same texts to the same ID.
  const code = uidgen.public(77n, file, { short: true });
  assert.equal(code, after.slice(1, 12));
  const out = execFileSync(CLI, ['decode', '--key', file, before, after, code], { encoding: 'latin1', stdio: ['ignore', 'pipe', 'ignore'] });
  assert.deepEqual(out.match(/ id=[0-9]+/g), [" id=77", " id=77", " id=77"]);
});

test('JSON: IDs as decimal strings, and the 2^53 rule', () => {
  const id = 4611686018427387905n;      // 2^62 + 1: far above 2^53
  assert.equal(uidgen.toJSON({ id, n: 3, ids: new BigUint64Array([1n, id]), deep: [{ id }] }),
    '{"id":"4611686018427387905","n":3,"ids":["1","4611686018427387905"],"deep":[{"id":"4611686018427387905"}]}');
  assert.equal(uidgen.toJSON([id], 1), '[\n "4611686018427387905"\n]');
  assert.equal(JSON.stringify({ id }, uidgen.jsonReplacer), '{"id":"4611686018427387905"}');
  assert.throws(() => JSON.stringify({ id }), TypeError);        // what toJSON is for
  // As a JSON number it comes back as another ID: the low bits are gone.
  assert.notEqual(BigInt(JSON.parse(`{"id":${id}}`).id), id);
  assert.equal(BigInt(JSON.parse(uidgen.toJSON({ id })).id), id);
  assert.equal(uidgen.MAX_SAFE_ID, 2n ** 53n - 1n);
  assert.equal(BigInt(Number(2n ** 53n + 1n)), 2n ** 53n);
});

