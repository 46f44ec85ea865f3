// SPDX-License-Identifier: LGPL-2.1-or-later

// Package uidgen gets 64-bit, time-sortable, machine-unique IDs from the
// uidgen kernel module's /dev/uid, with the standard library only (syscall:
// read(2), ioctl(2) and mmap(2) with the structures of uapi/linux/uidgen.h,
// 1.3 sizes), and decodes them by the layout the device reports.
//
// Next hands out IDs from a run reserved with UIDGEN_IOC_RESERVE, as
// libuidgen's uidgen_next() does (never more than one tick stale, dropped as
// soon as the node ID is revoked, cut at an observed ID), with one atomic
// add and a vDSO clock read per ID, no system call (vdso_linux_amd64.go);
// Batch reads IDs from the kernel. Observe makes every ID this machine
// mints afterwards greater than one received (UIDGEN_IOC_OBSERVE: causal
// order). ToUUID and FromUUID are libuidgen's lossless, order-keeping
// UUIDv7 view (Documentation/uuid.rst). Device errors are *Error values
// wrapping the syscall.Errno: errors.Is(err, syscall.EADDRNOTAVAIL) says no
// node ID.
package uidgen

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Device is the default device path.
const Device = "/dev/uid"

const (
	idBits   = 63
	nodeNone = 0xffffffff
	batchMax = 65536
	iocType  = 0xB9
	iocInfo  = iocType<<8 | 0x02
	iocRes   = iocType<<8 | 0x03
	iocObs   = iocType<<8 | 0x07
	// CLOCK_BOOTTIME, which the kernel's expires_boot_ns is on.
	clockBoottime = 7
	firstRun      = 16
	staleTicks    = 1
)

// Info is struct uidgen_info (96 bytes): the layout in force, the node ID
// and its floor, grant, lease deadline and token; times in ns, the clock in
// the name, as in the uapi.
type Info struct {
	Size            uint32
	Flags           uint32
	NodeID          uint32 // 0xffffffff: none
	NodeState       uint32 // 0 none, 1 active
	TsBits          uint32
	NodeBits        uint32
	SlotBits        uint32
	SeqBits         uint32
	NrSlots         uint32
	reserved        uint32
	TickNs          uint64
	EpochUnixNs     uint64
	FloorUnixNs     uint64
	GrantUnixNs     uint64
	DeadlineBootNs  uint64
	Token           uint64
	HighWaterUnixNs uint64
}

type observe struct {
	Size, Flags uint32
	ID          uint64
}

type reserve struct {
	Size, Flags, Count, Fence uint32
	First, ExpiresBootNs      uint64
}

// Parts are an ID's fields; UnixMs as libuidgen's uidgen_decode() gives it,
// UnixUs the exact start of the tick.
type Parts struct {
	Tick   uint64
	UnixMs int64
	UnixUs int64
	Node   uint32
	Slot   uint32
	Seq    uint32
}

// Error is a failure of the device, or an ID or UUID that does not fit the
// layout (EINVAL, ERANGE). It unwraps to its syscall.Errno.
type Error struct {
	Op    string
	Errno syscall.Errno
}

func (e *Error) Error() string {
	// Each hint is the whole next step (as the CLI's and Python's):
	// the module loads with no node ID, and the CLI assigns it.
	hint := ""
	switch e.Errno {
	case syscall.ENOENT, syscall.ENODEV, syscall.ENXIO:
		hint = ": the uidgen kernel module is not loaded: as root, modprobe uidgen, " +
			"then uidgen set-node N --new for a node ID that has never issued an ID, " +
			"else uidgen state restore FILE with its state file (modprobe finds the module once " +
			"make install or a package put it in place; from the source tree, " +
			"insmod module/uidgen.ko, then uidgen set-node N --new)"
	case syscall.EACCES:
		hint = ": /dev/uid is restricted to a group (its udev rule, 60-uidgen.rules)"
	case syscall.EADDRNOTAVAIL:
		hint = ": no node ID is assigned: as root, uidgen state restore FILE, " +
			"or uidgen set-node N --new for a node ID that has never issued an ID"
	case syscall.EOVERFLOW:
		hint = ": the timestamp field is exhausted for this layout"
	case syscall.EDOM:
		hint = ": the ID is further ahead of this machine's clock than the module's " +
			"observe_ahead_ms: nothing was changed; check both machines' time synchronisation"
	}
	if e.Op == opUnmarshalID || e.Op == opMarshalID {
		hint = ": an ID in JSON is a string of decimal digits, at most 2^63 - 1, or a number " +
			"of at most 2^53 - 1 (JavaScript rounds larger ones): send IDs as strings"
	}
	return fmt.Sprintf("uidgen: %s: %s%s", e.Op, e.Errno.Error(), hint)
}

