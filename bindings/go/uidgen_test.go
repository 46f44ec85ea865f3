// SPDX-License-Identifier: LGPL-2.1-or-later

// The Go binding's tests. Pure: Decode and the UUID/ULID views against
// libuidgen's own answers (tests/lib/idref) on the same IDs. Device: the real
// /dev/uid with node ID $UIDGEN_NODE assigned after load (the VM's `go`
// suite). Without /dev/uid (or without tests/lib/idref, which make clients
// builds) a test skips, saying why; with UIDGEN_REQUIRE_DEVICE=1 (set by
// tests/shell/go.sh, where everything must run) it fails instead.
package uidgen

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// required: UIDGEN_REQUIRE_DEVICE=1, the VM suite: nothing may skip.
func required() bool { return os.Getenv("UIDGEN_REQUIRE_DEVICE") == "1" }

// skip skips the test, saying why, or fails it where nothing may skip.
func skip(t *testing.T, why string) {
	t.Helper()
	if required() {
		t.Fatalf("%s (UIDGEN_REQUIRE_DEVICE=1: a failure, not a skip)", why)
	}
	t.Skip(why + " (UIDGEN_REQUIRE_DEVICE=1 makes this a failure)")
}

func idref(t *testing.T, lines []string, args ...string) [][]string {
	t.Helper()
	repo := os.Getenv("UIDGEN_REPO")
	if repo == "" {
		repo, _ = filepath.Abs("../..")
	}
	bin := filepath.Join(repo, "tests/lib/idref")
	if _, err := os.Stat(bin); errors.Is(err, os.ErrNotExist) {
		skip(t, "no "+bin+": make clients builds it (libuidgen's answers to compare with)")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("idref: %v", err)
	}
	var res [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		res = append(res, strings.Fields(l))
	}
	if len(res) != len(lines) {
		t.Fatalf("idref gave %d lines for %d", len(res), len(lines))
	}
	return res
}

