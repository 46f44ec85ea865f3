// SPDX-License-Identifier: LGPL-2.1-or-later

// The opaque public form of an ID, as libuidgen makes it (userlib/public.c,
// man 3 uidgen_public, Documentation/public-ids.rst): an 8-round Feistel
// network over the ID's 32-bit halves with SipHash-2-4 as the round
// function; a text of 13 base62 characters (key ID, 11 token digits, check
// digit) and a decimal form; key sets and key files, with libuidgen's format
// and permission checks. Standard library only; the tests compare every
// token with libuidgen's (tests/lib/idref -k).

package uidgen

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"syscall"
)

const (
	// PublicRounds is the Feistel network's number of rounds.
	PublicRounds = 8
	// KeyBytes is a key's length.
	KeyBytes = 16
	// KeyIDs is how many key IDs there are (0..61, one base62 digit each).
	KeyIDs = 62
	// PublicTextLen is the text form's length.
	PublicTextLen = 13
	// PublicShortLen is the short code's length: the text's token digits.
	PublicShortLen = 11
	// KeyCurrent names a set's current key.
	KeyCurrent  = -1
	b62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyfileMax  = 64 * 1024
	keyfileHead = "# uidgen public-ID keys (man 3 uidgen_public): a key ID (one of 0-9A-Za-z)\n" +
		"# and 32 hex digits a line. The last key makes new tokens; every key\n" +
		"# listed opens the tokens made under it. Keep secret: a leak opens them all.\n"
)

// SipHash24 is SipHash-2-4 of msg under a 16-byte key.
func SipHash24(key [KeyBytes]byte, msg []byte) uint64 {
	v0, v1, v2, v3 := sipInit(sipKey(key))
	n := len(msg)
	for len(msg) >= 8 {
		w := binary.LittleEndian.Uint64(msg)
		v3 ^= w
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= w
		msg = msg[8:]
	}
	b := uint64(n) << 56
	for i := len(msg) - 1; i >= 0; i-- {
		b |= uint64(msg[i]) << (8 * uint(i))
	}
	return sipFinal(v0, v1, v2, v3, b)
}

type pkey struct {
	raw     [KeyBytes]byte
	present bool
}

// Keys is a key set: up to 62 keys, each named by a key ID; the last added
// is the current one, which makes new tokens.
type Keys struct {
	key   [KeyIDs]pkey
	order []int
}

// NewKeys is an empty key set.
func NewKeys() *Keys { return &Keys{} }

func keyErr(op string, e syscall.Errno) error { return &Error{Op: op, Errno: e} }

// Add adds key as keyID (0..61), which becomes current.
func (k *Keys) Add(keyID int, key [KeyBytes]byte) error {
	if keyID < 0 || keyID >= KeyIDs {
		return keyErr("key ID "+strconv.Itoa(keyID), syscall.EINVAL)
	}
	if k.key[keyID].present {
		return keyErr("key ID "+string(b62[keyID]), syscall.EEXIST)
	}
	k.key[keyID] = pkey{raw: key, present: true}
	k.order = append(k.order, keyID)
	return nil
}

// Generate adds a key from crypto/rand (getrandom(2)) under the first free
// key ID after the current one's (1 in an empty set) and returns its ID.
func (k *Keys) Generate() (int, error) {
	id := 1
	if len(k.order) > 0 {
		id = k.order[len(k.order)-1] + 1
	}
	i := 0
	for ; i < KeyIDs && k.key[id%KeyIDs].present; i++ {
		id++
	}
	if i == KeyIDs {
		return -1, keyErr("Generate", syscall.ENOSPC)
	}
	id %= KeyIDs
	var key [KeyBytes]byte
	if _, err := io.ReadFull(rand.Reader, key[:]); err != nil {
		return -1, err
	}
	return id, k.Add(id, key)
}

// Current is the current key's ID.
func (k *Keys) Current() (int, error) {
	if k == nil || len(k.order) == 0 {
		return -1, keyErr("no key", syscall.ENOKEY)
	}
	return k.order[len(k.order)-1], nil
}

func (k *Keys) pick(keyID int) (int, *pkey, error) {
	if keyID == KeyCurrent {
		var err error
		if keyID, err = k.Current(); err != nil {
			return -1, nil, err
		}
	}
	if keyID < 0 || keyID >= KeyIDs {
		return -1, nil, keyErr("key ID "+strconv.Itoa(keyID), syscall.EINVAL)
	}
	if k == nil || !k.key[keyID].present {
		return -1, nil, keyErr("key ID "+string(b62[keyID]), syscall.ENOKEY)
	}
	return keyID, &k.key[keyID], nil
}

// sipKey is a key as SipHash's two little-endian words.
func sipKey(key [KeyBytes]byte) (k0, k1 uint64) {
	return binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])
}

// sipInit is SipHash's state before the first word: the key and its constants.
func sipInit(k0, k1 uint64) (v0, v1, v2, v3 uint64) {
	return k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
		k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573
}

