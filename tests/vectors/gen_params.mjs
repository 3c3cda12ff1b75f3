// Writes a bellperson-layout Groth16 key for a toy circuit over BLS12-381,
// computed with @noble/curves (pinned in tests/js) only, as an oracle
// independent of g16's C code:
//   params_toy.params  vk, then ic, h, l, a, b_g1, b_g2 (bellperson Parameters::write)
//   params_toy.vk      vk and ic alone (bellperson VerifyingKey::write)
//   params_toy.txt     every point's expected value (see the format below)
//   params_toy.proof   a valid proof for x = 3 (bellperson's 192-byte encoding)
//   params_toy.assignment  the partition for x = 3 as bellperson's prover hands
//                      it over (g16's .assignment file, docs/formats.md): the
//                      rows' values a_j = <A_j, w>, b_j, c_j (constraints, then
//                      one row per input), the inputs and aux, and the
//                      densities (a variable is in A or B iff a row names it)
//   params_toy.r1cs, params_toy.wtns  the same circuit and witness as circom
//                      files (wires: one, out | x, x2, x3, t; the 4 constraints
//                      without bellperson's input rows), from which
//                      `g16 synth --assignment` must make params_toy.assignment
// Deterministic (the toxic waste is fixed), so rerunning it reproduces the
// committed files byte for byte (tests/test_params_regen.sh).
//
// Usage: node tests/vectors/gen_params.mjs [outdir]   (default: tests/vectors)
//
// The circuit (x^3 + x + 5 = out, and t = x^2 kept only in C):
//   inputs  Input(0) = one, Input(1) = out
//   aux     Aux(0) = x, Aux(1) = x2, Aux(2) = x3, Aux(3) = t
//   c0: x * x = x2        c1: x2 * x = x3
//   c2: (x3 + x + 5 one) * one = out       c3: x * x = t
// bellperson then appends one constraint per input, Input(i) * 0 = 0, so
// every input appears in A. Domain: the 6 constraints round up to n = 8,
// omega = 7^((r-1)/8) (bellperson's ROOT_OF_UNITY = 7^((r-1)/2^32), squared
// down). For each variable v, with L_j(tau) the Lagrange basis at tau:
//   at = sum_j A_j[v] L_j, bt = sum_j B_j[v] L_j, ct = sum_j C_j[v] L_j
//   a = [at]G1, b_g1 = [bt]G1, b_g2 = [bt]G2,
//   ic (inputs) = [(beta at + alpha bt + ct) / gamma]G1,
//   l (aux)     = [(beta at + alpha bt + ct) / delta]G1,
//   h[i] = [tau^i (tau^n - 1) / delta]G1 for i < n - 1.
// a, b_g1, b_g2 hold inputs then aux, leaving out the points at infinity
// (variables absent from A, resp. B): here a has 5 points (t is absent),
// b_g1 and b_g2 have 2 (one and x).
//
// params_toy.txt lines ('#' starts a comment):
//   toxic <alpha> <beta> <gamma> <delta> <tau>       decimal
//   domain <n> <omega>
//   witness <w...>                                   one, out, x, x2, x3, t
//   rs <r> <s>                                       the proof's blinding scalars
//   proof <proof_a|proof_b|proof_c> <coords> <compressed hex>
//   count <array> <n>                                ic h l a b_g1 b_g2
//   vars <array> <v...>                              which variable each a/b point is
//                                                    (i<k> input k, x<k> aux k)
//   pt <name> <index> <coords> <compressed hex>      name: a vk point
//        (alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2) or an array;
//        coords: "x y" (G1) or "x.c0 x.c1 y.c0 y.c1" (G2), decimal;
//        compressed hex: noble toBytes(true)
import { writeFileSync } from 'node:fs';

const lib = (f) => import(new URL(`../js/node_modules/@noble/curves/${f}`, import.meta.url));
const { bls12_381 } = await lib('bls12-381.js');

const outdir = process.argv[2] || new URL('.', import.meta.url).pathname;
const r = bls12_381.fields.Fr.ORDER;
const G1 = bls12_381.G1.Point.BASE, G2 = bls12_381.G2.Point.BASE;

