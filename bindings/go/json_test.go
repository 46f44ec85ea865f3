// SPDX-License-Identifier: LGPL-2.1-or-later

// The ID type's JSON: every ID goes out as a string (an ID above 2^53 as a
// number is the bug this exists for), and comes back exact; numbers are
// read only up to 2^53 - 1.

package uidgen

import (
	"encoding/json"
	"errors"
	"math/rand"
	"strconv"
	"syscall"
	"testing"
)

type order struct {
	ID    ID     `json:"id"`
	Item  string `json:"item"`
	Other []ID   `json:"other,omitempty"`
}

// Random IDs over every width (1 to 63 bits), and the edges.
func jsonIDs(n int) []uint64 {
	r := rand.New(rand.NewSource(29))
	ids := []uint64{0, 1, MaxSafeInteger - 1, MaxSafeInteger, MaxSafeInteger + 1,
		MaxSafeInteger + 2, 1<<63 - 1, 120772217587765248}
	for len(ids) < n {
		ids = append(ids, r.Uint64()>>(1+r.Intn(63)))
	}
	return ids
}

func TestIDJSONIsAString(t *testing.T) {
	above := 0
	for _, v := range jsonIDs(10000) {
		b, err := json.Marshal(order{ID: ID(v), Item: "x"})
		if err != nil {
			t.Fatalf("%d: %v", v, err)
		}
		want := `{"id":"` + strconv.FormatUint(v, 10) + `","item":"x"}`
		if string(b) != want {
			t.Fatalf("%d: got %s, want %s", v, b, want)
		}
		// What a reader that knows nothing of IDs gets: a string, never
		// a number (which encoding/json, like JavaScript, reads as a float64).
		var any map[string]interface{}
		if err := json.Unmarshal(b, &any); err != nil {
			t.Fatal(err)
		}
		if s, ok := any["id"].(string); !ok || s != strconv.FormatUint(v, 10) {
			t.Fatalf("%d: a generic reader got %#v", v, any["id"])
		}
		var back order
		if err := json.Unmarshal(b, &back); err != nil || uint64(back.ID) != v {
			t.Fatalf("%d: read back %d, %v", v, back.ID, err)
		}
		if v > MaxSafeInteger {
			above++
		}
	}
	if above < 500 {
		t.Fatalf("only %d IDs above 2^53 - 1: the test did not test them", above)
	}
	// The trap it avoids: a plain uint64 above 2^53 goes out as a number
	// that a float64 (a JavaScript number) does not hold.
	b, _ := json.Marshal(map[string]uint64{"id": MaxSafeInteger + 2})
	var f map[string]float64
	if err := json.Unmarshal(b, &f); err != nil || uint64(f["id"]) == MaxSafeInteger+2 {
		t.Fatalf("uint64 2^53 + 1 as a number read back exact (%s, %v): the trap is gone?", b, err)
	}
}

func TestIDJSONReads(t *testing.T) {
	good := map[string]uint64{
		`"0"`: 0, `"9007199254740993"`: MaxSafeInteger + 2,
		`"9223372036854775807"`: 1<<63 - 1, `9007199254740991`: MaxSafeInteger,
		`0`: 0, ` "42" `: 42, `120`: 120,
	}
	for in, want := range good {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || uint64(id) != want {
			t.Errorf("%s: got %d, %v; want %d", in, id, err, want)
		}
	}
	bad := map[string]syscall.Errno{
		`9007199254740992`: syscall.ERANGE, `9007199254740993`: syscall.ERANGE,
		`"9223372036854775808"`: syscall.ERANGE, `"18446744073709551615"`: syscall.ERANGE,
		`"18446744073709551616"`: syscall.ERANGE, `""`: syscall.EINVAL, `"-1"`: syscall.EINVAL,
		`-1`: syscall.EINVAL, `1.0`: syscall.EINVAL, `1e3`: syscall.EINVAL,
		`"012"`: syscall.EINVAL, `"0x10"`: syscall.EINVAL, `" 1"`: syscall.EINVAL,
		`true`: syscall.EINVAL, `"1"2`: syscall.EINVAL,
	}
	for in, want := range bad {
		id := ID(7)
		err := (&id).UnmarshalJSON([]byte(in))
		if !errors.Is(err, want) || id != 7 {
			t.Errorf("%s: got %v (ID %d), want %v and the ID left at 7", in, err, id, want)
		}
	}
	id := ID(7)
	if err := json.Unmarshal([]byte(`null`), &id); err != nil || id != 7 {
		t.Errorf("null: got %d, %v; want 7 untouched", id, err)
	}
	if _, err := json.Marshal(ID(1 << 63)); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("2^63 marshalled: %v, want ERANGE", err)
	}
	var e *Error
	err := (&id).UnmarshalJSON([]byte(`9007199254740993`))
	if !errors.As(err, &e) || e.Error() != "uidgen: uidgen.ID.UnmarshalJSON: numerical result out of range: "+
		"an ID in JSON is a string of decimal digits, at most 2^63 - 1, or a number of at most "+
		"2^53 - 1 (JavaScript rounds larger ones): send IDs as strings" {
		t.Errorf("the message: %v", err)
	}
	if ID(123).String() != "123" {
		t.Errorf("String: %s", ID(123))
	}
}
