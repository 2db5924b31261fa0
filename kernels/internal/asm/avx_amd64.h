// Macros shared by the package's AVX2/FMA kernels (included by the
// *_amd64.s files). Every operand is a YMM register; the macros expand to
// exactly the instruction sequences they name, in order, so a kernel
// written with them is bit for bit the one written out.

// Complex vectors are kept as separate real and imaginary registers.

// CMUL sets (zr, zi) = (xr, xi) (wr, wi): zr = xr wr - xi wi and
// zi = xr wi + xi wr, each a multiply then one fused step.
#define CMUL(xr, xi, wr, wi, zr, zi) \
	VMULPD      xi, wi, zr; \
	VFMSUB231PD xr, wr, zr; \
	VMULPD      xi, wr, zi; \
	VFMADD231PD xr, wi, zi

// CMULCONJ sets (zr, zi) = conj(wr, wi) (xr, xi): zr = xr wr + xi wi and
// zi = xi wr - xr wi.
#define CMULCONJ(xr, xi, wr, wi, zr, zi) \
	VMULPD      xi, wi, zr; \
	VFMADD231PD xr, wr, zr; \
	VMULPD      xr, wi, zi; \
	VFMSUB231PD xi, wr, zi

// SUMDIFF sets (sr, si) = x + y, then (dr, di) = x - y: s must not
// overwrite x or y, d may.
#define SUMDIFF(xr, xi, yr, yi, sr, si, dr, di) \
	VADDPD yr, xr, sr; \
	VADDPD yi, xi, si; \
	VSUBPD yr, xr, dr; \
	VSUBPD yi, xi, di

// DIFFSUM sets (dr, di) = x - y, then (sr, si) = x + y: the order for
// overwriting x with the sum (d must not overwrite x or y, s may).
#define DIFFSUM(xr, xi, yr, yi, sr, si, dr, di) \
	VSUBPD yr, xr, dr; \
	VSUBPD yi, xi, di; \
	VADDPD yr, xr, sr; \
	VADDPD yi, xi, si

// ZERO8 clears the accumulators Y0 to Y7.
#define ZERO8 \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7
