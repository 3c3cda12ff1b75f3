/* GPU multi-scalar multiplication, Pippenger's bucket method with signed
 * digits, generic over the point's coordinate field E (G1: fp_t, G2: fp2_t).
 *
 * Pipeline for n points and window width c (plan in msm_plan.h), all on the
 * context's stream:
 *  0. the 0/1 split: scalars are classified as 0, 1
 *     or larger, and the indices of the last two classes are compacted in
 *     order (block counts, one-block scan, scatter); the host reads the two
 *     counts (one synchronization). Zeros cost nothing more; each 1 becomes
 *     a single entry of bucket 0 in window 0 (the segmented accumulation
 *     below then sums them with perfect balance); only the scalars > 1 get
 *     digits. So a mostly-0/1 vector (the "filecoin" profile) costs about
 *     its full-width tail.
 *  1. digits: each scalar k < 2^nbits is written in W = nbits/c + 1 signed
 *     digits d_w in [-2^(c-1), 2^(c-1)] (k = sum d_w 2^(cw); a digit above
 *     2^(c-1) becomes d - 2^c with a carry into the next window; the last
 *     window cannot carry out because it holds at most c-1 bits). Each nonzero
 *     digit gives an entry (key = w*2^(c-1) + |d|-1, value = 2*i + sign);
 *     a zero digit gets the key W*2^(c-1), which sorts last and is skipped.
 *  2. sort the n*W entries by key (CUB radix sort over the key's bits only):
 *     each bucket's points are now one run of the sorted array.
 *  3. accumulate with perfect load balance: thread t takes the L sorted
 *     entries [tL, tL+L) and sums each run it sees with mixed additions
 *     (madd-2008-s), in one flat loop of exactly L mixed additions per
 *     thread that flushes a finished run from inside it, so the threads of
 *     a warp stay converged (a loop per run made a warp wait for the
 *     longest run of each round: up to ~2x the additions). A run wholly
 *     inside the segment is a finished bucket.
 *     A run that began in an earlier segment gives a head partial H[t]; one
 *     that begins here and continues past the segment gives a tail partial
 *     T[t]. A bucket spread over segments s0..s1 is then
 *     T[s0] + H[s0+1] + ... + H[s1], where the middle H's are whole-segment
 *     sums: a range sum, answered in O(log S) additions from a sum tree built
 *     over H (so a bucket holding all n points, e.g. all scalars equal, costs
 *     no long serial chain).
 *  4. per window, sum_b (b+1) B_b: threads sum chunks of C0 buckets as
 *     running sums (R = sum B_b, W = sum (b+1) B_b, local weights), then
 *     chunks merge pairwise in a tree: [lo,mid) + [mid,hi) gives
 *     R = R1 + R2 and W = W1 + W2 + (mid-lo) R2, where mid-lo is a power of
 *     two, so the product is doublings.
 *  5. the W window sums come back to the host, which combines them by Horner
 *     (c doublings per window) and returns Jacobian coordinates.
 * Precomputed window multiples (g16_gpu_bases_precompute, msm_table): with
 * table[w*stride + i] = 2^(cw) P_i resident, k P = sum_w d_w (2^(cw) P), so
 * the digits of every window go into one set of 2^(c-1) buckets (key |d|-1,
 * value the table index): the accumulation does the same additions, the
 * bucket reduction runs once instead of W times, and there is no Horner step.
 * With one reduction a wider c pays (g16gpu_table_c: fewer windows, so fewer
 * additions). It costs W times the bases' memory; used by every MSM whose
 * sort and buckets fit the context's scratch at the table's c.
 * Window width (msm_plan.h, g16gpu_plan): the c minimizing
 * windows(c) * (2^lg + 3 * 2^(c-1)), lg = ceil(log2 n) (accumulation +
 * bucket reduction, in mixed additions), c <= min(lg - 3, 22): for 255-bit
 * scalars c = 16 at 2^20 and 2^22, 20 at 2^24 (13 windows instead of 16),
 * 22 at 2^26; 254-bit ones take c = 17 at 2^22. The context's scratch
 * covers every plan of n <= max_points (g16gpu_scratch).
 * Streaming (msm_streamed_run): bases from host memory in chunks of the
 * context's max_points, copied on a second stream into two staging buffers
 * (the copy of chunk k+1 overlaps the kernels of chunk k); the chunk sums
 * are added on the host.
 * The group law here is variable time (it branches on equal or opposite
 * points), which is fine for MSMs over public bases; the scalars decide which
 * points meet in a bucket, so timing may leak digits: the prover's secret
 * scalars (r, s) are not passed through here. */
#ifndef G16_GPU_MSM_CUH
#define G16_GPU_MSM_CUH

#include "msm_digits.cuh"
#include "msm_buckets.cuh"
#include "msm_table.cuh"
#include "msm_driver.cuh"

#endif
