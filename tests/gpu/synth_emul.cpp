/* Host emulation of the GPU synthesis (src/gpu/synth/synth.cuh) against the CPU's
 * (prove.c, groth16_stage_synth), without a GPU: synth.cuh's per-element
 * functions compiled with plain g++ run over every row of random synthetic
 * circuits (synth.h: dense / filecoin / sparse-b, both curves, several
 * sizes), and a, b, c must equal the CPU's bit for bit; the to-Montgomery
 * step must give back the witness. Also: a ws-only synthesis
 * (GROTH16_SYNTH_WS_ONLY) gives the same witness scalars, is flagged in the
 * work's buffers, and the CPU heavy stage refuses it.
 * Run by tests/test_gpu_synth_emul.sh, or by hand:
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/synth_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/se && /tmp/se
 * env: G16_SEED (replay), G16_SYNTH_EMUL_MAX_LOG (default 12). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
extern "C" {
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "util/ctx.h"
#include "util/util.h"
}
#include "gpu/synth/synth.cuh"
#include "emul_check.h"


static void hex(char *out, const void *p) { /* 32 bytes, most significant first */
    const uint8_t *b = (const uint8_t *)p;
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", b[31 - i]);
}

static const char *prof_name[] = {"dense", "filecoin", "sparse-b"};

