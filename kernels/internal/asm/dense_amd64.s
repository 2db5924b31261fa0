//go:build !purego

#include "textflag.h"
#include "avx_amd64.h"

// func ibuRows4AVX(c []float64, n int, r, den, w []float64, mode int)
//
// IBU passes over the four channel rows c_i = c[i*n:(i+1)*n], i < 4, with
// s_i = sum_j c_i[j]*r[j]. Mode bits:
//
//	1: compute s_i and store it in w[i] (w[i] *= s_i with bit 4)
//	2: then den[j] += sum_i w[i]*c_i[j]
//	4: multiply instead of store
//
// Mode 7 is one whole IBU step for four rows: the rows are read from memory
// once and from L1 the second time, so an IBU iteration streams the
// channel once.
TEXT ·ibuRows4AVX(SB), NOSPLIT, $0-112
	MOVQ c_base+0(FP), AX
	MOVQ n+24(FP), R8
	MOVQ r_base+32(FP), SI
	MOVQ den_base+56(FP), DI
	MOVQ w_base+80(FP), DX
	MOVQ mode+104(FP), R12
	MOVQ R8, R10
	SHLQ $3, R10            // row stride in bytes
	LEAQ (R10)(R10*2), R11  // 3 rows in bytes
	TESTQ $1, R12
	JZ    phase2

	// Phase 1: four dot products with r, eight columns per step.
	ZERO8
	MOVQ   AX, BX
	MOVQ   SI, R9
	MOVQ   R8, CX
	SHRQ   $3, CX
	JZ     dot4

dot8loop:
	VMOVUPD     (R9), Y8
	VMOVUPD     32(R9), Y9
	VFMADD231PD (BX), Y8, Y0
	VFMADD231PD 32(BX), Y9, Y1
	VFMADD231PD (BX)(R10*1), Y8, Y2
	VFMADD231PD 32(BX)(R10*1), Y9, Y3
	VFMADD231PD (BX)(R10*2), Y8, Y4
	VFMADD231PD 32(BX)(R10*2), Y9, Y5
	VFMADD231PD (BX)(R11*1), Y8, Y6
	VFMADD231PD 32(BX)(R11*1), Y9, Y7
	ADDQ        $64, BX
	ADDQ        $64, R9
	DECQ        CX
	JNZ         dot8loop

dot4:
	TESTQ $4, R8
	JZ    dotreduce
	VMOVUPD     (R9), Y8
	VFMADD231PD (BX), Y8, Y0
	VFMADD231PD (BX)(R10*1), Y8, Y2
	VFMADD231PD (BX)(R10*2), Y8, Y4
	VFMADD231PD (BX)(R11*1), Y8, Y6
	ADDQ        $32, BX
	ADDQ        $32, R9

dotreduce:
	// Horizontal sums into the low lanes of X0, X2, X4, X6.
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y5, Y4, Y4
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y0, X1
	VEXTRACTF128 $1, Y2, X3
	VEXTRACTF128 $1, Y4, X5
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X1, X0, X0
	VADDPD       X3, X2, X2
	VADDPD       X5, X4, X4
	VADDPD       X7, X6, X6
	VHADDPD      X0, X0, X0
	VHADDPD      X2, X2, X2
	VHADDPD      X4, X4, X4
	VHADDPD      X6, X6, X6
	MOVQ         R8, CX
	ANDQ         $3, CX
	JZ           dotdone

dottail:
	VMOVSD      (R9), X8
	VFMADD231SD (BX), X8, X0
	VFMADD231SD (BX)(R10*1), X8, X2
	VFMADD231SD (BX)(R10*2), X8, X4
	VFMADD231SD (BX)(R11*1), X8, X6
	ADDQ        $8, BX
	ADDQ        $8, R9
	DECQ        CX
	JNZ         dottail

dotdone:
	TESTQ  $4, R12
	JZ     storedots
	VMULSD (DX), X0, X0
	VMULSD 8(DX), X2, X2
	VMULSD 16(DX), X4, X4
	VMULSD 24(DX), X6, X6

storedots:
	VMOVSD X0, (DX)
	VMOVSD X2, 8(DX)
	VMOVSD X4, 16(DX)
	VMOVSD X6, 24(DX)
	TESTQ  $2, R12
	JZ     done

