/* ntt_emul.cpp with tiles of 2^6 elements: small sizes then run plans of one
 * to four passes (four from 2^15: inter-pass twiddles, the fused odd-coset
 * pass after several passes) in seconds. CI: tests/test_gpu_ntt_emul.sh. */
#define G16_NTT_TILE_LOG 6
#define G16_NTT_PASS_MAX_B 4
#define G16_NTT_COLS_LOG 2
#include "ntt_emul.cpp"