template <class F>
static void run_case(g16_ctx *ctx, g16_curve curve, int log_n, synth_profile prof, uint64_t seed, const uint64_t r2v[4]) {
    char name[96];
    snprintf(name, sizeof name, "%s 2^%d %s seed %llu", g16_curve_name(curve), log_n, prof_name[prof],
             (unsigned long long)seed);
    synth_opts so = {curve, log_n, prof, 1, seed, NULL, NULL, NULL, NULL};
    g16_status st = {};
    g16_r1cs cs;
    g16_frvec wv;
    synth_stats ss;
    memset(&cs, 0, sizeof cs);
    memset(&wv, 0, sizeof wv);
    void *mem = NULL;
    size_t mem_len = 0;
    g16_key *key = NULL;
    g16_witness *wit = NULL;
    groth16_work *full = NULL, *wso = NULL;
    groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    o.backend = GROTH16_SETUP_CPU;
    if (synth_generate_mem(&so, &cs, &wv, &ss, &st) ||
        groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &mem, &mem_len, NULL, &st)) {
        EXPECT(0, "%s: circuit set-up: %s", name, st.msg);
        g16_r1cs_free(&cs);
        g16_frvec_free(&wv);
        return;
    }
    g16_r1cs_free(&cs);
    std::vector<F> wmont(wv.n);
    memcpy(wmont.data(), wv.raw, wv.n * 32);
    if (groth16_key_load_mem(ctx, &key, name, mem, mem_len, G16_KEY_TRUSTED, &st) ||
        groth16_witness_from_frvec(&wit, &wv, &st) || groth16_work_create(ctx, &full, key, &st) ||
        groth16_work_create(ctx, &wso, key, &st)) {
        EXPECT(0, "%s: key/witness/work: %s", name, st.msg);
        goto out;
    }
    {
        groth16_timings tm = {};
        groth16_work_bufs bf, bw;
        if (groth16_stage_synth(ctx, full, key, wit, &tm, &st) || groth16_work_buffers(full, key, &bf, &st) ||
            groth16_stage_synth_ex(ctx, wso, key, wit, GROTH16_SYNTH_WS_ONLY, &tm, &st) ||
            groth16_work_buffers(wso, key, &bw, &st)) {
            EXPECT(0, "%s: synthesis: %s", name, st.msg);
            goto out;
        }
        EXPECT(!bf.ws_only && bw.ws_only, "%s: ws_only flags %d %d", name, bf.ws_only, bw.ws_only);
        EXPECT(!memcmp(bf.ws, bw.ws, (size_t)bf.nv * sizeof(g16_scalar)), "%s: ws-only scalars differ", name);

        groth16_csr csr;
        groth16_key_csr(key, &csr);
        EXPECT(csr.n == bf.n && csr.row[0][0] == 0 && csr.row[0][csr.n] == csr.row[1][0] &&
                   csr.row[1][csr.n] == csr.nnz,
               "%s: CSR shape (n %u, nnz %u)", name, csr.n, csr.nnz);
        F r2;
        for (int i = 0; i < 4; i++) {
            r2.l[2 * i] = (uint32_t)r2v[i];
            r2.l[2 * i + 1] = (uint32_t)(r2v[i] >> 32);
        }
        /* to_mont: back to the witness (Montgomery) from its canonical scalars. */
        std::vector<F> w(bf.nv);
        const F *ws = (const F *)(const void *)bw.ws;
        size_t wbad = 0, wfirst = 0;
        for (uint32_t i = 0; i < bf.nv; i++) {
            w[i] = g16gpu::synth_to_mont<F>(ws[i], r2);
            if (w[i] != wmont[i] && wbad++ == 0)
                wfirst = i;
        }
        if (wbad) {
            char h1[65], h2[65];
            hex(h1, &wmont[wfirst]);
            hex(h2, &w[wfirst]);
            EXPECT(0, "%s: to_mont differs at %zu of %u wires, first %zu: witness %s emul %s", name, wbad, bf.nv,
                   wfirst, h1, h2);
        }
        /* The rows. */
        std::vector<F> a(bf.n), b(bf.n), c(bf.n);
        for (uint32_t r = 0; r < csr.n; r++)
            g16gpu::synth_row<F>(r, csr.row[0], csr.row[1], csr.signal, (const F *)csr.coef, w.data(), a.data(),
                                 b.data(), c.data());
        const std::vector<F> *emu[3] = {&a, &b, &c};
        for (int m = 0; m < 3; m++) {
            const F *cpu = (const F *)bf.abc[m];
            size_t bad = 0, first = 0;
            for (uint32_t r = 0; r < bf.n; r++)
                if ((*emu[m])[r] != cpu[r] && bad++ == 0)
                    first = r;
            char h1[65] = "", h2[65] = "";
            if (bad) {
                hex(h1, &cpu[first]);
                hex(h2, &(*emu[m])[first]);
            }
            EXPECT(bad == 0, "%s: %c differs at %zu of %u rows, first %zu: cpu %s emul %s", name, "abc"[m], bad,
                   bf.n, first, h1, h2);
        }
        /* The values are not trivially zero (the test can fail). */
        size_t nz = 0;
        for (uint32_t r = 0; r < bf.n; r++)
            nz += !a[r].is_zero();
        EXPECT(nz > 0, "%s: %zu nonzero rows of a (of %u)", name, nz, bf.n);

        /* The CPU heavy stage refuses a ws-only work; completed on the CPU,
         * it holds the full synthesis's a, b, c and proves. */
        groth16_msms m;
        memset(&m, 0, sizeof m);
        g16_err e = groth16_stage_heavy(ctx, &m, wso, key, &tm, &st);
        EXPECT(e == G16_ERR_INTERNAL, "%s: CPU heavy on a ws-only work gave %s", name, g16_err_str(e));
        groth16_msms_clear(&m);
        e = groth16_work_synth_complete(ctx, wso, key, &st);
        EXPECT(e == G16_OK, "%s: synth_complete: %s", name, st.msg);
        groth16_work_bufs bc;
        if (!e && groth16_work_buffers(wso, key, &bc, &st) == G16_OK) {
            EXPECT(!bc.ws_only, "%s: completed work still ws-only", name);
            for (int k = 0; k < 3; k++)
                EXPECT(!memcmp(bc.abc[k], bf.abc[k], (size_t)bf.n * 32), "%s: completed %c differs", name, "abc"[k]);
            EXPECT(!memcmp(bc.ws, bf.ws, (size_t)bf.nv * sizeof(g16_scalar)), "%s: completed ws differ", name);
            e = groth16_work_synth_complete(ctx, wso, key, &st);
            EXPECT(e == G16_ERR_INTERNAL, "%s: second synth_complete gave %s", name, g16_err_str(e));
            g16_result *res = NULL;
            e = groth16_stage_heavy(ctx, &m, wso, key, &tm, &st);
            if (!e)
                e = groth16_stage_finalize(ctx, &res, key, &m, NULL, NULL, &tm, &st);
            if (!e)
                e = groth16_result_verify(key, res, &st);
            EXPECT(e == G16_OK, "%s: proof from a completed synthesis: %s", name, st.msg);
            g16_result_free(res);
        }
        EXPECT(groth16_gpu_synth_flags(NULL) == 0 && !groth16_gpu_key_synth(NULL), "%s: synth flags without a key",
               name);
        EXPECT(groth16_gpu_key_bytes(key) > groth16_gpu_key_bytes_ex(key, 0), "%s: key bytes", name);

        /* A scalars-only working area: refuses a full synthesis, gives the
         * same scalars with a ws-only one, and is smaller. */
        groth16_work *wo = NULL;
        if (groth16_work_create_ex(ctx, &wo, key, GROTH16_WORK_WS_ONLY, &st) == G16_OK) {
            groth16_work_bufs bo;
            e = groth16_stage_synth(ctx, wo, key, wit, &tm, &st);
            EXPECT(e == G16_ERR_INTERNAL, "%s: full synthesis on a WS_ONLY work gave %s", name, g16_err_str(e));
            e = groth16_stage_synth_ex(ctx, wo, key, wit, GROTH16_SYNTH_WS_ONLY, &tm, &st);
            EXPECT(e == G16_OK, "%s: ws-only synthesis on a WS_ONLY work: %s", name, st.msg);
            if (!e && groth16_work_buffers(wo, key, &bo, &st) == G16_OK) {
                EXPECT(bo.ws_only && !bo.abc[0] && !memcmp(bo.ws, bf.ws, (size_t)bf.nv * sizeof(g16_scalar)),
                       "%s: WS_ONLY work's scalars", name);
                memset(&m, 0, sizeof m);
                groth16_work_consume(wo, &m, 0);
                groth16_msms_clear(&m);
            }
            EXPECT(groth16_work_bytes_ex(ctx, key, GROTH16_WORK_WS_ONLY) <
                       groth16_work_bytes_ex(ctx, key, GROTH16_WORK_NO_CPU_HEAVY),
                   "%s: WS_ONLY bytes", name);
            groth16_work_free(wo);
        } else {
            EXPECT(0, "%s: WS_ONLY work: %s", name, st.msg);
        }
        printf("  %-48s %u rows, %u entries: ok so far (%d failures)\n", name, csr.n, csr.nnz, fails);
    }