// sipRound is one SipRound, its steps in an order whose inlining cost is
// under the compiler's budget: every round is inlined.
func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v2 += v3
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 = bits.RotateLeft64(v0, 32) + v3
	v2 += v1
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	return v0, v1, bits.RotateLeft64(v2, 32), v3
}

// sipFinal is SipHash-2-4's end: the last word b (the message's length in
// its top byte, the bytes after the last whole word below), then the
// finalization.
func sipFinal(v0, v1, v2, v3, b uint64) uint64 {
	v3 ^= b
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= b
	v2 ^= 0xff
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

// sip8 is SipHash-2-4 of the 8 bytes le64(w): the round function's one shape.
func sip8(k0, k1, w uint64) uint64 {
	v0, v1, v2, v3 := sipInit(k0, k1)
	v3 ^= w
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= w
	return sipFinal(v0, v1, v2, v3, uint64(8)<<56)
}

// Feistel is the permutation on 2*halfBits bits (32 for tokens; smaller
// halves for tests); decrypt runs it backwards.
func Feistel(key [KeyBytes]byte, halfBits uint, x uint64, decrypt bool) uint64 {
	k0, k1 := sipKey(key)
	mask := uint64(1)<<halfBits - 1
	l, r := x>>halfBits&mask, x&mask
	if !decrypt {
		for i := 0; i < PublicRounds; i++ {
			l, r = r, l^(sip8(k0, k1, uint64(i)<<32|r)&mask)
		}
	} else {
		for i := PublicRounds - 1; i >= 0; i-- {
			l, r = r^(sip8(k0, k1, uint64(i)<<32|l)&mask), l
		}
	}
	return l<<halfBits | r
}

// Public is the 64-bit token of id under keyID (KeyCurrent: the current key).
func (k *Keys) Public(keyID int, id uint64) (uint64, error) {
	_, p, err := k.pick(keyID)
	if err != nil {
		return 0, err
	}
	if id>>idBits != 0 {
		return 0, keyErr("Public", syscall.ERANGE)
	}
	return Feistel(p.raw, 32, id, false), nil
}

// Private is the ID a 64-bit token opens to under keyID; EKEYREJECTED if it
// opens to no ID (not a token of this key).
func (k *Keys) Private(keyID int, token uint64) (uint64, error) {
	_, p, err := k.pick(keyID)
	if err != nil {
		return 0, err
	}
	id := Feistel(p.raw, 32, token, true)
	if id>>idBits != 0 {
		return 0, keyErr("Private: not a token of this key", syscall.EKEYREJECTED)
	}
	return id, nil
}

func checkDigit(p *pkey, keyID int, token uint64) byte {
	var m [9]byte
	binary.LittleEndian.PutUint64(m[:8], token)
	m[8] = byte(keyID)
	return b62[SipHash24(p.raw, m[:])%62]
}

// Format is the token of id as its 13-character text (key ID, 11 base62
// digits, check digit), or with decimal true as a decimal number.
func (k *Keys) Format(keyID int, id uint64, decimal bool) (string, error) {
	kid, p, err := k.pick(keyID)
	if err != nil {
		return "", err
	}
	t, err := k.Public(kid, id)
	if err != nil {
		return "", err
	}
	if decimal {
		return strconv.FormatUint(t, 10), nil
	}
	var s [PublicTextLen]byte
	s[0] = b62[kid]
	s[PublicTextLen-1] = checkDigit(p, kid, t)
	for i, v := PublicTextLen-2, t; i >= 1; i, v = i-1, v/62 {
		s[i] = b62[v%62]
	}
	return string(s[:]), nil
}

// FormatShort is the token of id as its short code: the 11 base62 digits
// of the text alone, no key ID, no check digit (for short URLs).
func (k *Keys) FormatShort(keyID int, id uint64) (string, error) {
	t, err := k.Public(keyID, id)
	if err != nil {
		return "", err
	}
	var s [PublicShortLen]byte
	for i, v := PublicShortLen-1, t; i >= 0; i, v = i-1, v/62 {
		s[i] = b62[v%62]
	}
	return string(s[:]), nil
}

// ParseShort is the ID of a short code, opened with keyID (KeyCurrent: the
// current key): EINVAL for no short code, EKEYREJECTED if it opens to no ID.
func (k *Keys) ParseShort(keyID int, s string) (uint64, error) {
	t, ok := b62Token(s, PublicShortLen)
	if !ok {
		return 0, keyErr("not a short code: "+strconv.Quote(s), syscall.EINVAL)
	}
	return k.Private(keyID, t)
}

// b62Token is the value of s, n base62 digits, if it is below 2^64.
func b62Token(s string, n int) (uint64, bool) {
	if len(s) != n {
		return 0, false
	}
	var hi, lo uint64 // the digits' value as 128 bits
	for i := 0; i < n; i++ {
		d := b62Value(s[i])
		if d < 0 {
			return 0, false
		}
		// (hi:lo) = (hi:lo) * 62 + d
		h0, l0 := mul64(lo, 62)
		hi = hi*62 + h0
		lo = l0 + uint64(d)
		if lo < l0 {
			hi++
		}
	}
	return lo, hi == 0
}

func b62Value(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 36
	}
	return -1
}