func (e *Error) Unwrap() error { return e.Errno }

func fail(op string, err error) error {
	var en syscall.Errno
	if errors.As(err, &en) {
		return &Error{Op: op, Errno: en}
	}
	return err
}

// Uidgen is a handle on /dev/uid. It is safe for concurrent use. After
// Close every method that uses the device fails with EBADF.
type Uidgen struct {
	// fdMu: read-held around each use of fd, held by Close, which sets
	// fd to -1, so a closed handle never reaches a file that was given
	// the same number since.
	fdMu   sync.RWMutex
	fd     int
	layout Info
	tickNs uint64
	maxRun uint32

	// Next's cache: cur, the run it hands out IDs from, is read with no
	// lock (one atomic add per ID); mu is held to refill it and by Close.
	cur atomic.Pointer[run]
	mu  sync.Mutex
	pg  *fencePage // nil: no cache (not /dev/uid, or closed)
}

// fencePage is the device's shared page (struct uidgen_page), mapped
// read-only. Its finalizer unmaps it once nothing refers to it: a Next
// still reading it while Close runs holds its run, and so the page.
type fencePage struct{ b []byte }

func (p *fencePage) fence() uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&p.b[0])))
}

// observed is struct uidgen_page.observed: the highest ID observed.
func (p *fencePage) observed() uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&p.b[8])))
}

// run is one run reserved with UIDGEN_IOC_RESERVE. Only next changes, by
// an atomic add: a call takes an ID first, then checks it, so an ID whose
// checks fail is dropped, never handed out, and never taken twice.
type run struct {
	next       atomic.Uint64
	start, end uint64
	deadline   int64 // CLOCK_BOOTTIME ns: stale from then on
	fence      uint32
	size       uint32 // how many were asked for
	pg         *fencePage
}

// take is the cache's fast path, libuidgen's four checks: the run is not
// spent, the fence has not moved (no revoke, no VM fork), the ID is above
// every observed one, and the run is not stale (CLOCK_BOOTTIME through the
// vDSO where it can be found: boottime). No lock, no system call.
func (r *run) take() (uint64, bool) {
	id := r.next.Add(1) - 1
	ok := id < r.end && r.pg.fence() == r.fence && id > r.pg.observed() && boottime() < r.deadline
	runtime.KeepAlive(r) // the page stays mapped until the checks are done
	return id, ok
}

// Open opens the device (Device if path is "").
func Open(path string) (*Uidgen, error) {
	if path == "" {
		path = Device
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fail("open "+path, err)
	}
	g := &Uidgen{fd: fd}
	if g.layout, err = g.Info(); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	g.tickNs = g.layout.TickNs
	g.maxRun = uint32(1) << g.layout.SeqBits / 4
	if g.maxRun == 0 {
		g.maxRun = 1
	}
	// Not /dev/uid (no fence page): Next reads one ID at a time.
	if page, err := syscall.Mmap(fd, 0, syscall.Getpagesize(), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
		g.pg = &fencePage{b: page}
		runtime.SetFinalizer(g.pg, func(p *fencePage) { syscall.Munmap(p.b) })
	}
	return g, nil
}

// Close releases the handle; it waits for calls in progress on it that
// use the file (a Next handing out a cached ID does not: the fence page is
// unmapped once the last such call is done, by the garbage collector).
// Closing it again fails with EBADF, as does every later use of the device.
func (g *Uidgen) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fdMu.Lock()
	defer g.fdMu.Unlock()
	if g.fd < 0 {
		return &Error{Op: "Close", Errno: syscall.EBADF}
	}
	g.cur.Store(nil)
	g.pg = nil
	fd := g.fd
	g.fd = -1
	if err := syscall.Close(fd); err != nil {
		return fail("close", err)
	}
	return nil
}