const mod = (a) => ((a % r) + r) % r;
function pow(b, e) {
  let x = 1n;
  b = mod(b);
  for (; e > 0n; e >>= 1n, b = (b * b) % r) if (e & 1n) x = (x * b) % r;
  return x;
}
const inv = (a) => pow(a, r - 2n);
const mul = (P, k) => (mod(k) === 0n ? P.ZERO : P.multiply(mod(k)));

// Fixed toxic waste (a test key: anyone can forge proofs for it).
const alpha = 0x1234567890abcdefn, beta = 0x2345678901bcdef1n, gamma = 0x3456789012cdef12n;
const delta = 0x456789abcdef0123n, tau = 0x56789abcdef01234n;

// Variables: inputs 0..1, aux 0..3; a term is [var, coeff].
const I = (k) => ({ input: true, k }), X = (k) => ({ input: false, k });
const constraints = [
  [[[X(0), 1n]], [[X(0), 1n]], [[X(1), 1n]]],
  [[[X(1), 1n]], [[X(0), 1n]], [[X(2), 1n]]],
  [[[X(2), 1n], [X(0), 1n], [I(0), 5n]], [[I(0), 1n]], [[I(1), 1n]]],
  [[[X(0), 1n]], [[X(0), 1n]], [[X(3), 1n]]],
];
const nInputs = 2, nAux = 4;
for (let i = 0; i < nInputs; i++) constraints.push([[[I(i), 1n]], [], []]);

let n = 1;
while (n < constraints.length) n *= 2;
const omega = pow(7n, (r - 1n) / BigInt(n));
// sanity: bellperson's 2^32-th root of unity is 7^((r-1)/2^32)
const root32 = pow(7n, (r - 1n) >> 32n);
if (root32 !== 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2bn)
  throw new Error('unexpected root of unity');
if (pow(root32, 1n << BigInt(32 - Math.log2(n))) !== omega) throw new Error('omega mismatch');

const zt = mod(pow(tau, BigInt(n)) - 1n);
const lag = [];
for (let j = 0; j < n; j++) {
  const wj = pow(omega, BigInt(j));
  lag.push(mod(wj * zt % r * inv(mod(BigInt(n) * mod(tau - wj)))));
}

// Per-variable evaluations.
const key = (v) => (v.input ? v.k : nInputs + v.k);
const nv = nInputs + nAux;
const at = Array(nv).fill(0n), bt = Array(nv).fill(0n), ct = Array(nv).fill(0n);
constraints.forEach((c, j) => {
  for (const [v, co] of c[0]) at[key(v)] = mod(at[key(v)] + co * lag[j]);
  for (const [v, co] of c[1]) bt[key(v)] = mod(bt[key(v)] + co * lag[j]);
  for (const [v, co] of c[2]) ct[key(v)] = mod(ct[key(v)] + co * lag[j]);
});
const vname = (i) => (i < nInputs ? `i${i}` : `x${i - nInputs}`);

const gi = inv(gamma), di = inv(delta);
const ext = (i) => mod(beta * at[i] + alpha * bt[i] + ct[i]);
const arrays = {
  ic: [], h: [], l: [], a: [], b_g1: [], b_g2: [],
};
const vars = { a: [], b_g1: [], b_g2: [] };
for (let i = 0; i < nInputs; i++) arrays.ic.push(mul(G1, ext(i) * gi));
for (let i = 0; i < n - 1; i++) arrays.h.push(mul(G1, pow(tau, BigInt(i)) * zt % r * di));
for (let i = nInputs; i < nv; i++) arrays.l.push(mul(G1, ext(i) * di));
for (let i = 0; i < nv; i++) {
  if (at[i] !== 0n) { arrays.a.push(mul(G1, at[i])); vars.a.push(vname(i)); }
  if (bt[i] !== 0n) {
    arrays.b_g1.push(mul(G1, bt[i])); vars.b_g1.push(vname(i));
    arrays.b_g2.push(mul(G2, bt[i])); vars.b_g2.push(vname(i));
  }
}

