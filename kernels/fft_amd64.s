//go:build amd64 && !purego

#include "textflag.h"

// func butterflyDIF4(ar, ai, br, bi *float64, n int, wr, wi float64)
//
// For j < n (a multiple of 4): with x = (ar, ai)[j], y = (br, bi)[j],
// (ar, ai)[j] = x + y and (br, bi)[j] = (x - y) w.
TEXT ·butterflyDIF4(SB), NOSPLIT, $0-56
	MOVQ         ar+0(FP), DI
	MOVQ         ai+8(FP), SI
	MOVQ         br+16(FP), R8
	MOVQ         bi+24(FP), R9
	MOVQ         n+32(FP), CX
	VBROADCASTSD wr+40(FP), Y14
	VBROADCASTSD wi+48(FP), Y15
	SHLQ         $3, CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-64, DX        // bytes in whole pairs of vectors
	JZ           dif_tail

dif_loop8:
	VMOVUPD     (DI)(AX*1), Y0
	VMOVUPD     (SI)(AX*1), Y1
	VMOVUPD     (R8)(AX*1), Y2
	VMOVUPD     (R9)(AX*1), Y3
	VMOVUPD     32(DI)(AX*1), Y10
	VMOVUPD     32(SI)(AX*1), Y11
	VMOVUPD     32(R8)(AX*1), Y12
	VMOVUPD     32(R9)(AX*1), Y13
	VADDPD      Y2, Y0, Y4
	VADDPD      Y3, Y1, Y5
	VSUBPD      Y2, Y0, Y6       // dr
	VSUBPD      Y3, Y1, Y7       // di
	VMOVUPD     Y4, (DI)(AX*1)
	VMOVUPD     Y5, (SI)(AX*1)
	VADDPD      Y12, Y10, Y4
	VADDPD      Y13, Y11, Y5
	VSUBPD      Y12, Y10, Y2     // dr'
	VSUBPD      Y13, Y11, Y3     // di'
	VMOVUPD     Y4, 32(DI)(AX*1)
	VMOVUPD     Y5, 32(SI)(AX*1)
	VMULPD      Y7, Y15, Y8      // di wi
	VFMSUB231PD Y6, Y14, Y8      // dr wr - di wi
	VMULPD      Y7, Y14, Y9      // di wr
	VFMADD231PD Y6, Y15, Y9      // dr wi + di wr
	VMULPD      Y3, Y15, Y10
	VFMSUB231PD Y2, Y14, Y10
	VMULPD      Y3, Y14, Y11
	VFMADD231PD Y2, Y15, Y11
	VMOVUPD     Y8, (R8)(AX*1)
	VMOVUPD     Y9, (R9)(AX*1)
	VMOVUPD     Y10, 32(R8)(AX*1)
	VMOVUPD     Y11, 32(R9)(AX*1)
	ADDQ        $64, AX
	CMPQ        AX, DX
	JB          dif_loop8

dif_tail:
	CMPQ        AX, CX
	JAE         dif_done
	VMOVUPD     (DI)(AX*1), Y0
	VMOVUPD     (SI)(AX*1), Y1
	VMOVUPD     (R8)(AX*1), Y2
	VMOVUPD     (R9)(AX*1), Y3
	VADDPD      Y2, Y0, Y4
	VADDPD      Y3, Y1, Y5
	VSUBPD      Y2, Y0, Y6
	VSUBPD      Y3, Y1, Y7
	VMOVUPD     Y4, (DI)(AX*1)
	VMOVUPD     Y5, (SI)(AX*1)
	VMULPD      Y7, Y15, Y8
	VFMSUB231PD Y6, Y14, Y8
	VMULPD      Y7, Y14, Y9
	VFMADD231PD Y6, Y15, Y9
	VMOVUPD     Y8, (R8)(AX*1)
	VMOVUPD     Y9, (R9)(AX*1)

dif_done:
	VZEROUPPER
	RET

// func butterflyDIT4(ar, ai, br, bi *float64, n int, wr, wi float64)
//
// For j < n (a multiple of 4): with x = (ar, ai)[j], t = conj(w) (br, bi)[j],
// (ar, ai)[j] = x + t and (br, bi)[j] = x - t.
TEXT ·butterflyDIT4(SB), NOSPLIT, $0-56
	MOVQ         ar+0(FP), DI
	MOVQ         ai+8(FP), SI
	MOVQ         br+16(FP), R8
	MOVQ         bi+24(FP), R9
	MOVQ         n+32(FP), CX
	VBROADCASTSD wr+40(FP), Y14
	VBROADCASTSD wi+48(FP), Y15
	SHLQ         $3, CX
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-64, DX
	JZ           dit_tail