// useFd read-locks fdMu and returns the fd, or EBADF (unlocked) once the
// handle is closed. The caller unlocks with g.fdMu.RUnlock().
func (g *Uidgen) useFd(op string) (int, error) {
	g.fdMu.RLock()
	if g.fd < 0 {
		g.fdMu.RUnlock()
		return -1, &Error{Op: op, Errno: syscall.EBADF}
	}
	return g.fd, nil
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	for {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// Info is UIDGEN_IOC_INFO: the layout in force and the node ID.
func (g *Uidgen) Info() (Info, error) {
	in := Info{Size: uint32(unsafe.Sizeof(Info{}))}
	fd, err := g.useFd("UIDGEN_IOC_INFO")
	if err != nil {
		return Info{}, err
	}
	defer g.fdMu.RUnlock()
	if err := ioctl(fd, iocInfo, unsafe.Pointer(&in)); err != nil {
		return Info{}, fail("UIDGEN_IOC_INFO", err)
	}
	return in, nil
}

// Layout is the layout read when the handle was opened.
func (g *Uidgen) Layout() Info { return g.layout }

// boottime is CLOCK_BOOTTIME, which the kernel's expires_boot_ns is on:
// the vDSO's function where it was found (vdso_linux_amd64.go), else the
// system call. A clock that cannot be read reads 1<<63 - 1: stale.
func boottime() int64 {
	var ts syscall.Timespec
	if vdsoClock != 0 {
		if vdsoGettime(vdsoClock, clockBoottime, unsafe.Pointer(&ts)) == 0 {
			return ts.Nano()
		}
		return 1<<63 - 1
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 1<<63 - 1
	}
	return ts.Nano()
}

// Observe is UIDGEN_IOC_OBSERVE: every ID this machine mints after it
// returns (any process, any cached run) is greater than id, an ID of this
// layout received from anywhere. EDOM if id is more than the module's
// observe_ahead_ms ahead of this machine's clock (nothing changed).
func (g *Uidgen) Observe(id uint64) error {
	o := observe{Size: uint32(unsafe.Sizeof(observe{})), ID: id}
	fd, err := g.useFd("UIDGEN_IOC_OBSERVE")
	if err != nil {
		return err
	}
	defer g.fdMu.RUnlock()
	if err := ioctl(fd, iocObs, unsafe.Pointer(&o)); err != nil {
		return fail("UIDGEN_IOC_OBSERVE", err)
	}
	return nil
}

// Next returns one fresh ID, from the handle's reserved run when it can.
func (g *Uidgen) Next() (uint64, error) {
	if r := g.cur.Load(); r != nil {
		if id, ok := r.take(); ok {
			return id, nil
		}
	}
	return g.nextSlow()
}

func (g *Uidgen) nextSlow() (uint64, error) {
	g.mu.Lock()
	if g.pg == nil {
		// No cache (or closed): read() sees to EBADF.
		g.mu.Unlock()
		var id [1]uint64
		if err := g.read(id[:]); err != nil {
			return 0, err
		}
		return id[0], nil
	}
	defer g.mu.Unlock()
	// Another call may have refilled while this one waited.
	if r := g.cur.Load(); r != nil {
		if id, ok := r.take(); ok {
			return id, nil
		}
	}
	return g.refill()
}

// refill reserves a new run, with mu held: used up in time, twice as many
// as the last; stale or fenced off, what of it was used.
func (g *Uidgen) refill() (uint64, error) {
	size := uint32(firstRun)
	if prev := g.cur.Load(); prev != nil && prev.size != 0 {
		used := prev.next.Load()
		if used > prev.end {
			used = prev.end
		}
		if used >= prev.end {
			size = prev.size * 2
		} else if size = uint32(used - prev.start); size == 0 {
			size = 1
		}
	}
	if size > g.maxRun {
		size = g.maxRun
	}
	g.cur.Store(nil)
	r := reserve{Size: uint32(unsafe.Sizeof(reserve{})), Count: size}
	fd, err := g.useFd("UIDGEN_IOC_RESERVE")
	if err != nil {
		return 0, err
	}
	err = ioctl(fd, iocRes, unsafe.Pointer(&r))
	g.fdMu.RUnlock()
	if err != nil {
		return 0, fail("UIDGEN_IOC_RESERVE", err)
	}
	n := &run{start: r.First, end: r.First + uint64(r.Count), fence: r.Fence, size: size, pg: g.pg,
		deadline: int64(r.ExpiresBootNs + staleTicks*g.tickNs)}
	n.next.Store(r.First + 1)
	g.cur.Store(n)
	return r.First, nil
}

func (g *Uidgen) read(ids []uint64) error {
	fd, err := g.useFd("read " + Device)
	if err != nil {
		return err
	}
	defer g.fdMu.RUnlock()
	done := 0
	for done < len(ids) {
		chunk := ids[done:]
		if len(chunk) > batchMax {
			chunk = chunk[:batchMax]
		}
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&chunk[0])), 8*len(chunk))
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fail("read "+Device, err)
		}
		// The device returns whole IDs, never end of file: anything
		// else is not /dev/uid.
		if n <= 0 || n%8 != 0 {
			return &Error{Op: "read " + Device, Errno: syscall.EIO}
		}
		done += n / 8
	}
	return nil
}

