/* The bucket reduction's kernels (msm_buckets.cuh: msm_chunk_kernel, msm_merge_kernel,
 * msm_tree_kernel) on inputs that take the point addition's special
 * branches, compared bit for bit with the same templates run on the host;
 * plus the density compaction (block scans in shared memory). Built and run
 * by scripts/gpu-addcold.sh (one translation unit, no library), once with
 * the library's inlined additions and once per out-of-line variant
 * (-DG16_GPU_ADD_COLD=1: add_cold/dbl_cold, the builds that faulted on the
 * H200; =2: add_cold_val), under compute-sanitizer memcheck and racecheck.
 *
 * Inputs, per chunk of C buckets (chunk id mod 5):
 *   0  only the top bucket set: the running sums make W == R on the next
 *      step, so W += R doubles (the n = 1 MSM, and filecoin's sparse B1
 *      chunks with one non-empty bucket, where the fault was seen);
 *   1  all buckets infinity;
 *   2  every bucket the same point: R += B doubles at the second bucket;
 *   3  buckets i and i+1 opposite (P + (-P) = infinity) among random ones;
 *   4  random points.
 * The points are random field elements (x, y, 1, 1), not on the curve: the
 * formulas never use b, so the branches and results are the same code paths.
 * Field: -DADDCOLD_FIELD=1 BN254 Fp (G1), 2 BN254 Fp2 (G2), 3 BLS12-381 Fp.
 *
 * Part 5 (scripts/gpu-addcold2.sh) runs, in every variant, the smallest
 * form found of what makes add_cold_val differ, with no field code: an
 * aggregate taken by value (a kernel parameter, or a parameter of a
 * __noinline__ device function), a local initialized from memory, a
 * conditional whole copy of the parameter into that local, and the local
 * stored back. nvcc 13.0's NVVM at -O2/-O3 (not -O1, not -G) compiles it to
 * an unconditional store of the parameter (PTX: ld.param of the parameter,
 * st of it, no branch, no load of the old value). Two source forms that
 * avoid it are checked beside it: the copy word by word, and the parameter
 * by const reference. Its outcome is printed on its own line and does not
 * change the exit status.
 * Environment: ADDCOLD_STACK=bytes sets cudaLimitStackSize first (the stack
 * experiment). Prints the kernels' local memory (cudaFuncGetAttributes).
 * Exit 0: every result equal to the host's; 1: a mismatch; 2: a CUDA error
 * (the fault). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../src/gpu/msm/msm.cuh"

using namespace g16gpu;

#ifndef ADDCOLD_FIELD
#define ADDCOLD_FIELD 2
#endif
#if ADDCOLD_FIELD == 1
typedef g16gpu::bn254_fp E;
static const char *field_name = "bn254 Fp (G1)";
#elif ADDCOLD_FIELD == 2
typedef g16gpu::bn254_fp2 E;
static const char *field_name = "bn254 Fp2 (G2)";
#else
typedef g16gpu::bls381_fp E;
static const char *field_name = "bls12-381 Fp (G1)";
#endif
#if !defined(G16_GPU_ADD_COLD)
static const char *variant = "inline (library)";
#elif G16_GPU_ADD_COLD == 2
static const char *variant = "out of line, q by value (add_cold_val)";
#else
static const char *variant = "out of line (add_cold/dbl_cold)";
#endif

typedef xyzz_t<E> P;

#define CK(x)                                                                                                        \
    do {                                                                                                             \
        cudaError_t e_ = (x);                                                                                        \
        if (e_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "addcold: %s@%s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_));              \
            exit(2);                                                                                                 \
        }                                                                                                            \
    } while (0)

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd() {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint32_t)(rs >> 11);
}
template <class C> static void rand_el(fp_t<C> &r) {
    for (int i = 0; i < C::N; i++)
        r.l[i] = rnd();
    r.l[C::N - 1] %= C::p(C::N - 1); /* below p: the top word is */
}
template <class F> static void rand_el(fp2_t<F> &r) {
    rand_el(r.c0);
    rand_el(r.c1);
}
static P rand_point() {
    P p;
    rand_el(p.x);
    rand_el(p.y);
    p.zz = E::one();
    p.zzz = E::one();
    return p;
}