out:
    groth16_work_free(full);
    groth16_work_free(wso);
    g16_witness_free(wit);
    g16_key_free(key);
    if (mem)
        groth16_setup_mem_free(mem, mem_len);
    g16_frvec_free(&wv);
}

int main() {
    const char *env = getenv("G16_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("synth_emul: seed %llu (replay with G16_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
    int max_log = getenv("G16_SYNTH_EMUL_MAX_LOG") ? atoi(getenv("G16_SYNTH_EMUL_MAX_LOG")) : 12;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 1;
    static const uint64_t bn_r2[4] = BN254_FR_R2, bls_r2[4] = BLS381_FR_R2;
    static const int logs[] = {4, 8, 12, 14};
    for (int li = 0; li < 4; li++) {
        if (logs[li] > max_log)
            continue;
        for (int p = 0; p < 3; p++) {
            uint64_t ks = seed * 0x9e3779b97f4a7c15ull + (uint64_t)(logs[li] * 10 + p);
            run_case<g16gpu::bn254_fr>(ctx, G16_CURVE_BN254, logs[li], (synth_profile)p, ks, bn_r2);
            run_case<g16gpu::bls381_fr>(ctx, G16_CURVE_BLS12_381, logs[li], (synth_profile)p, ks ^ 0x5bd1e995ull, bls_r2);
        }
    }
    g16_ctx_destroy(ctx);
    printf("synth_emul: %ld checks, %d failures\n", checks, fails);
    return fails ? 1 : 0;
}
