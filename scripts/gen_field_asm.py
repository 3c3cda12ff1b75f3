#!/usr/bin/env python3
"""Generates src/field/limbs_x86.h: x86-64 Montgomery multiplication and
squaring with MULX/ADCX/ADOX (BMI2 + ADX) as GCC extended inline asm.

    python3 scripts/gen_field_asm.py > src/field/limbs_x86.h

The asm is fully unrolled for a fixed limb count; a generator keeps the
register rotation of the CIOS loop readable (see the comments it emits).

Multiplication (CIOS, Koc-Acar-Kaliski 1996) keeps t in n+1 registers
t_0..t_n and does, for each word b_i of b:
  A: t += a * b_i           two carry chains: low halves through OF (ADOX),
                            high halves through CF (ADCX), so the n MULX
                            products are independent of each other;
  B: m = t_0 * n0 mod 2^64; t = (t + m*p) / 2^64
                            again two chains; t_0 becomes 0 and its register
                            is renamed to be the new (zero) top word t_n.
With t < 2p before an iteration, t + a*b_i + m*p <= 2p*2^64 - 2^64, so t
stays below 2p < 2^(64n) (p < 2^(64n-1)); no extra carry word is needed.
The result (< 2p) is reduced once with a SUB/SBB chain and CMOVs: constant
time, no branches.

Squaring (4 limbs only; 6 limbs would need 17 registers) computes the full
512-bit square (off-diagonal products once, doubled, plus the diagonal:
10 MULX instead of 16), then REDC of the low half only:
  U = (T_lo + M*p) / R <= p  (M < R chosen so the low n words cancel),
  a^2 / R = U + T_hi  (mod p),  with U + T_hi < 2p,
then the same final conditional subtraction.

Each routine reads p, n0 and a zero word from one constant block
pm = {p_0..p_{n-1}, n0, 0} (one base register for all three).
"""

import sys


class Asm:
    def __init__(self):
        self.lines = []

    def __call__(self, s):
        self.lines.append(s)


def R(name):
    return "%[" + name + "]"


def mem(ptr, idx):
    return f"{8 * idx}({R(ptr)})"


def gen_mul(n):
    """Returns (asm lines, final logical->physical register map)."""
    a = Asm()
    T = [f"t{k}" for k in range(n + 1)]
    log = list(range(n + 1))  # log[j] = physical index of logical word t_j

    def t(j):
        return R(T[log[j]])

    for i in range(n):
        a(f"/* t += a * b[{i}] */")
        a(f"movq {mem('b', i)}, %%rdx")
        if i == 0:
            # t = 0: a single carry chain suffices.
            a(f"mulxq {mem('a', 0)}, {t(0)}, {t(1)}")
            for j in range(1, n):
                a(f"mulxq {mem('a', j)}, {R('lo')}, {t(j + 1)}")
                a(f"{'addq' if j == 1 else 'adcq'} {R('lo')}, {t(j)}")
            a(f"adcq $0, {t(n)}")
        else:
            a(f"xorl %k[lo], %k[lo]")  # clears CF and OF
            for j in range(n):
                a(f"mulxq {mem('a', j)}, {R('lo')}, {R('hi')}")
                a(f"adoxq {R('lo')}, {t(j)}")
                a(f"adcxq {R('hi')}, {t(j + 1)}")
            a(f"adoxq {mem('pm', n + 1)}, {t(n)}")  # + OF (memory zero)
        a(f"/* m = t0 * n0; t = (t + m * p) / 2^64 */")
        a(f"movq {t(0)}, %%rdx")
        a(f"imulq {mem('pm', n)}, %%rdx")
        a(f"xorl %k[lo], %k[lo]")
        for j in range(n):
            a(f"mulxq {mem('pm', j)}, {R('lo')}, {R('hi')}")
            a(f"adoxq {R('lo')}, {t(j)}")
            a(f"adcxq {R('hi')}, {t(j + 1)}")
        a(f"adoxq {t(0)}, {t(n)}")  # t0 is now 0: + OF
        log = log[1:] + log[:1]
    return a.lines, log


def gen_final_sub(a, n, words, spare):
    """words: the n registers holding x < 2p; spare: n scratch registers.
    words = x - p if x >= p else x."""
    a(f"/* r = t >= p ? t - p : t */")
    for j in range(n):
        a(f"movq {words[j]}, {spare[j]}")
        a(f"{'subq' if j == 0 else 'sbbq'} {mem('pm', j)}, {spare[j]}")
    for j in range(n):
        a(f"cmovncq {spare[j]}, {words[j]}")


