// SPDX-License-Identifier: LGPL-2.1-or-later

// IDs in JSON (Documentation/clients.rst, "IDs in JSON and JavaScript"):
// the ID type, which encoding/json writes as a decimal string and reads
// from one, or from a number only while JavaScript holds it exactly.

package uidgen

import (
	"bytes"
	"strconv"
	"syscall"
)

const (
	opMarshalID   = "uidgen.ID.MarshalJSON"
	opUnmarshalID = "uidgen.ID.UnmarshalJSON"
)

// MaxSafeInteger is 2^53 - 1, JavaScript's Number.MAX_SAFE_INTEGER: the
// largest integer below which a double holds every integer exactly.
const MaxSafeInteger = 1<<53 - 1

// ID is an ID as JSON carries it: MarshalJSON writes it as a decimal string
// ("123"), always, whatever its size, so a JavaScript reader, whose numbers
// are doubles, never rounds it; UnmarshalJSON reads that string back, or a
// JSON number up to MaxSafeInteger (a larger one may already have been
// rounded by a JavaScript writer, and is refused). Use it for the fields
// that hold IDs: type Order struct { ID uidgen.ID `json:"id"` }.
type ID uint64

// String is the ID in decimal.
func (id ID) String() string { return strconv.FormatUint(uint64(id), 10) }

// MarshalJSON writes the ID as a JSON string of its decimal digits.
func (id ID) MarshalJSON() ([]byte, error) {
	if uint64(id)>>idBits != 0 {
		return nil, &Error{Op: opMarshalID, Errno: syscall.ERANGE}
	}
	b := make([]byte, 0, 22)
	b = append(b, '"')
	b = strconv.AppendUint(b, uint64(id), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON reads a JSON string of decimal digits (no sign, no leading
// zero, at most 2^63 - 1), or a JSON number that is an integer from 0 to
// MaxSafeInteger written without fraction or exponent; null leaves the ID
// as it was. Anything else is an *Error with EINVAL, or ERANGE for a
// number above MaxSafeInteger or a string above 2^63 - 1.
func (id *ID) UnmarshalJSON(b []byte) error {
	const op = opUnmarshalID
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	s, quoted := b, false
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s, quoted = s[1:len(s)-1], true
	}
	if len(s) == 0 || (s[0] == '0' && len(s) > 1) {
		return &Error{Op: op, Errno: syscall.EINVAL}
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return &Error{Op: op, Errno: syscall.EINVAL}
		}
	}
	v, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil || v>>idBits != 0 || (!quoted && v > MaxSafeInteger) {
		return &Error{Op: op, Errno: syscall.ERANGE}
	}
	*id = ID(v)
	return nil
}