dit_loop8:
	VMOVUPD     (R8)(AX*1), Y2
	VMOVUPD     (R9)(AX*1), Y3
	VMOVUPD     32(R8)(AX*1), Y12
	VMOVUPD     32(R9)(AX*1), Y13
	VMULPD      Y3, Y15, Y8      // yi wi
	VFMADD231PD Y2, Y14, Y8      // tr = yr wr + yi wi
	VMULPD      Y2, Y15, Y9      // yr wi
	VFMSUB231PD Y3, Y14, Y9      // ti = yi wr - yr wi
	VMULPD      Y13, Y15, Y10
	VFMADD231PD Y12, Y14, Y10
	VMULPD      Y12, Y15, Y11
	VFMSUB231PD Y13, Y14, Y11
	VMOVUPD     (DI)(AX*1), Y0
	VMOVUPD     (SI)(AX*1), Y1
	VADDPD      Y8, Y0, Y4
	VADDPD      Y9, Y1, Y5
	VSUBPD      Y8, Y0, Y6
	VSUBPD      Y9, Y1, Y7
	VMOVUPD     Y4, (DI)(AX*1)
	VMOVUPD     Y5, (SI)(AX*1)
	VMOVUPD     Y6, (R8)(AX*1)
	VMOVUPD     Y7, (R9)(AX*1)
	VMOVUPD     32(DI)(AX*1), Y0
	VMOVUPD     32(SI)(AX*1), Y1
	VADDPD      Y10, Y0, Y4
	VADDPD      Y11, Y1, Y5
	VSUBPD      Y10, Y0, Y6
	VSUBPD      Y11, Y1, Y7
	VMOVUPD     Y4, 32(DI)(AX*1)
	VMOVUPD     Y5, 32(SI)(AX*1)
	VMOVUPD     Y6, 32(R8)(AX*1)
	VMOVUPD     Y7, 32(R9)(AX*1)
	ADDQ        $64, AX
	CMPQ        AX, DX
	JB          dit_loop8

dit_tail:
	CMPQ        AX, CX
	JAE         dit_done
	VMOVUPD     (R8)(AX*1), Y2
	VMOVUPD     (R9)(AX*1), Y3
	VMULPD      Y3, Y15, Y8
	VFMADD231PD Y2, Y14, Y8
	VMULPD      Y2, Y15, Y9
	VFMSUB231PD Y3, Y14, Y9
	VMOVUPD     (DI)(AX*1), Y0
	VMOVUPD     (SI)(AX*1), Y1
	VADDPD      Y8, Y0, Y4
	VADDPD      Y9, Y1, Y5
	VSUBPD      Y8, Y0, Y6
	VSUBPD      Y9, Y1, Y7
	VMOVUPD     Y4, (DI)(AX*1)
	VMOVUPD     Y5, (SI)(AX*1)
	VMOVUPD     Y6, (R8)(AX*1)
	VMOVUPD     Y7, (R9)(AX*1)

dit_done:
	VZEROUPPER
	RET

