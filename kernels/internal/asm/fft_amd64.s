//go:build !purego

#include "textflag.h"
#include "avx_amd64.h"

// BUTTERFLY_ARGS loads the arguments of butterflyDIFAVX and butterflyDITAVX:
// the rows in DI, SI, R8, R9, w broadcast in Y14, Y15, the byte length in
// CX and the bytes in whole pairs of vectors in DX (flags set by the last
// instruction, ZF when there is no pair); AX = 0 is the byte offset.
#define BUTTERFLY_ARGS \
	MOVQ         ar_base+0(FP), DI; \
	MOVQ         ar_len+8(FP), CX; \
	MOVQ         ai_base+24(FP), SI; \
	MOVQ         br_base+48(FP), R8; \
	MOVQ         bi_base+72(FP), R9; \
	VBROADCASTSD wr+96(FP), Y14; \
	VBROADCASTSD wi+104(FP), Y15; \
	SHLQ         $3, CX; \
	XORQ         AX, AX; \
	MOVQ         CX, DX; \
	ANDQ         $-64, DX

// LOADA and LOADB load the vectors at byte offset off+AX of the rows
// (ar, ai) and (br, bi) into (yr, yi); STOREA and STOREB store them.
#define LOADA(off, yr, yi) \
	VMOVUPD off(DI)(AX*1), yr; \
	VMOVUPD off(SI)(AX*1), yi

#define LOADB(off, yr, yi) \
	VMOVUPD off(R8)(AX*1), yr; \
	VMOVUPD off(R9)(AX*1), yi

#define STOREA(off, yr, yi) \
	VMOVUPD yr, off(DI)(AX*1); \
	VMOVUPD yi, off(SI)(AX*1)

#define STOREB(off, yr, yi) \
	VMOVUPD yr, off(R8)(AX*1); \
	VMOVUPD yi, off(R9)(AX*1)

// RADIX4_ARGS loads the arguments of radix4DIFAVX and radix4DITAVX: the
// rows x0r, x0i, ..., x3i (re and im at offsets o0 to o3) in AX, BX, CX,
// DX, SI, DI, R8, R9, the twiddles wA, wB, wC broadcast in Y10 to Y15, the
// byte length in R10; R11 = 0 is the byte offset.
#define RADIX4_ARGS \
	MOVQ         re_base+0(FP), R12; \
	MOVQ         im_base+24(FP), R13; \
	MOVQ         o0+48(FP), R14; \
	LEAQ         (R12)(R14*8), AX; \
	LEAQ         (R13)(R14*8), BX; \
	MOVQ         o1+56(FP), R14; \
	LEAQ         (R12)(R14*8), CX; \
	LEAQ         (R13)(R14*8), DX; \
	MOVQ         o2+64(FP), R14; \
	LEAQ         (R12)(R14*8), SI; \
	LEAQ         (R13)(R14*8), DI; \
	MOVQ         o3+72(FP), R14; \
	LEAQ         (R12)(R14*8), R8; \
	LEAQ         (R13)(R14*8), R9; \
	MOVQ         n+80(FP), R10; \
	VBROADCASTSD wAr+88(FP), Y10; \
	VBROADCASTSD wAi+96(FP), Y11; \
	VBROADCASTSD wBr+104(FP), Y12; \
	VBROADCASTSD wBi+112(FP), Y13; \
	VBROADCASTSD wCr+120(FP), Y14; \
	VBROADCASTSD wCi+128(FP), Y15; \
	SHLQ         $3, R10; \
	XORQ         R11, R11

// RADIX4_LOAD loads the vectors at byte offset R11 of the rows x0, x1,
// x2, x3 (loaded by RADIX4_ARGS) into (x0r, x0i), ..., (x3r, x3i).
#define RADIX4_LOAD(x0r, x0i, x1r, x1i, x2r, x2i, x3r, x3i) \
	VMOVUPD (AX)(R11*1), x0r; \
	VMOVUPD (BX)(R11*1), x0i; \
	VMOVUPD (CX)(R11*1), x1r; \
	VMOVUPD (DX)(R11*1), x1i; \
	VMOVUPD (SI)(R11*1), x2r; \
	VMOVUPD (DI)(R11*1), x2i; \
	VMOVUPD (R8)(R11*1), x3r; \
	VMOVUPD (R9)(R11*1), x3i

// func butterflyDIFAVX(ar, ai, br, bi []float64, wr, wi float64)
//
// For j < n = len(ar) (a multiple of 4): with x = (ar, ai)[j], y = (br, bi)[j],
// (ar, ai)[j] = x + y and (br, bi)[j] = (x - y) w.
TEXT ·butterflyDIFAVX(SB), NOSPLIT, $0-112
	BUTTERFLY_ARGS
	JZ dif_tail

