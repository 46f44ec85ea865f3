// SPDX-License-Identifier: LGPL-2.1-or-later

// The cache's guarantees, as libuidgen's (userlib/libuidgen.c): an observe
// by another process cuts the cached run; no ID is older than the bound;
// after a revoke has returned no cached ID is handed out, to any
// goroutine, and the fence alone stops a fresh run; the clock is the
// kernel's CLOCK_BOOTTIME. Go programs do not
// fork without exec (syscall.ForkExec execs at once), so there is no fork
// case here: the Python binding's tests have it.
package uidgen

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestMain: with UIDGEN_TEST_OBSERVE=ID, this binary is another process
// that observes ID and exits (TestObserveCutsCachedRuns).
func TestMain(m *testing.M) {
	if s := os.Getenv("UIDGEN_TEST_OBSERVE"); s != "" {
		id, err := strconv.ParseUint(s, 10, 64)
		if err == nil {
			err = Observe(id)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "observe:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func topOfTick(in Info, id uint64) uint64 {
	low := in.NodeBits + in.SlotBits + in.SeqBits
	return id | (1<<low - 1)
}

// Goroutines hold IDs of a cached run; another process observes the last ID
// of the highest tick they hold; every ID handed out after that is above it.
func TestObserveCutsCachedRuns(t *testing.T) {
	node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for round := 0; round < 3; round++ {
		var held uint64
		for i := 0; i < 40; i++ {
			id, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if id > held {
				held = id
			}
		}
		top := topOfTick(g.Layout(), held)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "UIDGEN_TEST_OBSERVE="+strconv.FormatUint(top, 10))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("observe %d in another process: %v: %s", top, err, out)
		}
		var wg sync.WaitGroup
		var bad atomic.Uint64
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 500; i++ {
					if id, err := g.Next(); err != nil || id <= top {
						bad.Store(id | 1<<63)
					}
				}
			}()
		}
		wg.Wait()
		if b := bad.Load(); b != 0 {
			t.Fatalf("round %d: after observe(%d): Next gave %d (or failed)", round, top, b&^(1<<63))
		}
	}
}

// A cached ID's tick ends at most staleTicks (1) tick before it is handed
// out: after pauses of 0 to 3 ticks, each ID's tick began less than 2
// ticks before the call did (the ID clock runs on CLOCK_BOOTTIME,
// anchored at the wall clock when the module was loaded; nothing steps
// the clock in this suite).
func TestNoIDOlderThanTheBound(t *testing.T) {
	node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	tick := time.Duration(g.Layout().TickNs)
	pauses := []time.Duration{0, 0, tick / 4, tick, 2 * tick, 3 * tick}
	for i := 0; i < 400; i++ {
		time.Sleep(pauses[i%len(pauses)])
		t0 := time.Now().UnixNano()
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		p, _ := g.Decode(id)
		if lag := t0 - p.UnixUs*1000; lag >= int64(2*tick) {
			t.Fatalf("ID %d handed out at %d: its tick began %d ns before", id, t0, lag)
		}
	}
}

func cli(t *testing.T) string {
	repo := os.Getenv("UIDGEN_REPO")
	if repo == "" {
		repo, _ = filepath.Abs("../..")
	}
	return filepath.Join(repo, "userlib/uidgen")
}

// Goroutines hold IDs of a cached run while the node ID is revoked; after
// the revoke has returned, every call from any of them fails with
// EADDRNOTAVAIL.
func TestRevokeStopsEveryCall(t *testing.T) {
	want := node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var cached, wg sync.WaitGroup
	revoked := make(chan struct{})
	var bad atomic.Int64
	for w := 0; w < 4; w++ {
		cached.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				g.Next()
			}
			cached.Done()
			<-revoked
			for i := 0; i < 50; i++ {
				if _, err := g.Next(); !errors.Is(err, syscall.EADDRNOTAVAIL) {
					bad.Add(1)
				}
			}
		}()
	}
	cached.Wait()
	out, err := exec.Command(cli(t), "revoke-node").CombinedOutput()
	close(revoked)
	wg.Wait()
	if out2, err2 := exec.Command(cli(t), "set-node", strconv.Itoa(int(want)), "--new").CombinedOutput(); err2 != nil {
		t.Fatalf("set-node: %v: %s", err2, out2)
	}
	if err != nil {
		t.Fatalf("revoke-node: %v: %s", err, out)
	}
	if bad.Load() != 0 {
		t.Fatalf("after the revoke: %d of 200 calls not EADDRNOTAVAIL", bad.Load())
	}
}

// The fence alone: the cached run is given a deadline that never comes
// (as under a long tick: in the guest a revoke takes longer than the 1 ms
// tick's bound, so the run would be stale anyway) and still has IDs; after
// a revoke (UIDGEN_IOC_REVOKE, forced, in this process) only the fence
// check can stop it: Next must fail with EADDRNOTAVAIL. Three times.
func TestRevokeFenceAlone(t *testing.T) {
	want := node(t)
	g, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	type revokeReq struct {
		Size, Flags, NodeID, reserved uint32
		Token                         uint64
	}
	const iocRevoke = iocType<<8 | 0x06
	for try := 0; try < 3; try++ {
		for i := 0; i < 3; i++ {
			if _, err := g.Next(); err != nil {
				t.Fatal(err)
			}
		}
		r := g.cur.Load()
		if r == nil || r.next.Load() >= r.end {
			t.Fatalf("try %d: no run with IDs left cached after 3 Next", try)
		}
		r.deadline = 1<<63 - 1
		req := revokeReq{Size: uint32(unsafe.Sizeof(revokeReq{})), Flags: 1, NodeID: nodeNone}
		err := ioctl(g.fd, iocRevoke, unsafe.Pointer(&req))
		id, nextErr := g.Next()
		if out, err2 := exec.Command(cli(t), "set-node", strconv.Itoa(int(want)), "--new").CombinedOutput(); err2 != nil {
			t.Fatalf("set-node: %v: %s", err2, out)
		}
		if err != nil {
			t.Fatalf("UIDGEN_IOC_REVOKE: %v", err)
		}
		if !errors.Is(nextErr, syscall.EADDRNOTAVAIL) {
			t.Fatalf("try %d: Next after the revoke: %d, %v; want EADDRNOTAVAIL", try, id, nextErr)
		}
	}
}

// boottime is the kernel's CLOCK_BOOTTIME, through the vDSO on linux/amd64:
// between two system call readings, on goroutines with deep stacks too.
func TestBoottimeIsTheKernels(t *testing.T) {
	if runtime.GOARCH == "amd64" && vdsoClock == 0 {
		t.Fatal("no __vdso_clock_gettime found: the cache would make a system call per ID")
	}
	sys := func() int64 {
		var ts syscall.Timespec
		syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0)
		return ts.Nano()
	}
	var wg sync.WaitGroup
	var bad atomic.Int64
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var deep func(n int) bool
			deep = func(n int) bool {
				if n > 0 {
					return deep(n - 1)
				}
				a := sys()
				b := boottime()
				c := sys()
				return a <= b && b <= c
			}
			for i := 0; i < 2000; i++ {
				if !deep((i * (w + 1)) % 64) {
					bad.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d readings outside the system call's", bad.Load())
	}
}
