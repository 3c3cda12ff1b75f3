/* Tower (Fp6, Fp12) and optimal ate pairing of both curves.
 * Oracles: @noble/curves vectors (tests/vectors/pairing_*.txt, exact Fp12
 * equality for tower ops, final exponentiation and pairing values), GMP
 * scalars, a naive affine scalar multiplication, and algebraic identities on
 * random elements from the logged seed: ring axioms, inverses, Frobenius
 * compositions and order 12, Frobenius = p-th power, sparse = dense
 * products, cyclotomic squaring = squaring, bilinearity, e(-P,Q) e(P,Q) = 1,
 * multi-pairing = product, infinity handling. Prints pairing timings.
 * Run from the repo root (ctest does). G16_PAIRING_REPS sets timing reps. */
#include <string.h>
#include <time.h>

#include "pairing/pairing.h"
#include "testutil.h"

typedef struct {
    char *s;
    size_t pos;
} tok_state;

/* Next space-separated token of the line, or NULL. */
static const char *tok_next(tok_state *ts) {
    char *s = ts->s + ts->pos;
    while (*s == ' ')
        s++;
    if (!*s)
        return NULL;
    char *e = s;
    while (*e && *e != ' ')
        e++;
    ts->pos = (size_t)(e - ts->s) + (*e ? 1 : 0);
    *e = 0;
    return s;
}

static double t_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust on a shared machine */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int t_reps(void) {
    const char *e = getenv("G16_PAIRING_REPS");
    int r = e ? atoi(e) : 20;
    return r > 0 ? r : 1;
}

#define C bn254
#define CS "bn254"
#define F bn254_fp
#define F2 bn254_fp2
#define F6 bn254_fp6
#define F12 bn254_fp12
#define NL 4
#define FR_P BN254_FR_P
#define FP_P BN254_FP_P
#define XI_A_VALUE BN254_XI_A
#define X_ABS_VALUE BN254_TOWER_X_ABS
#include "pairing_test_impl.h"
#undef C
#undef CS
#undef F
#undef F2
#undef F6
#undef F12
#undef NL
#undef FR_P
#undef FP_P
#undef XI_A_VALUE
#undef X_ABS_VALUE

#define C bls381
#define CS "bls381"
#define F bls381_fp
#define F2 bls381_fp2
#define F6 bls381_fp6
#define F12 bls381_fp12
#define NL 6
#define FR_P BLS381_FR_P
#define FP_P BLS381_FP_P
#define XI_A_VALUE BLS381_XI_A
#define X_ABS_VALUE BLS381_TOWER_X_ABS
#include "pairing_test_impl.h"
#undef C
#undef CS
#undef F
#undef F2
#undef F6
#undef F12
#undef NL
#undef FR_P
#undef FP_P
#undef XI_A_VALUE
#undef X_ABS_VALUE

int main(void) {
    uint64_t seed = t_seed("test_pairing");
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, (unsigned long)seed);

    bn254_test_tower_algebra(&rng);
    bls381_test_tower_algebra(&rng);
    bn254_test_vectors("tests/vectors/pairing_bn254.txt", &rng, rs);
    bls381_test_vectors("tests/vectors/pairing_bls12_381.txt", &rng, rs);

    gmp_randclear(rs);
    return t_done("test_pairing");
}
