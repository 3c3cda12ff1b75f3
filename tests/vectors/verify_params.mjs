// An independent checker of bellperson Groth16 proofs over BLS12-381, on
// @noble/curves (pinned in tests/js) only: no g16 code.
//   node tests/vectors/verify_params.mjs <key.vk|key.params> <public.json> <proof.bin>
// key: bellperson's VerifyingKey::write layout (alpha_g1, beta_g1, beta_g2,
// gamma_g2, delta_g1, delta_g2 uncompressed, u32 big-endian n_ic, ic[n_ic]);
// a .params starts with the same bytes (the rest is ignored). public.json: a
// JSON list of decimal strings, the inputs after the constant one. proof.bin:
// 192 bytes, A (G1 compressed) || B (G2 compressed) || C (G1 compressed).
// Checks e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta), vk_x = ic[0] +
// sum_j pub_j ic[j+1], with noble's pairing. Exit 0 valid, 1 invalid, 2 bad input.
import { readFileSync } from 'node:fs';

const lib = (f) => import(new URL(`../js/node_modules/@noble/curves/${f}`, import.meta.url));
const { bls12_381 } = await lib('bls12-381.js');
const { G1, G2 } = bls12_381;
const r = bls12_381.fields.Fr.ORDER;

function fail(code, msg) { console.error(`verify_params.mjs: ${msg}`); process.exit(code); }
const [keyPath, pubPath, proofPath] = process.argv.slice(2);
if (!proofPath) fail(2, 'usage: verify_params.mjs <key.vk|key.params> <public.json> <proof.bin>');
let vk, pub, A, B, C;
try {
  const k = readFileSync(keyPath);
  let off = 0;
  const g1 = () => { const P = G1.Point.fromBytes(k.subarray(off, off + 96)); off += 96; P.assertValidity(); return P; };
  const g2 = () => { const P = G2.Point.fromBytes(k.subarray(off, off + 192)); off += 192; P.assertValidity(); return P; };
  vk = { alpha: g1(), beta1: g1(), beta2: g2(), gamma: g2(), delta1: g1(), delta2: g2() };
  const nIc = k.readUInt32BE(off); off += 4;
  vk.ic = Array.from({ length: nIc }, g1);
  pub = JSON.parse(readFileSync(pubPath, 'utf8'));
  if (!Array.isArray(pub) || pub.some((s) => typeof s !== 'string' || !/^[0-9]+$/.test(s) || BigInt(s) >= r))
    throw new Error('public.json is not a list of decimal strings below r');
  pub = pub.map(BigInt);
  if (pub.length + 1 !== nIc) throw new Error(`${pub.length} public inputs, the key has ${nIc - 1}`);
  const p = readFileSync(proofPath);
  if (p.length !== 192) throw new Error(`proof is ${p.length} bytes, not 192`);
  A = G1.Point.fromBytes(p.subarray(0, 48)); B = G2.Point.fromBytes(p.subarray(48, 144));
  C = G1.Point.fromBytes(p.subarray(144, 192));
  for (const P of [A, B, C]) P.assertValidity();
} catch (e) {
  fail(2, `bad input: ${e.message}`);
}
let vkx = vk.ic[0];
pub.forEach((v, j) => { if (v !== 0n) vkx = vkx.add(vk.ic[j + 1].multiply(v)); });
const F12 = bls12_381.fields.Fp12;
const { pairing } = bls12_381;
const lhs = pairing(A, B);
const rhs = F12.mul(F12.mul(pairing(vk.alpha, vk.beta2), pairing(vkx, vk.gamma)), pairing(C, vk.delta2));
if (!F12.eql(lhs, rhs)) fail(1, 'INVALID: the pairing check fails');
console.log('verify_params.mjs: OK: proof is valid');
