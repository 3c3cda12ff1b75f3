#include "testutil.h"

#include "util/config.h"

#include <string.h>
#include <time.h>

int t_failures;
long t_checks;

uint64_t t_seed(const char *test_name) {
    const char *env = getenv("G16_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("%s: seed %llu (replay with G16_SEED=%llu)\n", test_name, (unsigned long long)seed,
           (unsigned long long)seed);
    return seed;
}

int t_done(const char *test_name) {
    printf("%s: %ld checks, %d failures\n", test_name, t_checks, t_failures);
    if (t_checks == 0) {
        printf("%s: no checks ran\n", test_name);
        return 1;
    }
    return t_failures ? 1 : 0;
}

void t_limbs_to_mpz(mpz_t z, const limb_t *l, size_t n) { mpz_import(z, n, -1, sizeof(limb_t), 0, 0, l); }

void t_mpz_to_limbs(limb_t *l, size_t n, const mpz_t z) {
    memset(l, 0, n * sizeof(limb_t));
    size_t count = 0;
    mpz_export(l, &count, -1, sizeof(limb_t), 0, 0, z);
}

char *t_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)sz + 1);
    if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[sz] = 0;
    fclose(f);
    if (len)
        *len = (size_t)sz;
    return buf;
}

const g16_config *t_env_config(void) {
    static g16_config cfg; /* test process state */
    static int done;
    if (!done) {
        g16_status st = {0};
        g16_config_init(&cfg);
        if (g16_config_from_env(&cfg, &st) != G16_OK) {
            fprintf(stderr, "%s\n", st.msg);
            exit(2);
        }
        done = 1;
    }
    return &cfg;
}
