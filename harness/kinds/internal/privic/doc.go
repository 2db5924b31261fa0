// Package privic simulates the PRIVIC method (paper Sec. V, Algorithm 1)
// for the kinds "privic-convergence" and "beta-sweep": the protocol's
// parameters, the simulation of its cycles, the job tables and their
// reading back.
//
// In each cycle PRIVIC builds a channel from the current estimate of the
// population's distribution (BA on it), collects a batch of check-ins
// obfuscated with that channel, and updates the estimate with IBU; at the
// end GIBU over all batches gives the final estimate, and BA on it the
// final channel (paper step 3). Every choice where the paper's Algorithm 1
// and its published reference code differ is a spec option, the paper's
// first:
//
//   - first_mechanism: the first cycle obfuscates with BA on the uniform
//     prior (paper), or with LAP at eps = 2 on the base grid (reference);
//   - ibu_start: each IBU starts from the previous estimate (paper) or from
//     uniform (reference);
//   - mixing: the new estimate is the sample-size-weighted average of the
//     IBU estimate and the previous one (paper), or the IBU estimate alone
//     (reference);
//   - batches: each cycle draws a fresh sample of check-ins with
//     replacement (paper), or the next 10% of a random partition, which
//     runs out after 10 cycles (reference);
//   - emd_reference: the estimate is measured against the population's
//     distribution (paper) or against the cycle's batch (reference).
//
// One job simulates the trajectories of several variants at one (city,
// beta) for one or more rounds, and measures both EMD references on each
// trajectory.
package privic