def emit_mul(n, out):
    lines, log = gen_mul(n)
    a = Asm()
    a.lines = lines
    words = [R(f"t{log[j]}") for j in range(n)]
    spare = [R("lo"), R("hi"), "%%rdx", R(f"t{log[n]}"), R("a"), R("b")][:n]
    gen_final_sub(a, n, words, spare)
    outs = [f'[t{k}] "=&r"(t{k})' for k in range(n + 1)] + ['[lo] "=&r"(lo)', '[hi] "=&r"(hi)', '"=&d"(dx)']
    ins = ['[pm] "r"(pm)']
    if n <= 4:
        # Enough spare registers: a and b stay intact and their limbs are
        # declared as memory inputs.
        ins += ['[a] "r"(ap)', '[b] "r"(bp)', f'"m"(*(const limb_t(*)[{n}])a)', f'"m"(*(const limb_t(*)[{n}])b)']
        clob = '"cc"'
    else:
        # The final subtraction needs a and b's registers; a separate base
        # register for memory operands would exceed the 14 registers left
        # in a frame-pointer (-O0) build, hence the memory clobber.
        outs += ['[a] "+&r"(ap)', '[b] "+&r"(bp)']
        clob = '"cc", "memory"'
    outs = ", ".join(outs)
    ins = ", ".join(ins)
    out.append(f"""/* r = a * b * 2^-{64 * n} mod p ({n} limbs), pm = {{p, n0, 0}}. */
static inline void mont_mul_adx_{n}(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *pm) {{
    limb_t {', '.join(f't{k}' for k in range(n + 1))}, lo, hi, dx;
    const limb_t *ap = a, *bp = b;
    __asm__ __inline__(""")
    for l in a.lines:
        out.append(f'        "{l}\\n\\t"' if not l.startswith("/*") else f"        {l}")
    out.append(f"        : {outs}")
    out.append(f"        : {ins}")
    out.append(f'        : {clob});')
    out.append("    (void)dx;")
    for j in range(n):
        out.append(f"    r[{j}] = t{log[j]};")
    out.append("}\n")