// Batch returns n fresh IDs from the kernel.
func (g *Uidgen) Batch(n int) ([]uint64, error) {
	if n < 0 {
		return nil, &Error{Op: "Batch", Errno: syscall.EINVAL}
	}
	ids := make([]uint64, n)
	if n == 0 {
		return ids, nil
	}
	if err := g.read(ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// Decode splits id by the handle's layout.
func (g *Uidgen) Decode(id uint64) (Parts, error) { return Decode(g.layout, id) }

// ToUUID is the UUIDv7 of id by the handle's layout.
func (g *Uidgen) ToUUID(id uint64) ([16]byte, error) { return ToUUID(g.layout, id, false) }

// FromUUID is the ID of a UUID from ToUUID, by the handle's layout.
func (g *Uidgen) FromUUID(u [16]byte) (uint64, error) { return FromUUID(g.layout, u) }

var (
	defOnce sync.Once
	def     *Uidgen
	defErr  error
)

func handle() (*Uidgen, error) {
	defOnce.Do(func() { def, defErr = Open("") })
	return def, defErr
}

// Next returns one fresh ID from /dev/uid (a package-wide handle).
func Next() (uint64, error) {
	g, err := handle()
	if err != nil {
		return 0, err
	}
	return g.Next()
}

// Batch returns n fresh IDs from /dev/uid.
func Batch(n int) ([]uint64, error) {
	g, err := handle()
	if err != nil {
		return nil, err
	}
	return g.Batch(n)
}

// Observe makes every ID /dev/uid mints from now on greater than id.
func Observe(id uint64) error {
	g, err := handle()
	if err != nil {
		return err
	}
	return g.Observe(id)
}

// GetInfo is the layout in force and the node ID of /dev/uid.
func GetInfo() (Info, error) {
	g, err := handle()
	if err != nil {
		return Info{}, err
	}
	return g.Info()
}

// DefaultInfo is the layout of a module loaded with no layout parameters.
func DefaultInfo() Info {
	return Info{Size: uint32(unsafe.Sizeof(Info{})), NodeID: nodeNone, TsBits: 41, NodeBits: 5,
		SlotBits: 5, SeqBits: 12, NrSlots: 32, TickNs: 1000000, EpochUnixNs: 1767225600000000000}
}

func checkLayout(in Info) error {
	if in.TsBits+in.NodeBits+in.SlotBits+in.SeqBits != idBits || in.TsBits == 0 ||
		in.TickNs == 0 || in.SeqBits >= 32 || in.SlotBits >= 32 || in.NodeBits >= 32 {
		return &Error{Op: "layout", Errno: syscall.EINVAL}
	}
	return nil
}

// Decode splits id by the layout in.
func Decode(in Info, id uint64) (Parts, error) {
	if err := checkLayout(in); err != nil {
		return Parts{}, err
	}
	if id>>idBits != 0 {
		return Parts{}, &Error{Op: "decode", Errno: syscall.ERANGE}
	}
	low := idBits - in.TsBits
	p := Parts{Tick: id >> low,
		Node: uint32(id>>(in.SlotBits+in.SeqBits)) & (1<<in.NodeBits - 1),
		Slot: uint32(id>>in.SeqBits) & (1<<in.SlotBits - 1),
		Seq:  uint32(id) & (1<<in.SeqBits - 1)}
	us, ok := startUs(in, p.Tick)
	if !ok || us > 1<<63-1 {
		return Parts{}, &Error{Op: "decode", Errno: syscall.ERANGE}
	}
	p.UnixUs = int64(us)
	p.UnixMs = int64(us / 1000)
	return p, nil
}

// The tick start in Unix us (rounded down), and whether it fits 64 bits.
func startUs(in Info, tick uint64) (uint64, bool) {
	hi, lo := bits.Mul64(tick, in.TickNs)
	lo, c := bits.Add64(lo, in.EpochUnixNs, 0)
	hi += c
	if hi >= 1000 {
		return 0, false
	}
	us, _ := bits.Div64(hi, lo, 1000)
	return us, true
}

// The UUID mapping is exact in microseconds: so must the tick and epoch be.
func wholeUs(in Info) bool {
	return in.TickNs%1000 == 0 && in.EpochUnixNs%1000 == 0
}

// ToUUID is the lossless, order-keeping UUIDv7 (v8 with v8 true) of id.
func ToUUID(in Info, id uint64, v8 bool) ([16]byte, error) {
	var u [16]byte
	p, err := Decode(in, id)
	if err != nil {
		return u, err
	}
	if !wholeUs(in) {
		return u, &Error{Op: "uuid", Errno: syscall.EINVAL}
	}
	us := uint64(p.UnixUs)
	if (us/1000)>>48 != 0 {
		return u, &Error{Op: "uuid", Errno: syscall.ERANGE}
	}
	ver := uint64(7)
	if v8 {
		ver = 8
	}
	low := idBits - in.TsBits
	hi := (us/1000)<<16 | ver<<12 | us%1000*4096/1000
	lo := uint64(2)<<62 | (id&(1<<low-1))<<(62-low)
	for i := 0; i < 8; i++ {
		u[i] = byte(hi >> (56 - 8*i))
		u[8+i] = byte(lo >> (56 - 8*i))
	}
	return u, nil
}

// FromUUID is the ID of a UUID from ToUUID (v7 or v8); EINVAL or ERANGE for
// a UUID no ID of the layout maps to.
func FromUUID(in Info, u [16]byte) (uint64, error) {
	if err := checkLayout(in); err != nil {
		return 0, err
	}
	if !wholeUs(in) {
		return 0, &Error{Op: "uuid", Errno: syscall.EINVAL}
	}
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(u[i])
		lo = lo<<8 | uint64(u[8+i])
	}
	bad := &Error{Op: "uuid", Errno: syscall.EINVAL}
	if v := hi >> 12 & 0xf; (v != 7 && v != 8) || lo>>62 != 2 {
		return 0, bad
	}
	frac := hi & 0xfff
	sub := (frac*1000 + 4095) / 4096
	if sub >= 1000 || sub*4096/1000 != frac {
		return 0, bad
	}
	us := (hi>>16)*1000 + sub
	e, tickUs := in.EpochUnixNs/1000, in.TickNs/1000
	if us < e {
		return 0, &Error{Op: "uuid", Errno: syscall.ERANGE}
	}
	if (us-e)%tickUs != 0 {
		return 0, bad
	}
	tick := (us - e) / tickUs
	if tick>>in.TsBits != 0 {
		return 0, &Error{Op: "uuid", Errno: syscall.ERANGE}
	}
	low := idBits - in.TsBits
	rest := lo & (1<<62 - 1)
	if rest&(1<<(62-low)-1) != 0 {
		return 0, bad
	}
	return tick<<low | rest>>(62-low), nil
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// FormatUUID writes u as 8-4-4-4-12 lowercase hex.
func FormatUUID(u [16]byte) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&15])
	}
	return string(b)
}

