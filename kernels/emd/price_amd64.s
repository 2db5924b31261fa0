//go:build amd64 && !purego

#include "textflag.h"

// func belowChunk(row, d *float64, k, n int, thr float64) int
//
// Eight entries per step (two YMM registers): r = row - d, compared
// (less than, ordered) with thr broadcast; on a hit the group of four
// holding it is returned. n - k is a multiple of 4, so the 4-wide step
// runs at most once.
TEXT ·belowChunk(SB), NOSPLIT, $0-48
	MOVQ row+0(FP), SI
	MOVQ d+8(FP), DI
	MOVQ k+16(FP), CX
	MOVQ n+24(FP), DX
	VBROADCASTSD thr+32(FP), Y0

loop8:
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JGT  tail4
	VMOVUPD (SI)(CX*8), Y1
	VSUBPD  (DI)(CX*8), Y1, Y1
	VMOVUPD 32(SI)(CX*8), Y2
	VSUBPD  32(DI)(CX*8), Y2, Y2
	VCMPPD  $0x11, Y0, Y1, Y3
	VCMPPD  $0x11, Y0, Y2, Y4
	VORPD   Y3, Y4, Y5
	VMOVMSKPD Y5, BX
	TESTL   BX, BX
	JNZ     hit8
	MOVQ    AX, CX
	JMP     loop8

hit8:
	VMOVMSKPD Y3, BX
	TESTL   BX, BX
	JNZ     done
	ADDQ    $4, CX
	JMP     done

tail4:
	CMPQ CX, DX
	JGE  done
	VMOVUPD (SI)(CX*8), Y1
	VSUBPD  (DI)(CX*8), Y1, Y1
	VCMPPD  $0x11, Y0, Y1, Y3
	VMOVMSKPD Y3, BX
	TESTL   BX, BX
	JNZ     done
	ADDQ    $4, CX

done:
	VZEROUPPER
	MOVQ CX, ret+40(FP)
	RET