func someIDs(n int, r *rand.Rand) []uint64 {
	ids := []uint64{0, 1, 4095, 4096, 1<<22 - 1, 1 << 22, 1<<63 - 2, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	for i := 0; i < n; i++ {
		ids = append(ids, r.Uint64()>>uint(1+r.Intn(64)))
	}
	return ids
}

func compare(t *testing.T, in Info, ids []uint64, args ...string) {
	lines := make([]string, len(ids))
	for i, id := range ids {
		lines[i] = strconv.FormatUint(id, 10)
	}
	for i, r := range idref(t, lines, args...) {
		id := ids[i]
		if r[1] == "error" {
			_, err := ToUUID(in, id, false)
			var e *Error
			if !errors.As(err, &e) || "-"+strconv.Itoa(int(e.Errno)) != r[2] {
				t.Errorf("%d: libuidgen %s, Go %v", id, r[2], err)
			}
			continue
		}
		p, err := Decode(in, id)
		got := fmt.Sprintf("%d %d %d %d %d", p.Tick, p.UnixMs, p.Node, p.Slot, p.Seq)
		if err != nil || got != strings.Join(r[1:6], " ") {
			t.Errorf("%d: decode %s (%v), libuidgen %v", id, got, err, r[1:6])
		}
		u, err := ToUUID(in, id, false)
		u8, _ := ToUUID(in, id, true)
		if err != nil || FormatUUID(u) != r[6] || FormatUUID(u8) != r[7] || FormatULID(u) != r[8] {
			t.Errorf("%d: %s %s %s, libuidgen %v", id, FormatUUID(u), FormatUUID(u8), FormatULID(u), r[6:])
		}
		for _, s := range r[6:9] {
			pu, err := ParseUUID(s)
			back, err2 := FromUUID(in, pu)
			if err != nil || err2 != nil || back != id {
				t.Errorf("%s: back %d, %v %v", s, back, err, err2)
			}
		}
	}
}

func TestDefaultLayoutAgainstLibuidgen(t *testing.T) {
	compare(t, DefaultInfo(), someIDs(3000, rand.New(rand.NewSource(1))), "-d")
}

func TestRefusalsMatchLibuidgen(t *testing.T) {
	in := DefaultInfo()
	r := rand.New(rand.NewSource(2))
	var texts []string
	for i := 0; i < 200; i++ {
		var u [16]byte
		r.Read(u[:])
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		texts = append(texts, FormatUUID(u))
	}
	for _, id := range someIDs(200, r)[:200] {
		if u, err := ToUUID(in, id, false); err == nil {
			texts = append(texts, FormatUUID(u))
		}
	}
	texts = append(texts, "01a22b21-6ca0-7cc3-98c4-dc0c0c07398f", "00000000-0000-7000-8000-000000000000",
		"01a22b21-6ca0-7fff-8e10-000000000000", "01a22b21-6ca0-7000-8e10-000000000001",
		"01M8NJ2V50E008W40000000000", "xyz", "81M8NJ2V50E008W40000000000")
	for i, ref := range idref(t, texts, "-d", "-u") {
		u, err := ParseUUID(texts[i])
		var id uint64
		if err == nil {
			id, err = FromUUID(in, u)
		}
		if ref[1] == "error" {
			var e *Error
			if !errors.As(err, &e) || "-"+strconv.Itoa(int(e.Errno)) != ref[2] {
				t.Errorf("%s: libuidgen %s, Go %d %v", texts[i], ref[2], id, err)
			}
		} else if err != nil || strconv.FormatUint(id, 10) != ref[1] {
			t.Errorf("%s: libuidgen %s, Go %d %v", texts[i], ref[1], id, err)
		}
	}
}

func TestKnown(t *testing.T) {
	u, err := ToUUID(DefaultInfo(), 120772217587765248, false)
	if err != nil || FormatUUID(u) != "01a22b21-6ca0-7000-8e10-000000000000" ||
		FormatULID(u) != "01M8NJ2V50E008W40000000000" {
		t.Fatalf("%s %s %v", FormatUUID(u), FormatULID(u), err)
	}
}

func TestOrder(t *testing.T) {
	in := DefaultInfo()
	var ids []uint64
	for _, id := range someIDs(2000, rand.New(rand.NewSource(3))) {
		if id>>63 == 0 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i := 1; i < len(ids); i++ {
		a, _ := ToUUID(in, ids[i-1], false)
		b, _ := ToUUID(in, ids[i], false)
		if ids[i-1] != ids[i] && (bytes.Compare(a[:], b[:]) >= 0 || FormatULID(a) >= FormatULID(b)) {
			t.Errorf("%d < %d but %s >= %s", ids[i-1], ids[i], FormatUUID(a), FormatUUID(b))
		}
	}
}

func TestNoDevice(t *testing.T) {
	_, err := Open("/nonexistent/uid")
	if !errors.Is(err, syscall.ENOENT) || !strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("got %v", err)
	}
}

// Each hint is the whole next step, as the CLI's and Python's: the module
// loads with no node ID, and "set-node N --new" is only for a node ID that
// has never issued an ID.
func TestHintsAreTheWholeNextStep(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		want  []string
	}{
		{syscall.ENOENT, []string{"not loaded", "modprobe uidgen, then uidgen set-node N --new", "never issued an ID",
			"insmod module/uidgen.ko, then uidgen set-node N --new", "else uidgen state restore FILE"}},
		{syscall.ENODEV, []string{"modprobe uidgen, then uidgen set-node N --new", "uidgen state restore FILE"}},
		{syscall.ENXIO, []string{"modprobe uidgen, then uidgen set-node N --new", "uidgen state restore FILE"}},
		{syscall.EADDRNOTAVAIL, []string{"no node ID", "uidgen state restore FILE",
			"uidgen set-node N --new for a node ID that has never issued an ID"}},
	} {
		msg := (&Error{Op: "open /dev/uid", Errno: c.errno}).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: %q lacks %q", c.errno, msg, w)
			}
		}
	}
}

