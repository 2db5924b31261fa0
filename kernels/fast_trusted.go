package kernels

import "math/rand/v2"

// The functions of this file are Obfuscate, IBU and GIBU for channels whose
// entries the caller vouches for, e.g. channels it has just built with
// BAChannel.Channel or Laplace, or validated once before using them many
// times. They skip the O(|X||Y|) check that every row is a distribution,
// which the checked functions repeat on every call (a PRIVIC run hands
// each cycle's channel to one obfuscation, one or two IBUs and the final
// GIBU of every later state). Everything else is checked, and the code
// path is the checked functions' own, so results agree bit for bit. On a
// channel whose rows are not distributions the results are meaningless
// (but nothing panics).

// ObfuscateTrusted is Obfuscate without the check of ch's rows.
func ObfuscateTrusted(rng *rand.Rand, counts []int, ch *Channel) ([]int, error) {
	return obfuscate(rng, counts, ch, false)
}

// IBUTrusted is IBUWorkspace.IBU without the check of ch's rows.
func (w *IBUWorkspace) IBUTrusted(dst []float64, ch *Channel, q, start []float64, cfg IBUConfig) ([]float64, int, error) {
	return w.ibu(dst, ch, q, start, cfg, false)
}

// GIBUTrusted is IBUWorkspace.GIBU without the check of the channels' rows.
func (w *IBUWorkspace) GIBUTrusted(dst []float64, batches []Batch, start []float64, cfg IBUConfig) ([]float64, int, error) {
	return w.run("gibu", dst, batches, start, cfg, false)
}
