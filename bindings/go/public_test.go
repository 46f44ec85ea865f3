// SPDX-License-Identifier: LGPL-2.1-or-later

// The public form's tests: SipHash-2-4's reference vectors, the project's
// token vectors, and tokens, texts, refusals and key files against
// libuidgen's (tests/lib/idref -k); the network on 2x8 bits is a
// permutation. No device needed.

package uidgen

import (
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// SipHash-2-4, key 00..0f, messages 00 .. (len - 1): vectors_sip64 of the
// reference implementation.
var sipVectors = [64]uint64{
	0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
	0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
	0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
	0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
	0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
	0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
	0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
	0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
	0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
	0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
	0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
	0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
	0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
	0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
	0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
	0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572,
}

var key0f = [KeyBytes]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

func TestSipHashVectors(t *testing.T) {
	var m [64]byte
	for i := range m {
		m[i] = byte(i)
	}
	for n, v := range sipVectors {
		if h := SipHash24(key0f, m[:n]); h != v {
			t.Errorf("length %d: %016x, not %016x", n, h, v)
		}
		if n == 8 {
			if h := sip8(0x0706050403020100, 0x0f0e0d0c0b0a0908, 0x0706050403020100); h != v {
				t.Errorf("sip8: %016x, not %016x", h, v)
			}
		}
	}
}

// userlib/tests/public_kats.h: key 1 = 00..0f.
var publicKats = []struct {
	id, token uint64
	text, dec string
}{
	{0, 0x94466d533ba26fb4, "1CjGQJ2ZYu96R", "10684347370233294772"},
	{1, 0x8adb24b607f7b131, "1Bv7tf5oeZRR0", "10005631361370009905"},
	{4611686018427387904, 0xb31d6dc5f46de12b, "1FNQKa6Ak9Ahg", "12906592804090536235"},
	{9223372036854775807, 0x0343a413d14e6dbc, "10HNGxLcualA1", "235212010576309692"},
	{9007199254740993, 0x4309b3c1c12a17ae, "15kq9QvcEfc6K", "4830589720082388910"},
}

func TestPublicVectors(t *testing.T) {
	k := NewKeys()
	if err := k.Add(1, key0f); err != nil {
		t.Fatal(err)
	}
	for _, v := range publicKats {
		tok, err := k.Public(KeyCurrent, v.id)
		text, _ := k.Format(KeyCurrent, v.id, false)
		dec, _ := k.Format(1, v.id, true)
		if err != nil || tok != v.token || text != v.text || dec != v.dec {
			t.Errorf("ID %d: %v %016x %s %s", v.id, err, tok, text, dec)
		}
		id1, err1 := k.Parse(KeyCurrent, v.text, false)
		id2, err2 := k.Parse(KeyCurrent, v.dec, true)
		if err1 != nil || err2 != nil || id1 != v.id || id2 != v.id {
			t.Errorf("ID %d: opened %d %v, %d %v", v.id, id1, err1, id2, err2)
		}
		// The short code is the text's 11 token digits.
		short, err := k.FormatShort(KeyCurrent, v.id)
		id3, err3 := k.ParseShort(1, short)
		if err != nil || short != v.text[1:12] || err3 != nil || id3 != v.id {
			t.Errorf("ID %d: short %q %v, opened %d %v", v.id, short, err, id3, err3)
		}
	}
}

// Short codes, made and opened, token by token as libuidgen's (idref -S, -s).
func TestShortAgainstLibuidgen(t *testing.T) {
	k, path := keyFile(t)
	rng := mrand.New(mrand.NewSource(6))
	ids := someIDs(2000, rng)
	lines := make([]string, len(ids))
	for i, id := range ids {
		lines[i] = strconv.FormatUint(id, 10)
	}
	codes := []string{"LygHa16AHYG", "LygHa16AHYF", "zzzzzzzzzzz", "00000000000", "0000000000",
		"000000000000", "0000-000000", "\u00e9000000000"}
	for i, r := range idref(t, lines, "-k", path, "-S") {
		got, err := k.FormatShort(KeyCurrent, ids[i])
		if r[1] == "error" {
			if want, _ := strconv.Atoi(r[2]); errnoOf(err) != want {
				t.Errorf("%d: %v, libuidgen %s", ids[i], err, r[2])
			}
			continue
		}
		if got != r[1] || err != nil {
			t.Errorf("%d: %q %v, libuidgen %s", ids[i], got, err, r[1])
		}
		j := rng.Intn(11)
		codes = append(codes, got, got[:j]+string(b62[rng.Intn(62)])+got[j+1:])
	}
	for i := 0; i < 300; i++ {
		var c [11]byte
		for j := range c {
			c[j] = b62[rng.Intn(62)]
		}
		codes = append(codes, string(c[:]))
	}
	for i, r := range idref(t, codes, "-k", path, "-s") {
		id, err := k.ParseShort(KeyCurrent, codes[i])
		if r[len(r)-2] == "error" {
			if want, _ := strconv.Atoi(r[len(r)-1]); errnoOf(err) != want {
				t.Errorf("%q: %d %v, libuidgen %s", codes[i], id, err, r[len(r)-1])
			}
		} else if strconv.FormatUint(id, 10) != r[len(r)-1] || err != nil {
			t.Errorf("%q: %d %v, libuidgen %s", codes[i], id, err, r[len(r)-1])
		}
	}
}

// keyFile writes a key set of two generated keys (2 current) to a file of
// mode 0600 in a temporary directory.
func keyFile(t *testing.T) (*Keys, string) {
	k := NewKeys()
	for i := 0; i < 2; i++ {
		if _, err := k.Generate(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(k.Text()), 0o600); err != nil {
		t.Fatal(err)
	}
	return k, path
}

func errnoOf(err error) int {
	var en syscall.Errno
	if errors.As(err, &en) {
		return -int(en)
	}
	return 0
}

func TestPublicAgainstLibuidgen(t *testing.T) {
	k, path := keyFile(t)
	ids := someIDs(2000, mrand.New(mrand.NewSource(4)))
	lines := make([]string, len(ids))
	for i, id := range ids {
		lines[i] = strconv.FormatUint(id, 10)
	}
	for i, r := range idref(t, lines, "-k", path) {
		id := ids[i]
		tok, err := k.Public(KeyCurrent, id)
		if r[1] == "error" {
			if want, _ := strconv.Atoi(r[2]); errnoOf(err) != want {
				t.Errorf("%d: %v, libuidgen %s", id, err, r[2])
			}
			continue
		}
		text, _ := k.Format(KeyCurrent, id, false)
		dec, _ := k.Format(KeyCurrent, id, true)
		if got := []string{fmt.Sprintf("%016x", tok), text, dec}; strings.Join(got, " ") != strings.Join(r[1:], " ") {
			t.Errorf("%d: %v, libuidgen %v", id, got, r[1:])
		}
	}
}

func TestPublicRefusalsMatchLibuidgen(t *testing.T) {
	k, path := keyFile(t)
	other := NewKeys()
	var ok [KeyBytes]byte
	rand.Read(ok[:])
	other.Add(2, ok)
	rng := mrand.New(mrand.NewSource(5))
	texts := []string{"1", "1LygHa16AHYG0", "1LygHa16AHYF0", "1zzzzzzzzzzz0", strings.Repeat("1", 14),
		"1-0000000000A", "3CjGQJ2ZYu96R", "\u00e91CjGQJ2ZYu9"}
	for i := 0; i < 300; i++ {
		s, _ := k.Format(1+rng.Intn(2), rng.Uint64()>>1, false)
		j := rng.Intn(13)
		o, _ := other.Format(KeyCurrent, rng.Uint64()>>1, false)
		texts = append(texts, s, s[:j]+string(b62[rng.Intn(62)])+s[j+1:], o)
	}
	decs := []string{"0", "01", "+1", "18446744073709551615", "18446744073709551616", "x"}
	for i := 0; i < 300; i++ {
		decs = append(decs, strconv.FormatUint(rng.Uint64(), 10))
	}
	for _, c := range []struct {
		flag  string
		lines []string
		dec   bool
	}{{"-o", texts, false}, {"-O", decs, true}} {
		for i, r := range idref(t, c.lines, "-k", path, c.flag) {
			id, err := k.Parse(KeyCurrent, c.lines[i], c.dec)
			if r[len(r)-2] == "error" {
				if want, _ := strconv.Atoi(r[len(r)-1]); errnoOf(err) != want {
					t.Errorf("%q: %d %v, libuidgen %s", c.lines[i], id, err, r[len(r)-1])
				}
			} else if strconv.FormatUint(id, 10) != r[len(r)-1] || err != nil {
				t.Errorf("%q: %d %v, libuidgen %s", c.lines[i], id, err, r[len(r)-1])
			}
		}
	}
}

func TestKeyFiles(t *testing.T) {
	k, path := keyFile(t)
	l, err := LoadKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := l.Current(); cur != 2 {
		t.Errorf("current %d", cur)
	}
	a, _ := l.Format(1, 42, false)
	b, _ := k.Format(1, 42, false)
	if a != b {
		t.Errorf("key 1 after load: %s, %s", a, b)
	}
	for _, mode := range []os.FileMode{0o644, 0o604, 0o602, 0o601, 0o660} {
		os.Chmod(path, mode)
		if _, err := LoadKeys(path); !errors.Is(err, syscall.EPERM) {
			t.Errorf("mode %o: %v", mode, err)
		}
	}
	os.Chmod(path, 0o640)
	if _, err := LoadKeys(path); err != nil {
		t.Errorf("mode 640: %v", err)
	}
	k0 := "000102030405060708090a0b0c0d0e0f"
	bad := []string{"1 " + k0[:31], "1 " + k0 + "0", "# x\n1 " + k0[:30] + "XX", "10 " + k0,
		"- " + k0, "1 " + k0 + "\n\n1 " + k0, "1" + k0, "\r\n1 " + k0 + "\r\n2\t" + k0 + " \t",
		"  # c\n \t1 " + k0 + "\n", "\n", "", "1 " + k0 + " x", "1 " + k0 + "\x0b",
		"# \u00e9t\u00e9\n1 " + k0, "\x00\n1 " + k0}
	repo := os.Getenv("UIDGEN_REPO")
	if repo == "" {
		repo, _ = filepath.Abs("../..")
	}
	ref := filepath.Join(repo, "tests/lib/idref")
	if _, err := os.Stat(ref); err != nil {
		skip(t, "no "+ref+": make clients builds it (libuidgen's answers to compare with)")
	}
	for n, text := range bad {
		p := filepath.Join(t.TempDir(), "bad")
		os.WriteFile(p, []byte(text), 0o600)
		cmd := exec.Command(ref, "-k", p)
		cmd.Stdin = strings.NewReader("0\n")
		var out, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &stderr
		runErr := cmd.Run()
		got, err := LoadKeys(p)
		if err != nil {
			line := 0
			var fe *KeyFileError
			if errors.As(err, &fe) {
				line = fe.Line
			}
			var en syscall.Errno
			errors.As(err, &en)
			if runErr == nil || !strings.Contains(strings.ToLower(stderr.String()), fmt.Sprintf("line %d: %s", line, strings.ToLower(en.Error()))) {
				t.Errorf("case %d %q: %v; libuidgen: %v %q", n, text, err, runErr, stderr.String())
			}
			continue
		}
		s, _ := got.Format(KeyCurrent, 0, false)
		if f := strings.Fields(out.String()); runErr != nil || len(f) < 3 || f[2] != s {
			t.Errorf("case %d %q: %s; libuidgen: %v %q %q", n, text, s, runErr, out.String(), stderr.String())
		}
	}
}

func TestPermutationSmall(t *testing.T) {
	var key [KeyBytes]byte
	rand.Read(key[:])
	seen := make([]bool, 1<<16)
	for x := uint64(0); x < 1<<16; x++ {
		y := Feistel(key, 8, x, false)
		if y >= 1<<16 || seen[y] {
			t.Fatalf("%d -> %d: out of range or seen twice", x, y)
		}
		seen[y] = true
		if Feistel(key, 8, y, true) != x {
			t.Fatalf("%d: not inverted", x)
		}
	}
}

func TestPublicArguments(t *testing.T) {
	k, _ := keyFile(t)
	if _, err := k.Public(KeyCurrent, 1<<63); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("2^63: %v", err)
	}
	if _, err := k.Public(7, 1); !errors.Is(err, syscall.ENOKEY) {
		t.Errorf("key 7: %v", err)
	}
	s, _ := k.Format(1, 5, false)
	if _, err := k.Parse(2, s, false); !errors.Is(err, syscall.EKEYREJECTED) {
		t.Errorf("key 1's token as key 2's: %v", err)
	}
	if _, err := NewKeys().Current(); !errors.Is(err, syscall.ENOKEY) {
		t.Errorf("empty set: %v", err)
	}
}

func BenchmarkPublic(b *testing.B) {
	k := NewKeys()
	k.Add(1, key0f)
	for i := 0; i < b.N; i++ {
		k.Public(KeyCurrent, uint64(i))
	}
}
