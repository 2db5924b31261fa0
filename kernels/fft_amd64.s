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