// The device tests: node ID $UIDGEN_NODE must be assigned.
func node(t *testing.T) uint32 {
	t.Helper()
	if _, err := os.Stat(Device); errors.Is(err, os.ErrNotExist) {
		skip(t, "no "+Device+": the uidgen module is not loaded (a device test)")
	}
	n, err := strconv.Atoi(os.Getenv("UIDGEN_NODE"))
	if err != nil {
		t.Fatalf("UIDGEN_NODE not set: the device tests need the module loaded with it")
	}
	return uint32(n)
}

func TestInfoIsTheModules(t *testing.T) {
	want := node(t)
	in, err := GetInfo()
	if err != nil {
		t.Fatal(err)
	}
	par := func(f string) uint64 {
		b, _ := os.ReadFile("/sys/module/uidgen/parameters/" + f)
		v, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return v
	}
	if in.NodeID != want || uint64(in.TsBits) != par("ts_bits") || uint64(in.SeqBits) != par("seq_bits") ||
		uint64(in.SlotBits) != par("slot_bits") || uint64(in.NodeBits) != par("node_bits") ||
		in.TickNs != par("tick_us")*1000 || in.EpochUnixNs != par("epoch_ms")*1000000 ||
		in.Size != uint64size(in) {
		t.Fatalf("%+v", in)
	}
}

func uint64size(in Info) uint32 { return uint32(unsafe.Sizeof(in)) }

func TestNext(t *testing.T) {
	want := node(t)
	seen := map[uint64]bool{}
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for i := 0; i < 20000; i++ {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := g.Decode(id); seen[id] || p.Node != want {
			t.Fatalf("%d repeated or node %d", id, p.Node)
		}
		seen[id] = true
	}
	id, _ := Next()
	p, _ := g.Decode(id)
	if d := p.UnixMs - time.Now().UnixMilli(); d < -2000 || d > 2000 {
		t.Fatalf("time off by %d ms", d)
	}
}

func TestBatch(t *testing.T) {
	node(t)
	if ids, err := Batch(0); err != nil || len(ids) != 0 {
		t.Fatal(ids, err)
	}
	ids, err := Batch(70000)
	if err != nil || len(ids) != 70000 {
		t.Fatal(len(ids), err)
	}
	seen := map[uint64]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%d twice", id)
		}
		seen[id] = true
	}
	if _, err := Batch(-1); !errors.Is(err, syscall.EINVAL) {
		t.Fatal(err)
	}
}

func TestDeviceLayoutAgainstLibuidgen(t *testing.T) {
	node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ids, _ := g.Batch(500)
	for i := 0; i < 500; i++ {
		id, _ := g.Next()
		ids = append(ids, id)
	}
	compare(t, g.Layout(), ids)
}

func TestGoroutines(t *testing.T) {
	node(t)
	var mu sync.Mutex
	var wg sync.WaitGroup
	seen := map[uint64]bool{}
	dup := 0
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				id, err := Next()
				mu.Lock()
				if err != nil || seen[id] {
					dup++
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if dup != 0 || len(seen) != 20000 {
		t.Fatalf("%d duplicates or errors, %d IDs", dup, len(seen))
	}
}

func TestObserve(t *testing.T) {
	node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a, err := g.Next() // a run is cached now
	if err != nil {
		t.Fatal(err)
	}
	in := g.Layout()
	low := in.NodeBits + in.SlotBits + in.SeqBits
	top := a | (1<<low - 1) // the last ID of a's tick
	if err := g.Observe(top); err != nil {
		t.Fatal(err)
	}
	if b, err := g.Next(); err != nil || b <= top {
		t.Fatalf("Next after Observe(%#x): %#x, %v", top, b, err)
	}
	if b, err := g.Batch(1); err != nil || b[0] <= top {
		t.Fatalf("Batch after Observe(%#x): %v, %v", top, b, err)
	}
	if err := g.Observe(1<<63 - 1); !errors.Is(err, syscall.EDOM) {
		t.Fatalf("far ahead: %v, want EDOM", err)
	}
	if err := g.Observe(1 << 63); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("bit 63: %v, want EINVAL", err)
	}
}