const vk = [
  ['alpha_g1', mul(G1, alpha)], ['beta_g1', mul(G1, beta)], ['beta_g2', mul(G2, beta)],
  ['gamma_g2', mul(G2, gamma)], ['delta_g1', mul(G1, delta)], ['delta_g2', mul(G2, delta)],
];

// A proof for the witness x = 3 with fixed r, s, computed from the toxic
// waste directly (A(tau) B(tau) - C(tau) = h(tau) Z(tau) for a satisfying
// witness), and checked here with noble's pairing:
//   A = alpha + sum_v w_v at_v + r delta
//   B = beta + sum_v w_v bt_v + s delta
//   C = (sum_aux w_v ext_v + A(tau) B(tau) - C(tau)) / delta + s A + r B - r s delta
// bellperson's proof encoding: A (G1 compressed) || B (G2 compressed) || C (G1 compressed).
const xw = 3n;
const wit = [1n, xw ** 3n + xw + 5n, xw, xw * xw, xw ** 3n, xw * xw]; // one, out | x, x2, x3, t
const pr = 0x6789abcdef012345n, ps = 0x789abcdef0123456n;
const dot = (t) => t.reduce((acc, v, i) => mod(acc + v * wit[i]), 0n);
const Atau = dot(at), Btau = dot(bt), Ctau = dot(ct);
const As = mod(alpha + Atau + pr * delta), Bs = mod(beta + Btau + ps * delta);
let priv = 0n;
for (let i = nInputs; i < nv; i++) priv = mod(priv + wit[i] * ext(i));
const Cs = mod((priv + Atau * Btau - Ctau) * di + ps * As + pr * Bs - pr * ps % r * delta);
const proofA = mul(G1, As), proofB = mul(G2, Bs), proofC = mul(G1, Cs);
{
  const { pairing } = bls12_381;
  let vkx = arrays.ic[0];
  for (let i = 1; i < nInputs; i++) vkx = vkx.add(arrays.ic[i].multiply(wit[i]));
  const F12 = bls12_381.fields.Fp12;
  const lhs = pairing(proofA, proofB);
  const rhs = F12.mul(F12.mul(pairing(vk[0][1], vk[2][1]), pairing(vkx, vk[3][1])), pairing(proofC, vk[5][1]));
  if (!F12.eql(lhs, rhs)) throw new Error('the toy proof does not verify');
}
writeFileSync(`${outdir}/params_toy.proof`,
  Buffer.concat([proofA.toBytes(true), proofB.toBytes(true), proofC.toBytes(true)].map((b) => Buffer.from(b))));

const u32 = (x) => { const b = Buffer.alloc(4); b.writeUInt32BE(x); return b; };
const unc = (P) => Buffer.from(P.toBytes(false));
const order = ['ic', 'h', 'l', 'a', 'b_g1', 'b_g2'];
const vkBytes = Buffer.concat([...vk.map(([, P]) => unc(P)), u32(arrays.ic.length), ...arrays.ic.map(unc)]);
const rest = [];
for (const name of order.slice(1)) rest.push(u32(arrays[name].length), ...arrays[name].map(unc));
writeFileSync(`${outdir}/params_toy.vk`, vkBytes);
writeFileSync(`${outdir}/params_toy.params`, Buffer.concat([vkBytes, ...rest]));

const fe = (v) => (typeof v === 'bigint' ? v.toString() : `${v.c0} ${v.c1}`);
const coords = (P) => { const a = P.toAffine(); return `${fe(a.x)} ${fe(a.y)}`; };
const hex = (b) => Buffer.from(b).toString('hex');
const L = [
  '# bellperson-layout toy key from tests/vectors/gen_params.mjs (@noble/curves); do not edit',
  `toxic ${alpha} ${beta} ${gamma} ${delta} ${tau}`,
  `domain ${n} ${omega}`,
  `witness ${wit.join(' ')}`,
  `rs ${pr} ${ps}`,
];
for (const name of order) L.push(`count ${name} ${arrays[name].length}`);
for (const name of ['a', 'b_g1', 'b_g2']) L.push(`vars ${name} ${vars[name].join(' ')}`);
for (const [name, P] of [['proof_a', proofA], ['proof_b', proofB], ['proof_c', proofC]])
  L.push(`proof ${name} ${coords(P)} ${hex(P.toBytes(true))}`);