def emit_sqr4(out):
    n = 4
    a = Asm()
    T = [R(f"t{k}") for k in range(8)]
    lo, hi, A = R("lo"), R("hi"), R("a")
    a("/* off-diagonal products a_i*a_j, i < j, into t1..t6 */")
    a(f"movq {mem('a', 0)}, %%rdx")
    a(f"mulxq {mem('a', 1)}, {T[1]}, {T[2]}")
    a(f"mulxq {mem('a', 2)}, {lo}, {T[3]}")
    a(f"addq {lo}, {T[2]}")
    a(f"mulxq {mem('a', 3)}, {lo}, {T[4]}")
    a(f"adcq {lo}, {T[3]}")
    a(f"adcq $0, {T[4]}")
    a(f"movq {mem('a', 1)}, %%rdx")
    a(f"xorl %k[t0], %k[t0]")  # t0 = 0 (used as zero) and CF = OF = 0
    a(f"mulxq {mem('a', 2)}, {lo}, {hi}")
    a(f"adoxq {lo}, {T[3]}")
    a(f"adcxq {hi}, {T[4]}")
    a(f"mulxq {mem('a', 3)}, {lo}, {T[5]}")
    a(f"adoxq {lo}, {T[4]}")
    a(f"adcxq {T[0]}, {T[5]}")
    a(f"adoxq {T[0]}, {T[5]}")
    a(f"movq {mem('a', 2)}, %%rdx")
    a(f"mulxq {mem('a', 3)}, {lo}, {T[6]}")
    a(f"addq {lo}, {T[5]}")
    a(f"adcq $0, {T[6]}")
    a("/* t = 2*t + sum a_i^2 * 2^(128 i): doubling through CF, squares through OF */")
    a(f"movq {mem('a', 0)}, %%rdx")
    a(f"mulxq %%rdx, {T[0]}, {hi}")
    a(f"xorl %k[t7], %k[t7]")
    a(f"adcxq {T[1]}, {T[1]}")
    a(f"adoxq {hi}, {T[1]}")
    for i in range(1, n):
        a(f"movq {mem('a', i)}, %%rdx")
        a(f"mulxq %%rdx, {lo}, {hi}")
        a(f"adcxq {T[2 * i]}, {T[2 * i]}")
        a(f"adoxq {lo}, {T[2 * i]}")
        a(f"adcxq {T[2 * i + 1]}, {T[2 * i + 1]}")
        a(f"adoxq {hi}, {T[2 * i + 1]}")
    a("/* U = REDC(t0..t3): n steps of t = (t + m*p) / 2^64 with a zero top word */")
    a(f"xorl %k[a], %k[a]")
    regs = [T[0], T[1], T[2], T[3], A]
    log = list(range(n + 1))
    for i in range(n):
        def t(j):
            return regs[log[j]]
        a(f"movq {t(0)}, %%rdx")
        a(f"imulq {mem('pm', n)}, %%rdx")
        a(f"xorl %k[lo], %k[lo]")
        for j in range(n):
            a(f"mulxq {mem('pm', j)}, {lo}, {hi}")
            a(f"adoxq {lo}, {t(j)}")
            a(f"adcxq {hi}, {t(j + 1)}")
        a(f"adoxq {t(0)}, {t(n)}")
        log = log[1:] + log[:1]
    u = [regs[log[j]] for j in range(n)]
    a("/* t_hi += U (< 2p) */")
    for j in range(n):
        a(f"{'addq' if j == 0 else 'adcq'} {u[j]}, {T[4 + j]}")
    gen_final_sub(a, n, T[4:8], u)
    outs = ", ".join([f'[t{k}] "=&r"(t{k})' for k in range(8)] +
                     ['[lo] "=&r"(lo)', '[hi] "=&r"(hi)', '"=&d"(dx)', '[a] "+&r"(ap)'])
    ins = ", ".join(['[pm] "r"(pm)', '"m"(*(const limb_t(*)[4])a)'])
    out.append("""/* r = a^2 * 2^-256 mod p (4 limbs), pm = {p, n0, 0}. */
static inline void mont_sqr_adx_4(limb_t *r, const limb_t *a, const limb_t *pm) {
    limb_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, dx;
    const limb_t *ap = a;
    __asm__ __inline__(""")
    for l in a.lines:
        out.append(f'        "{l}\\n\\t"' if not l.startswith("/*") else f"        {l}")
    out.append(f"        : {outs}")
    out.append(f"        : {ins}")
    out.append(f'        : "cc");')
    out.append("    (void)dx;")
    for j in range(n):
        out.append(f"    r[{j}] = t{4 + j};")
    out.append("}\n")


def emit_addsub(n, op, out):
    """Modular addition / subtraction (baseline x86-64: ADD/ADC, SUB/SBB,
    CMOV; no dispatch needed). Inputs < p, output < p, constant time.
    add: t = a + b (< 2p, no carry out since p < 2^(64n-1)); s = t - p;
         r = borrow ? t : s.
    sub: t = a - b; r = t + (borrow ? p : 0), the addend chosen by CMOV
         from memory (the load always happens)."""
    a = Asm()
    T = [R(f"t{k}") for k in range(n)]
    # scratch: s0..s(n-1) for n <= 4; for n = 6, s0..s3 plus the a and b
    # pointer registers once free (15 registers would be too many at -O0)
    ns = n if n <= 4 else n - 2
    S = [R(f"s{k}") for k in range(ns)] + ([] if n <= 4 else [R("a"), R("b")])
    if op == "add":
        a("/* t = a + b */")
        for j in range(n):
            a(f"movq {mem('a', j)}, {T[j]}")
        for j in range(n):
            a(f"{'addq' if j == 0 else 'adcq'} {mem('b', j)}, {T[j]}")
        gen_final_sub(a, n, T, S)
    else:
        a("/* t = a - b; t += borrow ? p : 0 */")
        for j in range(n):
            a(f"movq {mem('a', j)}, {T[j]}")
        for j in range(n):
            a(f"{'subq' if j == 0 else 'sbbq'} {mem('b', j)}, {T[j]}")
        for j in range(n):
            a(f"movl $0, %k{S[j][1:]}")
            a(f"cmovcq {mem('pm', j)}, {S[j]}")
        for j in range(n):
            a(f"{'addq' if j == 0 else 'adcq'} {S[j]}, {T[j]}")
    outs = [f'[t{k}] "=&r"(t{k})' for k in range(n)] + [f'[s{k}] "=&r"(s{k})' for k in range(ns)]
    ins = ['[pm] "r"(pm)']
    if n <= 4:
        # a and b stay intact; their limbs are declared as memory inputs.
        ins += ['[a] "r"(ap)', '[b] "r"(bp)', f'"m"(*(const limb_t(*)[{n}])a)', f'"m"(*(const limb_t(*)[{n}])b)']
        clob = '"cc"'
    else:
        # a and b are clobbered (scratch), so their limbs cannot be declared
        # as memory inputs without another base register: memory clobber.
        outs += ['[a] "+&r"(ap)', '[b] "+&r"(bp)']
        clob = '"cc", "memory"'
    out.append(f"""/* r = a {'+' if op == 'add' else '-'} b mod p ({n} limbs), pm = {{p, n0, 0}}. */
static inline void mod_{op}_x86_{n}(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *pm) {{
    limb_t {', '.join([f't{k}' for k in range(n)] + [f's{k}' for k in range(ns)])};
    const limb_t *ap = a, *bp = b;
    __asm__ __inline__(""")
    for l in a.lines:
        out.append(f'        "{l}\\n\\t"' if not l.startswith("/*") else f"        {l}")
    out.append(f"        : {', '.join(outs)}")
    out.append(f"        : {', '.join(ins)}")
    out.append(f'        : {clob});')
    for j in range(ns):
        out.append(f"    (void)s{j};")
    for j in range(n):
        out.append(f"    r[{j}] = t{j};")
    out.append("}\n")