static int mismatches;
static void compare(const char *what, const std::vector<P> &dev, const std::vector<P> &host) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < host.size(); i++)
        if (memcmp(&dev[i], &host[i], sizeof(P)) && !bad++)
            first = i;
    printf("  %-28s %zu results, %zu differ from the host%s", what, host.size(), bad, bad ? " (first at " : "\n");
    if (bad)
        printf("%zu)\n", first);
    mismatches += bad != 0;
}

template <class K> static void print_attr(const char *name, K kernel) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, kernel));
    printf("  %-28s regs %d, local %zu B/thread, max threads %d\n", name, a.numRegs, a.localSizeBytes,
           a.maxThreadsPerBlock);
}

/* 5. The by-value reproducer. bv_t: 64 words; "zero" is words 32..39 all 0
 * (as the zz of an Fp2 point). bv_step(p, q): q zero -> p; p zero -> q;
 * else p with word 0 xored with q's. */
struct alignas(16) bv_t {
    uint32_t w[64];
};
static G16_HD bool bv_zero(const bv_t &p) {
    uint32_t d = 0;
G16_UNROLL
    for (int i = 32; i < 40; i++)
        d |= p.w[i];
    return d == 0;
}
/* the shape of add_cold_val: q by value, t a local copy of *a, t = q on one branch */
G16_NOINLINE G16_HD_NI void bv_val(bv_t *a, bv_t q) {
    bv_t t = *a;
    if (!bv_zero(q)) {
        if (bv_zero(t))
            t = q;
        else
            t.w[0] ^= q.w[0];
    }
    *a = t;
}
/* the same with t = q word by word */
G16_NOINLINE G16_HD_NI void bv_val_words(bv_t *a, bv_t q) {
    bv_t t = *a;
    if (!bv_zero(q)) {
        if (bv_zero(t)) {
            for (int i = 0; i < 64; i++)
                t.w[i] = q.w[i];
        } else
            t.w[0] ^= q.w[0];
    }
    *a = t;
}
/* the same with q by const reference */
G16_NOINLINE G16_HD_NI void bv_ref(bv_t *a, const bv_t &q) {
    bv_t t = *a;
    if (!bv_zero(q)) {
        if (bv_zero(t))
            t = q;
        else
            t.w[0] ^= q.w[0];
    }
    *a = t;
}
/* q a kernel parameter (no device function) */
__global__ void bv_param_kernel(bv_t *a, uint32_t n, bv_t q) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    bv_t t = a[i];
    if (!bv_zero(q)) {
        if (bv_zero(t))
            t = q;
        else
            t.w[0] ^= q.w[0];
    }
    a[i] = t;
}
/* form 0: bv_val, 1: bv_val_words, 2: bv_ref; a[i] op= q[i] through a
 * local; one kernel per form (one call site each) */
template <int FORM> __global__ void bv_call_kernel(bv_t *a, const bv_t *q, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    bv_t t = a[i];
    if (FORM == 0)
        bv_val(&t, q[i]);
    else if (FORM == 1)
        bv_val_words(&t, q[i]);
    else
        bv_ref(&t, q[i]);
    a[i] = t;
}
static bv_t bv_rand(bool zero) {
    bv_t p;
    for (int i = 0; i < 64; i++)
        p.w[i] = rnd();
    if (zero)
        for (int i = 32; i < 40; i++)
            p.w[i] = 0;
    return p;
}
/* Runs the four forms on n = 256 pairs (zero patterns in all four
 * combinations); prints one line; returns how many forms differ. */