// Parse is the ID of a token's text; keyID is KeyCurrent (the key the text
// names) or the one key ID to accept. With decimal true, s is a decimal
// token, opened with keyID (KeyCurrent: the current key).
func (k *Keys) Parse(keyID int, s string, decimal bool) (uint64, error) {
	bad := keyErr("not a token: "+strconv.Quote(s), syscall.EINVAL)
	if decimal {
		if s == "" || (s[0] == '0' && len(s) > 1) || strings.TrimLeft(s, "0123456789") != "" {
			return 0, bad
		}
		t, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, bad
		}
		return k.Private(keyID, t)
	}
	if len(s) != PublicTextLen || b62Value(s[0]) < 0 || b62Value(s[PublicTextLen-1]) < 0 {
		return 0, bad
	}
	lo, ok := b62Token(s[1:PublicTextLen-1], PublicShortLen)
	if !ok {
		return 0, bad
	}
	kid := b62Value(s[0])
	if keyID != KeyCurrent && keyID != kid {
		return 0, keyErr("made under key "+s[:1], syscall.EKEYREJECTED)
	}
	_, p, err := k.pick(kid)
	if err != nil {
		return 0, err
	}
	if s[PublicTextLen-1] != checkDigit(p, kid, lo) {
		return 0, keyErr("not a token of key "+s[:1]+" (check digit)", syscall.EKEYREJECTED)
	}
	return k.Private(kid, lo)
}

func mul64(a, b uint64) (hi, lo uint64) {
	const m32 = 1<<32 - 1
	a0, a1 := a&m32, a>>32
	b0, b1 := b&m32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&m32 + a0*b1
	return a1*b1 + t>>32 + w1>>32, a * b
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// KeyFileError is a malformed key file: Line (from 1) and its errno
// (EINVAL, EEXIST); errors.Is(err, syscall.EINVAL) holds.
type KeyFileError struct {
	Path  string
	Line  int
	Errno syscall.Errno
}

func (e *KeyFileError) Error() string {
	return fmt.Sprintf("uidgen: key file %s line %d: %s: one key a line: a key ID (one of 0-9A-Za-z), blanks, 32 hex digits",
		e.Path, e.Line, e.Errno.Error())
}

func (e *KeyFileError) Unwrap() error { return e.Errno }

// ParseKeys reads a key set from a key file's text: one key a line, its key
// ID (one of 0-9A-Za-z), blanks and 32 hex digits; blank lines and "#"
// comments; the last key current.
func ParseKeys(text, path string) (*Keys, error) {
	k := NewKeys()
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		s := strings.TrimLeft(line, " \t")
		if s == "" || s[0] == '#' {
			continue
		}
		ferr := &KeyFileError{Path: path, Line: n + 1, Errno: syscall.EINVAL}
		if len(s) < 2 || b62Value(s[0]) < 0 || (s[1] != ' ' && s[1] != '\t') {
			return nil, ferr
		}
		rest := strings.TrimLeft(s[1:], " \t")
		if len(rest) < 2*KeyBytes || !isHex(rest[:2*KeyBytes]) ||
			strings.Trim(rest[2*KeyBytes:], " \t") != "" {
			return nil, ferr
		}
		var key [KeyBytes]byte
		hex.Decode(key[:], []byte(rest[:2*KeyBytes]))
		if err := k.Add(b62Value(s[0]), key); err != nil {
			ferr.Errno = syscall.EEXIST
			return nil, ferr
		}
	}
	if len(k.order) == 0 {
		return nil, keyErr("key file "+path+": no key", syscall.ENOKEY)
	}
	return k, nil
}

// LoadKeys reads a key file, refused (EPERM) if others may read, write or
// execute it, the group may write it, or a user other than root and this
// process's owns it; EINVAL if it is not a regular file.
func LoadKeys(path string) (*Keys, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fail("key file "+path, err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return nil, fail("key file "+path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, keyErr("key file "+path+": not a regular file", syscall.EINVAL)
	}
	if st.Mode&0o027 != 0 || (st.Uid != 0 && int(st.Uid) != os.Geteuid()) {
		return nil, keyErr(fmt.Sprintf("key file %s (mode %04o, owner %d): others may read it, "+
			"the group write it, or another user owns it: chmod o=,g-w, owner root or this user",
			path, st.Mode&0o7777, st.Uid), syscall.EPERM)
	}
	data, err := io.ReadAll(io.LimitReader(f, keyfileMax+1))
	if err != nil {
		return nil, fail("key file "+path, err)
	}
	if len(data) > keyfileMax {
		return nil, keyErr("key file "+path+": over 64 KiB", syscall.EFBIG)
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return nil, &KeyFileError{Path: path, Errno: syscall.EINVAL}
	}
	return ParseKeys(string(data), path)
}

// Text is the key file's text: a comment, then one key a line, current last.
func (k *Keys) Text() string {
	var b strings.Builder
	b.WriteString(keyfileHead)
	for _, id := range k.order {
		fmt.Fprintf(&b, "%c %s\n", b62[id], hex.EncodeToString(k.key[id].raw[:]))
	}
	return b.String()
}