def emit_neg(n, out):
    """r = p - a if a != 0 else 0, constant time."""
    a = Asm()
    T = [R(f"t{k}") for k in range(n)]
    a("/* t = p - a; z = -(a != 0); r = t & z */")
    for j in range(n):
        a(f"movq {mem('pm', j)}, {T[j]}")
    for j in range(n):
        a(f"{'subq' if j == 0 else 'sbbq'} {mem('a', j)}, {T[j]}")
    a(f"movq {mem('a', 0)}, {R('z')}")
    for j in range(1, n):
        a(f"orq {mem('a', j)}, {R('z')}")
    a(f"negq {R('z')}")  # CF = (z != 0)
    a(f"sbbq {R('z')}, {R('z')}")
    for j in range(n):
        a(f"andq {R('z')}, {T[j]}")
    outs = [f'[t{k}] "=&r"(t{k})' for k in range(n)] + ['[z] "=&r"(z)']
    ins = ['[pm] "r"(pm)', '[a] "r"(a)', f'"m"(*(const limb_t(*)[{n}])a)']
    out.append(f"""/* r = -a mod p ({n} limbs), pm = {{p, n0, 0}}. */
static inline void mod_neg_x86_{n}(limb_t *r, const limb_t *a, const limb_t *pm) {{
    limb_t {', '.join([f't{k}' for k in range(n)])}, z;
    __asm__ __inline__(""")
    for l in a.lines:
        out.append(f'        "{l}\\n\\t"' if not l.startswith("/*") else f"        {l}")
    out.append(f"        : {', '.join(outs)}")
    out.append(f"        : {', '.join(ins)}")
    out.append(f'        : "cc");')
    out.append("    (void)z;")
    for j in range(n):
        out.append(f"    r[{j}] = t{j};")
    out.append("}\n")


def main():
    out = []
    out.append("""/* Generated by scripts/gen_field_asm.py. Do not edit.
 *
 * x86-64 Montgomery multiplication/squaring with MULX/ADCX/ADOX (needs BMI2
 * and ADX at run time: the caller checks g16_field_adx, see limbs.h).
 * Same contract as mont_mul() in limbs.h: inputs fully reduced, output fully
 * reduced, constant time; r may alias a or b. pm points to the constant
 * block {p_0..p_{n-1}, n0, 0}: static const data, never written, so it is
 * not declared as a memory input. The algorithm is described in the
 * generator.
 */
#ifndef G16_FIELD_LIMBS_X86_H
#define G16_FIELD_LIMBS_X86_H
""")
    emit_mul(4, out)
    emit_mul(6, out)
    emit_sqr4(out)
    for n in (4, 6):
        emit_addsub(n, "add", out)
        emit_addsub(n, "sub", out)
        emit_neg(n, out)
    out.append("#endif")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