dif_loop8:
	LOADA(0, Y0, Y1)
	LOADB(0, Y2, Y3)
	LOADA(32, Y10, Y11)
	LOADB(32, Y12, Y13)
	SUMDIFF(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)          // d = (Y6, Y7)
	STOREA(0, Y4, Y5)
	SUMDIFF(Y10, Y11, Y12, Y13, Y4, Y5, Y2, Y3)      // d' = (Y2, Y3)
	STOREA(32, Y4, Y5)
	CMUL(Y6, Y7, Y14, Y15, Y8, Y9)                    // d w
	CMUL(Y2, Y3, Y14, Y15, Y10, Y11)                  // d' w
	STOREB(0, Y8, Y9)
	STOREB(32, Y10, Y11)
	ADDQ        $64, AX
	CMPQ        AX, DX
	JB          dif_loop8

dif_tail:
	CMPQ        AX, CX
	JAE         dif_done
	LOADA(0, Y0, Y1)
	LOADB(0, Y2, Y3)
	SUMDIFF(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	STOREA(0, Y4, Y5)
	CMUL(Y6, Y7, Y14, Y15, Y8, Y9)
	STOREB(0, Y8, Y9)

dif_done:
	VZEROUPPER
	RET

// func butterflyDITAVX(ar, ai, br, bi []float64, wr, wi float64)
//
// For j < n = len(ar) (a multiple of 4): with x = (ar, ai)[j], t = conj(w) (br, bi)[j],
// (ar, ai)[j] = x + t and (br, bi)[j] = x - t.
TEXT ·butterflyDITAVX(SB), NOSPLIT, $0-112
	BUTTERFLY_ARGS
	JZ dit_tail

dit_loop8:
	LOADB(0, Y2, Y3)
	LOADB(32, Y12, Y13)
	CMULCONJ(Y2, Y3, Y14, Y15, Y8, Y9)                // t = conj(w) y
	CMULCONJ(Y12, Y13, Y14, Y15, Y10, Y11)            // t' = conj(w) y'
	LOADA(0, Y0, Y1)
	SUMDIFF(Y0, Y1, Y8, Y9, Y4, Y5, Y6, Y7)
	STOREA(0, Y4, Y5)
	STOREB(0, Y6, Y7)
	LOADA(32, Y0, Y1)
	SUMDIFF(Y0, Y1, Y10, Y11, Y4, Y5, Y6, Y7)
	STOREA(32, Y4, Y5)
	STOREB(32, Y6, Y7)
	ADDQ        $64, AX
	CMPQ        AX, DX
	JB          dit_loop8

dit_tail:
	CMPQ        AX, CX
	JAE         dit_done
	LOADB(0, Y2, Y3)
	CMULCONJ(Y2, Y3, Y14, Y15, Y8, Y9)
	LOADA(0, Y0, Y1)
	SUMDIFF(Y0, Y1, Y8, Y9, Y4, Y5, Y6, Y7)
	STOREA(0, Y4, Y5)
	STOREB(0, Y6, Y7)

dit_done:
	VZEROUPPER
	RET

// func firSymAVX(acc, fp, taps []float64)
//
// For j < n = len(acc) (a multiple of 8), with ntaps = len(taps) and
// f = fp[ntaps-1:]: acc[j] += taps[0] f[j] + sum_{1 <= e < ntaps}
// taps[e] (f[j+e] + f[j-e]); fp has n + 2(ntaps-1) entries.
TEXT ·firSymAVX(SB), NOSPLIT, $0-72
	MOVQ acc_base+0(FP), DI
	MOVQ acc_len+8(FP), CX
	MOVQ fp_base+24(FP), SI
	MOVQ taps_base+48(FP), DX
	MOVQ taps_len+56(FP), R8
	LEAQ -8(SI)(R8*8), SI    // f = &fp[ntaps-1]
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

// DIF_STORE is the decimation-in-frequency butterfly of the second stage
// of radix4DIF: it stores x + y (through Y4, Y5) in the rows (ar, ai) and
// (x - y) w in the rows (br, bi) at byte offset R11, overwriting x with
// x - y and y with (x - y) w.
#define DIF_STORE(xr, xi, yr, yi, wr, wi, ar, ai, br, bi) \
	VADDPD  yr, xr, Y4; \
	VADDPD  yi, xi, Y5; \
	VMOVUPD Y4, (ar)(R11*1); \
	VMOVUPD Y5, (ai)(R11*1); \
	VSUBPD  yr, xr, xr; \
	VSUBPD  yi, xi, xi; \
	CMUL(xr, xi, wr, wi, yr, yi); \
	VMOVUPD yr, (br)(R11*1); \
	VMOVUPD yi, (bi)(R11*1)

// func radix4DIFAVX(re, im []float64, o0, o1, o2, o3, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)
//
// Two decimation-in-frequency stages fused: rows x0 = row i, x1 = row
// i+h/2, x2 = row i+h, x3 = row i+3h/2 of a stage of half-width h and the
// next. The same operations as butterflyDIFAVX on (x0, x2) with wA, on
// (x1, x3) with wB, then on (x0, x1) and (x2, x3) with wC, in registers:
// the results are bit for bit those of the two stages.
TEXT ·radix4DIFAVX(SB), NOSPLIT, $0-136
	RADIX4_ARGS

r4dif_loop:
	CMPQ        R11, R10
	JAE         r4dif_done
	RADIX4_LOAD(Y0, Y1, Y4, Y5, Y2, Y3, Y6, Y7)
	// (x0, x2) with wA: u0 = x0 + x2, u2 = (x0 - x2) wA
	SUMDIFF(Y0, Y1, Y2, Y3, Y8, Y9, Y0, Y1)
	CMUL(Y0, Y1, Y10, Y11, Y2, Y3)
	// (x1, x3) with wB: u1 = x1 + x3 (Y0, Y1), u3 = (x1 - x3) wB (Y6, Y7)
	SUMDIFF(Y4, Y5, Y6, Y7, Y0, Y1, Y4, Y5)
	CMUL(Y4, Y5, Y12, Y13, Y6, Y7)
	// (u0, u1) with wC
	DIF_STORE(Y8, Y9, Y0, Y1, Y14, Y15, AX, BX, CX, DX)
	// (u2, u3) with wC
	DIF_STORE(Y2, Y3, Y6, Y7, Y14, Y15, SI, DI, R8, R9)
	ADDQ        $32, R11
	JMP         r4dif_loop

r4dif_done:
	VZEROUPPER
	RET

// DIT_INPLACE is the decimation-in-time butterfly in registers: with
// t = conj(wr, wi) (yr, yi) in Y8, Y9, (yr, yi) = x - t and
// (xr, xi) = x + t.
#define DIT_INPLACE(xr, xi, yr, yi, wr, wi) \
	CMULCONJ(yr, yi, wr, wi, Y8, Y9); \
	DIFFSUM(xr, xi, Y8, Y9, xr, xi, yr, yi)

// func radix4DITAVX(re, im []float64, o0, o1, o2, o3, n int, wAr, wAi, wBr, wBi, wCr, wCi float64)
//
// Two decimation-in-time stages fused: rows x0 = row i, x1 = row i+h,
// x2 = row i+2h, x3 = row i+3h; butterflyDITAVX on (x0, x1) and (x2, x3)
// with wA, then on (x0, x2) with wB and (x1, x3) with wC, in registers.
TEXT ·radix4DITAVX(SB), NOSPLIT, $0-136
	RADIX4_ARGS

r4dit_loop:
	CMPQ        R11, R10
	JAE         r4dit_done
	RADIX4_LOAD(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	// t = conj(wA) x1; a1 = x0 - t (Y2, Y3), a0 = x0 + t (Y0, Y1)
	DIT_INPLACE(Y0, Y1, Y2, Y3, Y10, Y11)
	// t = conj(wA) x3; a3 = x2 - t (Y6, Y7), a2 = x2 + t (Y4, Y5)
	DIT_INPLACE(Y4, Y5, Y6, Y7, Y10, Y11)
	// t = conj(wB) a2; y2 = a0 - t, y0 = a0 + t
	DIT_INPLACE(Y0, Y1, Y4, Y5, Y12, Y13)
	VMOVUPD     Y0, (AX)(R11*1)
	VMOVUPD     Y1, (BX)(R11*1)
	VMOVUPD     Y4, (SI)(R11*1)
	VMOVUPD     Y5, (DI)(R11*1)
	// t = conj(wC) a3; y3 = a1 - t, y1 = a1 + t
	DIT_INPLACE(Y2, Y3, Y6, Y7, Y14, Y15)
	VMOVUPD     Y2, (CX)(R11*1)
	VMOVUPD     Y3, (DX)(R11*1)
	VMOVUPD     Y6, (R8)(R11*1)
	VMOVUPD     Y7, (R9)(R11*1)
	ADDQ        $32, R11
	JMP         r4dit_loop

r4dit_done:
	VZEROUPPER
	RET
