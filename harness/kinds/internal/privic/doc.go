// Package incremental holds the experiment kinds of the PRIVIC method
// itself (paper Sec. V): "privic-convergence" (EMD to the true PMF per
// cycle, Fig. 7-9 and Tables III-IV) and "beta-sweep" (final EMD against
// the loss parameter beta, Fig. 10).
//
// Every choice where the paper's Algorithm 1 and its published reference
// code differ (PROTOCOL.md, experiment 3) is a spec option: the first
// mechanism (BA on the uniform prior, or LAP eps = 2), the IBU start
// (previous estimate or uniform), mixing of successive estimates
// (sample-size weighted or none), how batches are drawn (fresh iid samples
// or a partition of the data) and the EMD reference (population or the
// cycle's batch). One job simulates one trajectory (city, beta, variant,
// round) and measures both EMD references on it; the final GIBU over all
// batches and BA on its estimate (paper step 3) end every trajectory.
//
// The paper's Tables III and IV are transcribed in paper.go; Finish sets
// every variant's mean trajectory beside them and ranks the variants by
// their distance to the paper.
package incremental
