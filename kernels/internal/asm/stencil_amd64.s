//go:build !purego

#include "textflag.h"
#include "avx_amd64.h"

// FOLD_ARGS loads the arguments of stencilFold4x8AVX and
// stencilFold4x12AVX: out in DI with its row stride in bytes in R12, u in
// SI with the distance between the four u rows in R13 (3 times it in
// R14), the d counter nd in R9, c in R8, the table pointer for d = 0 and
// cy = 0 (&t[c-1]) in DX, ts in bytes in R10 and the padding after each
// row of u, in bytes, in R15.
#define FOLD_ARGS \
	MOVQ out_base+0(FP), DI; \
	MOVQ outStride+24(FP), R12; \
	SHLQ $3, R12; \
	MOVQ u_base+32(FP), SI; \
	MOVQ ustride+56(FP), R13; \
	SHLQ $3, R13; \
	LEAQ (R13)(R13*2), R14; \
	MOVQ nd+64(FP), R9; \
	MOVQ c+72(FP), R8; \
	MOVQ t_base+80(FP), DX; \
	LEAQ -8(DX)(R8*8), DX; \
	MOVQ ts+104(FP), R10; \
	SHLQ $3, R10; \
	MOVQ upad+112(FP), R15; \
	SHLQ $3, R15

// func stencilFold4x8AVX(out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int)
//
// Row-folded variant: the four output rows share the table row of each
// row distance d, and the inputs arrive pre-folded, u_i[d, cy] =
// v[rx_i-d, cy] + v[rx_i+d, cy], so every step is two table loads reused by
// four rows, four broadcasts and eight independent FMAs.
TEXT ·stencilFold4x8AVX(SB), NOSPLIT, $0-120
	FOLD_ARGS

	ZERO8

dloop:
	MOVQ DX, BX
	MOVQ R8, CX

cloop:
	VMOVUPD      (BX), Y8
	VMOVUPD      32(BX), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD (SI)(R13*1), Y11
	VBROADCASTSD (SI)(R13*2), Y12
	VBROADCASTSD (SI)(R14*1), Y13
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         $8, SI
	SUBQ         $8, BX
	DECQ         CX
	JNZ          cloop

	ADDQ R10, DX
	ADDQ R15, SI
	DECQ R9
	JNZ  dloop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    R12, DI
	VMOVUPD Y2, (DI)
	VMOVUPD Y3, 32(DI)
	ADDQ    R12, DI
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ    R12, DI
	VMOVUPD Y6, (DI)
	VMOVUPD Y7, 32(DI)
	VZEROUPPER
	RET

// func foldRowAVX(u, v []float64, cq, nd int)
//
// The row folds of one output row, on rows of cq entries (cq a multiple of
// 4): with center = v[(nd-1)*cq:] (the middle one of 2nd-1 rows),
// u[0:cq] = center[0:cq] and, for 1 <= d < nd, u[d*cq:(d+1)*cq] =
// center[-d*cq:] + center[d*cq:].
TEXT ·foldRowAVX(SB), NOSPLIT, $0-64
	MOVQ u_base+0(FP), DI
	MOVQ v_base+24(FP), SI
	MOVQ cq+48(FP), R8
	MOVQ nd+56(FP), R9
	SHLQ $3, R8             // row length in bytes, a multiple of 32
	MOVQ R9, R11
	DECQ R11
	IMULQ R8, R11
	ADDQ R11, SI            // the centre row; row rx-d below
	XORQ AX, AX
fcopy:
	VMOVUPD (SI)(AX*1), Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R8
	JB      fcopy
	DECQ    R9
	JZ      fdone
	MOVQ    SI, DX          // row rx+d
	MOVQ    R8, R10
	ANDQ    $32, R10        // 32 when the row has an odd number of vectors
fdloop:
	ADDQ R8, DI
	SUBQ R8, SI
	ADDQ R8, DX
	XORQ AX, AX
	TESTQ R10, R10
	JZ    f2loop
	// Odd vector count: one vector first, then pairs (two independent
	// load-add-store chains per step, indexed so that one counter moves).
	VMOVUPD (SI), Y0
	VADDPD  (DX), Y0, Y0
	VMOVUPD Y0, (DI)
	MOVQ    $32, AX
	CMPQ    AX, R8
	JAE     fnext
f2loop:
	VMOVUPD (SI)(AX*1), Y0
	VMOVUPD 32(SI)(AX*1), Y1
	VADDPD  (DX)(AX*1), Y0, Y0
	VADDPD  32(DX)(AX*1), Y1, Y1
	VMOVUPD Y0, (DI)(AX*1)
	VMOVUPD Y1, 32(DI)(AX*1)
	ADDQ    $64, AX
	CMPQ    AX, R8
	JB      f2loop
fnext:
	DECQ R9
	JNZ  fdloop
fdone:
	VZEROUPPER
	RET

// func stencilFold4x12AVX(out []float64, outStride int, u []float64, ustride, nd, c int, t []float64, ts, upad int)
//
// stencilFold4x8AVX for 12 columns: twelve accumulators leave the FMA units
// more independent chains than their latency needs.
TEXT ·stencilFold4x12AVX(SB), NOSPLIT, $0-120
	FOLD_ARGS

	ZERO8
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

dloop12:
	MOVQ DX, BX
	MOVQ R8, CX

cloop12:
	VMOVUPD      (BX), Y12
	VMOVUPD      32(BX), Y13
	VMOVUPD      64(BX), Y14
	VBROADCASTSD (SI), Y15
	VFMADD231PD  Y12, Y15, Y0
	VFMADD231PD  Y13, Y15, Y1
	VFMADD231PD  Y14, Y15, Y2
	VBROADCASTSD (SI)(R13*1), Y15
	VFMADD231PD  Y12, Y15, Y3
	VFMADD231PD  Y13, Y15, Y4
	VFMADD231PD  Y14, Y15, Y5
	VBROADCASTSD (SI)(R13*2), Y15
	VFMADD231PD  Y12, Y15, Y6
	VFMADD231PD  Y13, Y15, Y7
	VFMADD231PD  Y14, Y15, Y8
	VBROADCASTSD (SI)(R14*1), Y15
	VFMADD231PD  Y12, Y15, Y9
	VFMADD231PD  Y13, Y15, Y10
	VFMADD231PD  Y14, Y15, Y11
	ADDQ         $8, SI
	SUBQ         $8, BX
	DECQ         CX
	JNZ          cloop12

	ADDQ R10, DX
	ADDQ R15, SI
	DECQ R9
	JNZ  dloop12

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	ADDQ    R12, DI
	VMOVUPD Y3, (DI)
	VMOVUPD Y4, 32(DI)
	VMOVUPD Y5, 64(DI)
	ADDQ    R12, DI
	VMOVUPD Y6, (DI)
	VMOVUPD Y7, 32(DI)
	VMOVUPD Y8, 64(DI)
	ADDQ    R12, DI
	VMOVUPD Y9, (DI)
	VMOVUPD Y10, 32(DI)
	VMOVUPD Y11, 64(DI)
	VZEROUPPER
	RET
