// Writes params_toy.r1cs: the toy circuit of gen_params.mjs as a circom
// .r1cs (version 1) over BLS12-381's scalar field, so that
// `g16 setup --format params` run on it with that script's toxic waste
// must reproduce params_toy.params and params_toy.vk byte for byte
// (tests/test_setup_params_cli.sh). No dependencies; deterministic.
//
// Usage: node tests/vectors/gen_params_r1cs.mjs [outdir]   (default: tests/vectors)
//
// Wires in circom's order: 0 = one, 1 = out (the public output), 2 = x (the
// private input), 3 = x2, 4 = x3, 5 = t, i.e. bellperson's Input(0),
// Input(1), Aux(0..3) of gen_params.mjs. Constraints, in its order:
//   c0: x * x = x2   c1: x2 * x = x3   c2: (x3 + x + 5 one) * one = out   c3: x * x = t
import { writeFileSync } from 'node:fs';

const outdir = process.argv[2] || new URL('.', import.meta.url).pathname;
const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const ONE = 0, OUT = 1, X = 2, X2 = 3, X3 = 4, T = 5;
const constraints = [
  [[[X, 1n]], [[X, 1n]], [[X2, 1n]]],
  [[[X2, 1n]], [[X, 1n]], [[X3, 1n]]],
  [[[X3, 1n], [X, 1n], [ONE, 5n]], [[ONE, 1n]], [[OUT, 1n]]],
  [[[X, 1n]], [[X, 1n]], [[T, 1n]]],
];
const nWires = 6, nPubOut = 1, nPubIn = 0, nPrvIn = 1;

const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const le32 = (x) => { const b = Buffer.alloc(32); for (let i = 0; i < 32; i++, x >>= 8n) b[i] = Number(x & 0xffn); return b; };
const fe = (v) => le32(((v % r) + r) % r);
const section = (type, body) => Buffer.concat([u32(type), u64(body.length), body]);

const header = Buffer.concat([u32(32), le32(r), u32(nWires), u32(nPubOut), u32(nPubIn), u32(nPrvIn),
  u64(nWires), u32(constraints.length)]);
const lc = (terms) => Buffer.concat([u32(terms.length), ...terms.map(([w, c]) => Buffer.concat([u32(w), fe(c)]))]);
const body = Buffer.concat(constraints.map((c) => Buffer.concat(c.map(lc))));
const labels = Buffer.concat([...Array(nWires).keys()].map((i) => u64(i)));
const file = Buffer.concat([Buffer.from('r1cs'), u32(1), u32(3), section(1, header), section(2, body), section(3, labels)]);
writeFileSync(`${outdir}/params_toy.r1cs`, file);