static int bv_run() {
    const uint32_t n = 256;
    std::vector<bv_t> a(n), q(n);
    for (uint32_t i = 0; i < n; i++)
        a[i] = bv_rand(i % 4 == 1 || i % 4 == 3), q[i] = bv_rand(i % 4 >= 2);
    bv_t *d_a, *d_q;
    CK(cudaMalloc(&d_a, n * sizeof(bv_t)));
    CK(cudaMalloc(&d_q, n * sizeof(bv_t)));
    CK(cudaMemcpy(d_q, q.data(), n * sizeof(bv_t), cudaMemcpyHostToDevice));
    static const char *names[] = {"by value", "by value, copy by words", "by const ref", "kernel parameter"};
    int bad_forms = 0;
    printf("  by-value reproducer (part 5):");
    for (int form = 0; form < 4; form++) {
        std::vector<bv_t> want = a, got(n);
        size_t bad = 0;
        CK(cudaMemcpy(d_a, a.data(), n * sizeof(bv_t), cudaMemcpyHostToDevice));
        if (form < 3) {
            if (form == 0)
                bv_call_kernel<0><<<blocks_for(n, 128), 128>>>(d_a, d_q, n);
            else if (form == 1)
                bv_call_kernel<1><<<blocks_for(n, 128), 128>>>(d_a, d_q, n);
            else
                bv_call_kernel<2><<<blocks_for(n, 128), 128>>>(d_a, d_q, n);
            for (uint32_t i = 0; i < n; i++)
                bv_ref(&want[i], q[i]);
        } else { /* one launch per q pattern: q zero, q not zero */
            for (int z = 0; z < 2; z++) {
                bv_param_kernel<<<blocks_for(n, 128), 128>>>(d_a, n, q[z ? 0 : 2]);
                CK(cudaGetLastError());
                for (uint32_t i = 0; i < n; i++)
                    bv_ref(&want[i], q[z ? 0 : 2]);
            }
        }
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), d_a, n * sizeof(bv_t), cudaMemcpyDeviceToHost));
        for (uint32_t i = 0; i < n; i++)
            bad += memcmp(&got[i], &want[i], sizeof(bv_t)) != 0;
        printf(" %s %s%s", names[form], bad ? "DIFFERS" : "equal", form < 3 ? "," : "\n");
        bad_forms += bad != 0;
    }
    cudaFree(d_a), cudaFree(d_q);
    return bad_forms;
}