// func firSym8(acc, f *float64, n int, taps *float64, ntaps int)
//
// For j < n (a multiple of 8): acc[j] += taps[0] f[j] +
// sum_{1 <= e < ntaps} taps[e] (f[j+e] + f[j-e]); f must be readable from
// index -(ntaps-1) to n+ntaps-2.
TEXT ·firSym8(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ f+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ taps+24(FP), DX
	MOVQ ntaps+32(FP), R8
	SHLQ $3, CX
	XORQ AX, AX              // byte offset of j

fir_outer:
	CMPQ         AX, CX
	JAE          fir_done
	VMOVUPD      (DI)(AX*1), Y0
	VMOVUPD      32(DI)(AX*1), Y1
	VBROADCASTSD (DX), Y15
	VFMADD231PD  (SI)(AX*1), Y15, Y0
	VFMADD231PD  32(SI)(AX*1), Y15, Y1
	LEAQ         (SI)(AX*1), R9   // &f[j]
	MOVQ         R9, R10          // &f[j] (moves down)
	MOVQ         R9, R11          // &f[j] (moves up)
	MOVQ         DX, R12          // &taps[e]
	MOVQ         R8, R13
	DECQ         R13              // taps left
	JZ           fir_store

fir_inner:
	ADDQ         $8, R11
	SUBQ         $8, R10
	ADDQ         $8, R12
	VBROADCASTSD (R12), Y15
	VMOVUPD      (R11), Y2
	VMOVUPD      32(R11), Y3
	VADDPD       (R10), Y2, Y2
	VADDPD       32(R10), Y3, Y3
	VFMADD231PD  Y2, Y15, Y0
	VFMADD231PD  Y3, Y15, Y1
	DECQ         R13
	JNZ          fir_inner

fir_store:
	VMOVUPD Y0, (DI)(AX*1)
	VMOVUPD Y1, 32(DI)(AX*1)
	ADDQ    $64, AX
	JMP     fir_outer

fir_done:
	VZEROUPPER
	RET

// func radix4DIF(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i *float64, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)
//
// Two decimation-in-frequency stages fused: rows x0 = row i, x1 = row
// i+h/2, x2 = row i+h, x3 = row i+3h/2 of a stage of half-width h and the
// next. The same operations as butterflyDIF4 on (x0, x2) with wA, on
// (x1, x3) with wB, then on (x0, x1) and (x2, x3) with wC, in registers:
// the results are bit for bit those of the two stages.
TEXT ·radix4DIF(SB), NOSPLIT, $0-120
	MOVQ         x0r+0(FP), AX
	MOVQ         x0i+8(FP), BX
	MOVQ         x1r+16(FP), CX
	MOVQ         x1i+24(FP), DX
	MOVQ         x2r+32(FP), SI
	MOVQ         x2i+40(FP), DI
	MOVQ         x3r+48(FP), R8
	MOVQ         x3i+56(FP), R9
	MOVQ         n+64(FP), R10
	VBROADCASTSD wAr+72(FP), Y10
	VBROADCASTSD wAi+80(FP), Y11
	VBROADCASTSD wBr+88(FP), Y12
	VBROADCASTSD wBi+96(FP), Y13
	VBROADCASTSD wCr+104(FP), Y14
	VBROADCASTSD wCi+112(FP), Y15
	SHLQ         $3, R10
	XORQ         R11, R11

r4dif_loop:
	CMPQ        R11, R10
	JAE         r4dif_done
	VMOVUPD     (AX)(R11*1), Y0
	VMOVUPD     (BX)(R11*1), Y1
	VMOVUPD     (CX)(R11*1), Y4
	VMOVUPD     (DX)(R11*1), Y5
	VMOVUPD     (SI)(R11*1), Y2
	VMOVUPD     (DI)(R11*1), Y3
	VMOVUPD     (R8)(R11*1), Y6
	VMOVUPD     (R9)(R11*1), Y7
	// (x0, x2) with wA: u0 = x0 + x2, u2 = (x0 - x2) wA
	VADDPD      Y2, Y0, Y8
	VADDPD      Y3, Y1, Y9
	VSUBPD      Y2, Y0, Y0
	VSUBPD      Y3, Y1, Y1
	VMULPD      Y1, Y11, Y2
	VFMSUB231PD Y0, Y10, Y2
	VMULPD      Y1, Y10, Y3
	VFMADD231PD Y0, Y11, Y3
	// (x1, x3) with wB: u1 = x1 + x3 (Y0, Y1), u3 = (x1 - x3) wB (Y6, Y7)
	VADDPD      Y6, Y4, Y0
	VADDPD      Y7, Y5, Y1
	VSUBPD      Y6, Y4, Y4
	VSUBPD      Y7, Y5, Y5
	VMULPD      Y5, Y13, Y6
	VFMSUB231PD Y4, Y12, Y6
	VMULPD      Y5, Y12, Y7
	VFMADD231PD Y4, Y13, Y7
	// (u0, u1) with wC
	VADDPD      Y0, Y8, Y4
	VADDPD      Y1, Y9, Y5
	VMOVUPD     Y4, (AX)(R11*1)
	VMOVUPD     Y5, (BX)(R11*1)
	VSUBPD      Y0, Y8, Y8
	VSUBPD      Y1, Y9, Y9
	VMULPD      Y9, Y15, Y0
	VFMSUB231PD Y8, Y14, Y0
	VMULPD      Y9, Y14, Y1
	VFMADD231PD Y8, Y15, Y1
	VMOVUPD     Y0, (CX)(R11*1)
	VMOVUPD     Y1, (DX)(R11*1)
	// (u2, u3) with wC
	VADDPD      Y6, Y2, Y4
	VADDPD      Y7, Y3, Y5
	VMOVUPD     Y4, (SI)(R11*1)
	VMOVUPD     Y5, (DI)(R11*1)
	VSUBPD      Y6, Y2, Y2
	VSUBPD      Y7, Y3, Y3
	VMULPD      Y3, Y15, Y6
	VFMSUB231PD Y2, Y14, Y6
	VMULPD      Y3, Y14, Y7
	VFMADD231PD Y2, Y15, Y7
	VMOVUPD     Y6, (R8)(R11*1)
	VMOVUPD     Y7, (R9)(R11*1)
	ADDQ        $32, R11
	JMP         r4dif_loop

r4dif_done:
	VZEROUPPER
	RET

// func radix4DIT(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i *float64, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)
//
// Two decimation-in-time stages fused: rows x0 = row i, x1 = row i+h,
// x2 = row i+2h, x3 = row i+3h; butterflyDIT4 on (x0, x1) and (x2, x3)
// with wA, then on (x0, x2) with wB and (x1, x3) with wC, in registers.
TEXT ·radix4DIT(SB), NOSPLIT, $0-120
	MOVQ         x0r+0(FP), AX
	MOVQ         x0i+8(FP), BX
	MOVQ         x1r+16(FP), CX
	MOVQ         x1i+24(FP), DX
	MOVQ         x2r+32(FP), SI
	MOVQ         x2i+40(FP), DI
	MOVQ         x3r+48(FP), R8
	MOVQ         x3i+56(FP), R9
	MOVQ         n+64(FP), R10
	VBROADCASTSD wAr+72(FP), Y10
	VBROADCASTSD wAi+80(FP), Y11
	VBROADCASTSD wBr+88(FP), Y12
	VBROADCASTSD wBi+96(FP), Y13
	VBROADCASTSD wCr+104(FP), Y14
	VBROADCASTSD wCi+112(FP), Y15
	SHLQ         $3, R10
	XORQ         R11, R11

r4dit_loop:
	CMPQ        R11, R10
	JAE         r4dit_done
	VMOVUPD     (AX)(R11*1), Y0
	VMOVUPD     (BX)(R11*1), Y1
	VMOVUPD     (CX)(R11*1), Y2
	VMOVUPD     (DX)(R11*1), Y3
	VMOVUPD     (SI)(R11*1), Y4
	VMOVUPD     (DI)(R11*1), Y5
	VMOVUPD     (R8)(R11*1), Y6
	VMOVUPD     (R9)(R11*1), Y7
	// t = conj(wA) x1; a1 = x0 - t (Y2, Y3), a0 = x0 + t (Y0, Y1)
	VMULPD      Y3, Y11, Y8
	VFMADD231PD Y2, Y10, Y8
	VMULPD      Y2, Y11, Y9
	VFMSUB231PD Y3, Y10, Y9
	VSUBPD      Y8, Y0, Y2
	VSUBPD      Y9, Y1, Y3
	VADDPD      Y8, Y0, Y0
	VADDPD      Y9, Y1, Y1
	// t = conj(wA) x3; a3 = x2 - t (Y6, Y7), a2 = x2 + t (Y4, Y5)
	VMULPD      Y7, Y11, Y8
	VFMADD231PD Y6, Y10, Y8
	VMULPD      Y6, Y11, Y9
	VFMSUB231PD Y7, Y10, Y9
	VSUBPD      Y8, Y4, Y6
	VSUBPD      Y9, Y5, Y7
	VADDPD      Y8, Y4, Y4
	VADDPD      Y9, Y5, Y5
	// t = conj(wB) a2; y2 = a0 - t, y0 = a0 + t
	VMULPD      Y5, Y13, Y8
	VFMADD231PD Y4, Y12, Y8
	VMULPD      Y4, Y13, Y9
	VFMSUB231PD Y5, Y12, Y9
	VSUBPD      Y8, Y0, Y4
	VSUBPD      Y9, Y1, Y5
	VADDPD      Y8, Y0, Y0
	VADDPD      Y9, Y1, Y1
	VMOVUPD     Y0, (AX)(R11*1)
	VMOVUPD     Y1, (BX)(R11*1)
	VMOVUPD     Y4, (SI)(R11*1)
	VMOVUPD     Y5, (DI)(R11*1)
	// t = conj(wC) a3; y3 = a1 - t, y1 = a1 + t
	VMULPD      Y7, Y15, Y8
	VFMADD231PD Y6, Y14, Y8
	VMULPD      Y6, Y15, Y9
	VFMSUB231PD Y7, Y14, Y9
	VSUBPD      Y8, Y2, Y6
	VSUBPD      Y9, Y3, Y7
	VADDPD      Y8, Y2, Y2
	VADDPD      Y9, Y3, Y3
	VMOVUPD     Y2, (CX)(R11*1)
	VMOVUPD     Y3, (DX)(R11*1)
	VMOVUPD     Y6, (R8)(R11*1)
	VMOVUPD     Y7, (R9)(R11*1)
	ADDQ        $32, R11
	JMP         r4dit_loop

r4dit_done:
	VZEROUPPER
	RET