// FormatULID writes u as a ULID: 26 Crockford base32 digits.
func FormatULID(u [16]byte) string {
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(u[i])
		lo = lo<<8 | uint64(u[8+i])
	}
	b := make([]byte, 26)
	for i := 0; i < 26; i++ {
		s := uint(5 * (25 - i))
		var d uint64
		switch {
		case s >= 64:
			d = hi >> (s - 64)
		case s > 59:
			d = lo>>s | hi<<(64-s)
		default:
			d = lo >> s
		}
		b[i] = crockford[d&31]
	}
	return string(b)
}

// ParseUUID reads a UUID (36 characters, or 32 hex digits) or a ULID (26).
func ParseUUID(s string) ([16]byte, error) {
	var u [16]byte
	bad := &Error{Op: "parse " + s, Errno: syscall.EINVAL}
	switch len(s) {
	case 36, 32:
		n := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if len(s) == 36 && (i == 8 || i == 13 || i == 18 || i == 23) {
				if c != '-' {
					return u, bad
				}
				continue
			}
			var d byte
			switch {
			case c >= '0' && c <= '9':
				d = c - '0'
			case c >= 'a' && c <= 'f':
				d = c - 'a' + 10
			case c >= 'A' && c <= 'F':
				d = c - 'A' + 10
			default:
				return u, bad
			}
			if n%2 == 0 {
				u[n/2] = d << 4
			} else {
				u[n/2] |= d
			}
			n++
		}
		return u, nil
	case 26:
		var hi, lo uint64
		for i := 0; i < 26; i++ {
			c := s[i]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			switch c {
			case 'O':
				c = '0'
			case 'I', 'L':
				c = '1'
			}
			d := -1
			for j := 0; j < 32; j++ {
				if crockford[j] == c {
					d = j
				}
			}
			if d < 0 {
				return u, bad
			}
			if i == 0 && d > 7 {
				return u, &Error{Op: "parse " + s, Errno: syscall.ERANGE}
			}
			hi = hi<<5 | lo>>59
			lo = lo<<5 | uint64(d)
		}
		for i := 0; i < 8; i++ {
			u[i] = byte(hi >> (56 - 8*i))
			u[8+i] = byte(lo >> (56 - 8*i))
		}
		return u, nil
	}
	return u, bad
}