int main() {
    const char *stack = getenv("ADDCOLD_STACK");
    if (stack) {
        size_t before = 0;
        CK(cudaDeviceGetLimit(&before, cudaLimitStackSize));
        CK(cudaDeviceSetLimit(cudaLimitStackSize, (size_t)atol(stack)));
        size_t after = 0;
        CK(cudaDeviceGetLimit(&after, cudaLimitStackSize));
        printf("addcold: stack limit %zu -> %zu bytes\n", before, after);
    }
    printf("addcold: %s, %s\n", field_name, variant);
    print_attr("msm_chunk_kernel", msm_chunk_kernel<E>);
    print_attr("msm_merge_kernel", msm_merge_kernel<E>);
    print_attr("msm_tree_kernel", msm_tree_kernel<E>);

    /* 1. msm_chunk_kernel: T chunks of C buckets. */
    const uint32_t C = 8, T = 5 * 64;
    std::vector<P> b((size_t)T * C, P::inf());
    for (uint32_t id = 0; id < T; id++) {
        P *c = &b[(size_t)id * C];
        switch (id % 5) {
        case 0:
            c[C - 1] = rand_point();
            break;
        case 1:
            break;
        case 2: {
            P q = rand_point();
            for (uint32_t i = 0; i < C; i++)
                c[i] = q;
            break;
        }
        case 3:
            for (uint32_t i = 0; i < C; i++)
                c[i] = rand_point();
            c[3] = c[4].neg();
            break;
        default:
            for (uint32_t i = 0; i < C; i++)
                c[i] = rand_point();
        }
    }
    std::vector<P> want(2 * (size_t)T), got(2 * (size_t)T), bh = b;
    for (uint32_t id = 0; id < T; id++) { /* the kernel's loop, on the host, with the inline add */
        P *c = &bh[(size_t)id * C];
        P R = P::inf(), W = P::inf();
        if constexpr (red_from_mem<E>) {
            for (int i = (int)C - 1; i >= 0; i--) {
                R.add(c[i]);
                c[i] = R;
            }
            for (int i = (int)C - 1; i >= 0; i--)
                W.add(c[i]);
        } else {
            for (int s = 2 * (int)C - 1; s >= 0; s--) {
                if (s & 1)
                    R.add(c[s >> 1]);
                else
                    W.add(R);
            }
        }
        want[2 * id] = R;
        want[2 * id + 1] = W;
    }
    P *d_b, *d_red;
    CK(cudaMalloc(&d_b, b.size() * sizeof(P)));
    CK(cudaMalloc(&d_red, want.size() * sizeof(P)));
    CK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(P), cudaMemcpyHostToDevice));
    msm_chunk_kernel<E><<<blocks_for(T, MSM_THREADS), MSM_THREADS>>>(d_b, T, C, d_red);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), d_red, got.size() * sizeof(P), cudaMemcpyDeviceToHost));
    compare("msm_chunk_kernel (R, W)", got, want);

    /* 2. msm_merge_kernel over the (R, W) pairs: one window of T chunks,
     * pairs (half = 1, lg_left = 3: Rb doubled 3 times). Equal halves (the
     * chunk-2 and chunk-0 pairs) double again. */
    uint32_t Tm = 256; /* a power of two */
    std::vector<P> red(2 * (size_t)Tm);
    for (uint32_t i = 0; i < Tm; i++) {
        red[2 * i] = want[2 * (i % T)];
        red[2 * i + 1] = want[2 * (i % T) + 1];
        if (i % 4 == 1) /* b == a: the adds double */
            red[2 * i] = red[2 * i - 2], red[2 * i + 1] = red[2 * i - 1];
    }
    std::vector<P> rh = red, rg(red.size());
    for (uint32_t i = 0; i < Tm / 2; i++) {
        size_t ia = 2 * (size_t)i, ib = ia + 1;
        P Ra = rh[2 * ia], Wa = rh[2 * ia + 1], Rb = rh[2 * ib], Wb = rh[2 * ib + 1];
        P Rs = Rb;
        for (int d = 0; d < 3; d++)
            Rs = Rs.dbl();
        P x = Wa;
        x.add(Wb);
        x.add(Rs);
        rh[2 * ia + 1] = x;
        x = Ra;
        x.add(Rb);
        rh[2 * ia] = x;
    }
    P *d_m;
    CK(cudaMalloc(&d_m, red.size() * sizeof(P)));
    CK(cudaMemcpy(d_m, red.data(), red.size() * sizeof(P), cudaMemcpyHostToDevice));
    msm_merge_kernel<E><<<blocks_for(Tm / 2, MSM_THREADS), MSM_THREADS>>>(d_m, 1, Tm, 1, 3);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(rg.data(), d_m, rg.size() * sizeof(P), cudaMemcpyDeviceToHost));
    compare("msm_merge_kernel", rg, rh);

    /* 3. msm_tree_kernel: one level over 2 * 300 + 1 nodes, equal pairs
     * (doubling), opposite pairs, infinity, an odd last node. */
    uint32_t size_prev = 601, size_cur = (size_prev + 1) / 2;
    std::vector<P> tree(size_prev + size_cur, P::inf());
    for (uint32_t i = 0; i < size_prev; i++)
        tree[i] = rand_point();
    for (uint32_t i = 0; i + 1 < size_prev; i += 2) {
        if (i % 8 == 0)
            tree[i + 1] = tree[i];
        else if (i % 8 == 2)
            tree[i + 1] = tree[i].neg();
        else if (i % 8 == 4)
            tree[i] = P::inf();
    }
    std::vector<P> th(tree), tg(tree.size());
    for (uint32_t i = 0; i < size_cur; i++) {
        P a = th[2 * i];
        if (2 * i + 1 < size_prev)
            a.add(th[2 * i + 1]);
        th[size_prev + i] = a;
    }
    P *d_t;
    CK(cudaMalloc(&d_t, tree.size() * sizeof(P)));
    CK(cudaMemcpy(d_t, tree.data(), tree.size() * sizeof(P), cudaMemcpyHostToDevice));
    msm_tree_kernel<E><<<blocks_for(size_cur, MSM_THREADS), MSM_THREADS>>>(d_t, 0, size_prev, size_prev, size_cur);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(tg.data(), d_t, tg.size() * sizeof(P), cudaMemcpyDeviceToHost));
    compare("msm_tree_kernel", tg, th);
    { /* how many sums equal the second operand alone (a = b instead of a += b:
       * what add_cold_val's PTX computes under nvcc 13.0 -O2/-O3, part 5) */
        size_t as_q = 0, real = 0;
        for (uint32_t i = 0; i < size_cur; i++) {
            if (2 * i + 1 >= size_prev)
                continue;
            real++;
            as_q += memcmp(&tg[size_prev + i], &tree[2 * i + 1], sizeof(P)) == 0;
        }
        printf("  %-28s %zu of %zu sums equal the second operand (a = b)\n", "msm_tree_kernel model", as_q, real);
    }

    /* 4. Density compaction (block scans in shared memory: racecheck's
     * part): 3 blocks of 1024 words. */
    size_t nbits = 3 * 1024 * 32 - 5, words = nbits / 32 + 1;
    unsigned db = blocks_for(words, 1024);
    std::vector<uint32_t> w(words), cls(2 * db + 2), pos_want;
    for (size_t i = 0; i < words; i++)
        w[i] = rnd() & rnd();
    w[words - 1] = 0;
    for (size_t i = 0; i < nbits; i++)
        if ((w[i / 32] >> (i % 32)) & 1)
            pos_want.push_back((uint32_t)i);
    uint32_t *d_w, *d_cls, *d_pos, *d_cnt;
    CK(cudaMalloc(&d_w, words * 4));
    CK(cudaMalloc(&d_cls, cls.size() * 4));
    CK(cudaMalloc(&d_pos, (pos_want.size() + 1) * 4));
    CK(cudaMalloc(&d_cnt, 16));
    CK(cudaMemset(d_cnt, 0, 16));
    CK(cudaMemcpy(d_w, w.data(), words * 4, cudaMemcpyHostToDevice));
    msm_density_count_kernel<<<db, 1024>>>(d_w, words, nbits, d_cls);
    msm_class_scan_kernel<<<1, 1024>>>(d_cls, db, d_cnt + 2);
    msm_density_scatter_kernel<<<db, 1024>>>(d_w, words, nbits, d_cls, (uint32_t)pos_want.size(), d_pos);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<uint32_t> pos_got(pos_want.size());
    uint32_t cnt[4];
    CK(cudaMemcpy(pos_got.data(), d_pos, pos_got.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cnt, d_cnt, 16, cudaMemcpyDeviceToHost));
    int dens_ok = cnt[2] == pos_want.size() && pos_got == pos_want;
    printf("  %-28s %zu set bits, %s\n", "density compaction", pos_want.size(), dens_ok ? "equal" : "DIFFERENT");
    mismatches += !dens_ok;

    cudaFree(d_b), cudaFree(d_red), cudaFree(d_m), cudaFree(d_t);
    cudaFree(d_w), cudaFree(d_cls), cudaFree(d_pos), cudaFree(d_cnt);
    int bv_bad = bv_run();
    printf("addcold: by-value reproducer: %d of 4 forms differ\n", bv_bad);
    printf("addcold: %s\n", mismatches ? "MISMATCH" : "all equal to the host");
    return mismatches ? 1 : 0;
}
