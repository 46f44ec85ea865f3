// SPDX-License-Identifier: LGPL-2.1-or-later

// vdsoGettime: the kernel's __vdso_clock_gettime, called on the goroutine's
// own stack (vdso_linux_amd64.go says why that is safe and what it saves).

#include "textflag.h"
#include "funcdata.h"

// func vdsoGettime(fn uintptr, clock uintptr, ts unsafe.Pointer) int64
//
// An 8 KiB frame, so the prologue grows the goroutine's stack first; the
// call runs with the stack pointer near the top of that frame, so the
// vDSO's own frames and red zone lie inside it. BX (callee-saved in the
// System V ABI) keeps the Go stack pointer across the call.
TEXT ·vdsoGettime(SB), 0, $8192-32
	NO_LOCAL_POINTERS
	MOVQ	fn+0(FP), AX
	MOVQ	clock+8(FP), DI
	MOVQ	ts+16(FP), SI
	MOVQ	SP, BX
	ADDQ	$8128, SP
	ANDQ	$~15, SP
	CALL	AX
	MOVQ	BX, SP
	MOVQ	AX, ret+24(FP)
	RET