for (const [name, P] of vk) L.push(`pt ${name} 0 ${coords(P)} ${hex(P.toBytes(true))}`);
for (const name of order)
  arrays[name].forEach((P, i) => L.push(`pt ${name} ${i} ${coords(P)} ${hex(P.toBytes(true))}`));
writeFileSync(`${outdir}/params_toy.txt`, L.join('\n') + '\n');

// The assignment file: all little-endian; Fr values in Montgomery form
// (v * 2^256 mod r) as 4 x u64 limbs (blst's blst_fr).
{
  const R256 = (1n << 256n) % r;
  const fr = (v) => { const b = Buffer.alloc(32); let m = mod(v) * R256 % r;
    for (let i = 0; i < 4; i++, m >>= 64n) b.writeBigUInt64LE(m & ((1n << 64n) - 1n), 8 * i); return b; };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  const u32le = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const lc = (terms) => terms.reduce((acc, [v, co]) => mod(acc + co * wit[key(v)]), 0n);
  const rows = constraints.map((c) => [lc(c[0]), lc(c[1]), lc(c[2])]);
  const bitmap = (len, set) => {
    const w = Array(Math.ceil(len / 64)).fill(0n);
    for (const i of set) w[i >> 6] |= 1n << BigInt(i & 63);
    return { words: w, pop: set.size };
  };
  const named = (m, input) => new Set(constraints.flatMap((c) => c[m].filter(([v]) => v.input === input).map(([v]) => v.k)));
  const aAux = bitmap(nAux, named(0, false)), bInp = bitmap(nInputs, named(1, true)), bAux = bitmap(nAux, named(1, false));
  if (nInputs + aAux.pop !== arrays.a.length || bInp.pop + bAux.pop !== arrays.b_g1.length)
    throw new Error('densities disagree with the key');
  const parts = [Buffer.from('g16asgn\0', 'latin1'), u32le(1), u32le(2),
    ...[rows.length, nInputs, nAux, nAux, aAux.pop, nInputs, bInp.pop, nAux, bAux.pop].map(u64),
    ...[0, 1, 2].flatMap((m) => rows.map((row) => fr(row[m]))),
    ...wit.map(fr),
    ...[aAux, bInp, bAux].flatMap((d) => d.words.map(u64))];
  writeFileSync(`${outdir}/params_toy.assignment`, Buffer.concat(parts));
}

// circom's .r1cs (version 1: header, constraints, wire-to-label sections)
// and .wtns (version 2) for the same circuit; values little-endian, standard form.
{
  const u32le = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const u64le = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  const le32b = (v, raw = false) => { const b = Buffer.alloc(32); let m = raw ? v : mod(v);
    for (let i = 0; i < 32; i++, m >>= 8n) b[i] = Number(m & 255n); return b; };
  const section = (type, data) => Buffer.concat([u32le(type), u64le(data.length), data]);
  const lcBytes = (terms) => Buffer.concat([u32le(terms.length),
    ...[...terms].sort((x, y) => key(x[0]) - key(y[0])).flatMap(([v, co]) => [u32le(key(v)), le32b(co)])]);
  const circuit = constraints.slice(0, constraints.length - nInputs); // without the input rows
  const hdr = Buffer.concat([u32le(32), le32b(r, true), u32le(nv), u32le(1), u32le(0), u32le(1), u64le(nv),
    u32le(circuit.length)]);
  const cons = Buffer.concat(circuit.flatMap((c) => c.map(lcBytes)));
  const labels = Buffer.concat(Array.from({ length: nv }, (_, i) => u64le(i)));
  writeFileSync(`${outdir}/params_toy.r1cs`, Buffer.concat([Buffer.from('r1cs'), u32le(1), u32le(3),
    section(1, hdr), section(2, cons), section(3, labels)]));
  const whdr = Buffer.concat([u32le(32), le32b(r, true), u32le(nv)]);
  writeFileSync(`${outdir}/params_toy.wtns`, Buffer.concat([Buffer.from('wtns'), u32le(2), u32le(2),
    section(1, whdr), section(2, Buffer.concat(wit.map(le32b)))]));
}
