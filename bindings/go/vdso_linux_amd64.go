// SPDX-License-Identifier: LGPL-2.1-or-later

package uidgen

// The cache's clock, CLOCK_BOOTTIME, read as libuidgen reads it: the
// kernel's vDSO function __vdso_clock_gettime, found in the vDSO's own
// symbol table, called directly, with no system call. The Go runtime reads
// only CLOCK_MONOTONIC and CLOCK_REALTIME through the vDSO, and its calls
// switch to the system stack and back; this one runs on the goroutine's
// stack, in an 8 KiB frame of its own (vdso_linux_amd64.s), which is safe
// because the goroutine cannot be preempted or its stack moved while it
// runs code that is not Go's (no safe point), and a signal is handled on
// the signal stack. If the vDSO or the symbol cannot be found, the clock
// is the clock_gettime system call, as before.

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

//go:noescape
func vdsoGettime(fn uintptr, clock uintptr, ts unsafe.Pointer) int64

// vdsoClock is __vdso_clock_gettime's address, or 0 (no vDSO function).
var vdsoClock = vdsoLookup()

// ptrAt is the address a as a pointer: memory the kernel mapped, which Go
// does not manage.
func ptrAt(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// vdsoLookup finds the [vdso] mapping in /proc/self/maps and the
// function's address in its ELF symbols; 0 if anything is missing.
func vdsoLookup() uintptr {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var lo, hi uint64
	for s := bufio.NewScanner(f); s.Scan(); {
		line := s.Text()
		if !strings.HasSuffix(line, "[vdso]") {
			continue
		}
		r := strings.SplitN(strings.Fields(line)[0], "-", 2)
		if len(r) != 2 {
			return 0
		}
		lo, err = strconv.ParseUint(r[0], 16, 64)
		if err == nil {
			hi, err = strconv.ParseUint(r[1], 16, 64)
		}
		if err != nil || hi <= lo {
			return 0
		}
		break
	}
	if lo == 0 {
		return 0
	}
	img := unsafe.Slice((*byte)(ptrAt(uintptr(lo))), hi-lo)
	e, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		return 0
	}
	var load uint64
	found := false
	for _, p := range e.Progs {
		if p.Type == elf.PT_LOAD {
			load, found = p.Vaddr-p.Off, true
			break
		}
	}
	syms, err := e.DynamicSymbols()
	if err != nil || !found {
		return 0
	}
	for _, s := range syms {
		if s.Name == "__vdso_clock_gettime" && elf.ST_TYPE(s.Info) == elf.STT_FUNC &&
			s.Section != elf.SHN_UNDEF && s.Value-load < hi-lo {
			return uintptr(lo + s.Value - load)
		}
	}
	return 0
}