func TestRevokeStopsNext(t *testing.T) {
	want := node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.Next() // a run is cached now
	repo := os.Getenv("UIDGEN_REPO")
	if repo == "" {
		repo, _ = filepath.Abs("../..")
	}
	cli := filepath.Join(repo, "userlib/uidgen")
	if out, err := exec.Command(cli, "revoke-node").CombinedOutput(); err != nil {
		t.Fatalf("revoke-node: %v: %s", err, out)
	}
	_, err = g.Next()
	_, err2 := g.Batch(3)
	// The node ID again, through the CLI (the only way: no parameter).
	if out, err := exec.Command(cli, "set-node", strconv.Itoa(int(want)), "--new").CombinedOutput(); err != nil {
		t.Fatalf("set-node: %v: %s", err, out)
	}
	var e *Error
	if !errors.As(err, &e) || e.Errno != syscall.EADDRNOTAVAIL || !errors.Is(err2, syscall.EADDRNOTAVAIL) {
		t.Fatalf("after a revoke: %v, %v", err, err2)
	}
	if !strings.Contains(err.Error(), "uidgen set-node N --new") {
		t.Fatalf("no node, no hint: %v", err)
	}
	if id, err := g.Next(); err != nil {
		t.Fatal(err)
	} else if p, _ := g.Decode(id); p.Node != want {
		t.Fatalf("node %d", p.Node)
	}
}

// A handle over /dev/zero (no device needed): the binding reads 8 zero
// bytes as an ID, so what a closed handle would read is visible.
func zeroHandle(t *testing.T) *Uidgen {
	t.Helper()
	fd, err := syscall.Open("/dev/zero", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open /dev/zero: %v", err)
	}
	return &Uidgen{fd: fd}
}

// After Close: EBADF from Next, Batch, Info and Close itself, even when
// the fd number has been given to another file since (which the old
// binding went on reading from, and closed on a second Close).
func TestClosedHandleEBADF(t *testing.T) {
	g := zeroHandle(t)
	if id, err := g.Next(); err != nil || id != 0 {
		t.Fatalf("Next before Close: %d, %v; want 0, nil", id, err)
	}
	old := g.fd
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Most likely the same number: a file of 8 bytes 0x01.
	f, err := os.CreateTemp(t.TempDir(), "reuse")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{1}, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed fd %d, the new file has fd %d", old, f.Fd())
	if id, err := g.Next(); !errors.Is(err, syscall.EBADF) {
		t.Errorf("Next after Close: %#x, %v; want EBADF", id, err)
	}
	if ids, err := g.Batch(1); !errors.Is(err, syscall.EBADF) {
		t.Errorf("Batch after Close: %v, %v; want EBADF", ids, err)
	}
	if _, err := g.Info(); !errors.Is(err, syscall.EBADF) {
		t.Errorf("Info after Close: %v; want EBADF", err)
	}
	if err := g.Close(); !errors.Is(err, syscall.EBADF) {
		t.Errorf("second Close: %v; want EBADF", err)
	}
	// The other file is still open and unread.
	buf := make([]byte, 9)
	if n, err := f.Read(buf); n != 8 || err != nil {
		t.Errorf("the file with the reused number: read %d, %v; want 8 bytes still there", n, err)
	}
}

// A read of 0 bytes (end of file: not /dev/uid) is EIO, not a loop.
func TestReadEOFIsEIO(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	syscall.Close(p[1])
	g := &Uidgen{fd: p[0]}
	defer g.Close()
	done := make(chan error, 1)
	go func() { _, err := g.Batch(2); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, syscall.EIO) {
			t.Errorf("Batch at end of file: %v; want EIO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Batch at end of file: still looping after 10 s")
	}
}