phase2:
	VBROADCASTSD (DX), Y12
	VBROADCASTSD 8(DX), Y13
	VBROADCASTSD 16(DX), Y14
	VBROADCASTSD 24(DX), Y15

	// Phase 2: den += theta_0 c_0 + ... + theta_3 c_3, eight columns per step.
	MOVQ AX, BX
	MOVQ DI, R9
	MOVQ R8, CX
	SHRQ $3, CX
	JZ   axpy4

axpy8loop:
	VMOVUPD     (R9), Y8
	VMOVUPD     32(R9), Y9
	VFMADD231PD (BX), Y12, Y8
	VFMADD231PD 32(BX), Y12, Y9
	VFMADD231PD (BX)(R10*1), Y13, Y8
	VFMADD231PD 32(BX)(R10*1), Y13, Y9
	VFMADD231PD (BX)(R10*2), Y14, Y8
	VFMADD231PD 32(BX)(R10*2), Y14, Y9
	VFMADD231PD (BX)(R11*1), Y15, Y8
	VFMADD231PD 32(BX)(R11*1), Y15, Y9
	VMOVUPD     Y8, (R9)
	VMOVUPD     Y9, 32(R9)
	ADDQ        $64, BX
	ADDQ        $64, R9
	DECQ        CX
	JNZ         axpy8loop

axpy4:
	TESTQ $4, R8
	JZ    axpytailstart
	VMOVUPD     (R9), Y8
	VFMADD231PD (BX), Y12, Y8
	VFMADD231PD (BX)(R10*1), Y13, Y8
	VFMADD231PD (BX)(R10*2), Y14, Y8
	VFMADD231PD (BX)(R11*1), Y15, Y8
	VMOVUPD     Y8, (R9)
	ADDQ        $32, BX
	ADDQ        $32, R9

axpytailstart:
	MOVQ R8, CX
	ANDQ $3, CX
	JZ   done

axpytail:
	VMOVSD      (R9), X8
	VFMADD231SD (BX), X12, X8
	VFMADD231SD (BX)(R10*1), X13, X8
	VFMADD231SD (BX)(R10*2), X14, X8
	VFMADD231SD (BX)(R11*1), X15, X8
	VMOVSD      X8, (R9)
	ADDQ        $8, BX
	ADDQ        $8, R9
	DECQ        CX
	JNZ         axpytail

done:
	VZEROUPPER
	RET

// func rowStatsAVX(p []float64) (sum, minv float64)
//
// Sum and minimum of p (len(p) >= 1), for validating channel rows at
// memory speed. A NaN or infinite entry makes the sum non-finite.
TEXT ·rowStatsAVX(SB), NOSPLIT, $0-40
	MOVQ         p_base+0(FP), SI
	MOVQ         p_len+8(FP), CX
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VBROADCASTSD (SI), Y2
	VMOVAPD      Y2, Y3
	MOVQ         CX, DX
	SHRQ         $3, DX
	JZ           stats4

stats8loop:
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VMINPD  Y4, Y2, Y2
	VMINPD  Y5, Y3, Y3
	ADDQ    $64, SI
	DECQ    DX
	JNZ     stats8loop

stats4:
	TESTQ $4, CX
	JZ    statsreduce
	VMOVUPD (SI), Y4
	VADDPD  Y4, Y0, Y0
	VMINPD  Y4, Y2, Y2
	ADDQ    $32, SI

statsreduce:
	VADDPD       Y1, Y0, Y0
	VMINPD       Y3, Y2, Y2
	VEXTRACTF128 $1, Y0, X1
	VEXTRACTF128 $1, Y2, X3
	VADDPD       X1, X0, X0
	VMINPD       X3, X2, X2
	VHADDPD      X0, X0, X0
	VPERMILPD    $1, X2, X3
	VMINSD       X3, X2, X2
	ANDQ         $3, CX
	JZ           statsdone

statstail:
	VMOVSD (SI), X4
	VADDSD X4, X0, X0
	VMINSD X4, X2, X2
	ADDQ   $8, SI
	DECQ   CX
	JNZ    statstail

statsdone:
	VMOVSD X0, sum+24(FP)
	VMOVSD X2, minv+32(FP)
	VZEROUPPER
	RET
