#!/usr/bin/env node
// snarkjs_prove_rs.mjs -- a snarkjs-compatible Groth16 prover with EXPLICIT
// blinding scalars r and s, for byte-for-byte comparison with g16's
// deterministic mode.
//
//   node scripts/interop/snarkjs_prove_rs.mjs <circuit.zkey> <witness.wtns>
//        <proof.json> <public.json> [--r N] [--s N] [--via-snarkjs]
//
// --via-snarkjs: instead of this file's prover, run snarkjs's own
// groth16.prove in-process with ffjavascript's Fr.random patched to return
// r, then s (the order in which snarkjs draws them). Tests compare the two
// modes' outputs to check this implementation against snarkjs itself.
//
// r and s are decimal or 0x-hex integers (reduced mod the group order r);
// left out, each is drawn at random (crypto) and printed on stderr. r = s = 0
// gives the unblinded proof: valid, deterministic, NOT zero-knowledge.
//
// This is an independent implementation of the proving algorithm that
// snarkjs 0.7.6 (groth16 prove) uses, built on ffjavascript's field/curve
// operations (FFT, multi-exponentiation). With the same r, s it yields the
// same proof as snarkjs would. The computation (docs/interop.md has it too):
//   1. A_T[c] = sum over zkey section 4 entries of matrix 0 at row c of
//      coef * w[signal]; B_T likewise for matrix 1; C_T[c] = A_T[c] * B_T[c].
//      (coef is stored as c * R^2 mod r, so a Montgomery product with the
//      standard-form witness is c * w in Montgomery form.)
//   2. For X in A, B, C: X_odd = FFT_n(g^j * IFFT_n(X_T)[j]) with
//      g = w[k+1] (k = log2 n; g = Fr.shift if k = Fr.s): X at g * omega^i.
//   3. h_i = A_odd[i] * B_odd[i] - C_odd[i] (no division by Z: the zkey's H
//      points are the odd-index Lagrange basis of the 2n-domain over delta).
//   4. piA = alpha1 + sum_i w_i A_i + r delta1
//      piB = beta2 + sum_i w_i B2_i + s delta2
//      B1  = beta1 + sum_i w_i B1_i + s delta1
//      piC = sum_{i > nPublic} w_i C_i + sum_j h_j H_j + s piA + r B1 - r s delta1
//   5. public = w_1 .. w_nPublic; proof.json has affine coordinates in
//      decimal, pi_b as [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]].

import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = process.env.G16_JS_NODE_MODULES || path.join(HERE, "../../tests/js/node_modules");

// ---- container files: "magic", u32 version, u32 nSections, {u32 id, u64 size, data}
function readContainer(file, magic) {
    const b = fs.readFileSync(file);
    if (b.toString("latin1", 0, 4) !== magic) throw new Error(`${file}: not a ${magic} file`);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const n = dv.getUint32(8, true);
    const sec = {};
    let p = 12;
    for (let i = 0; i < n; i++) {
        const id = dv.getUint32(p, true);
        const size = Number(dv.getBigUint64(p + 4, true));
        if (p + 12 + size > b.length) throw new Error(`${file}: truncated section ${id}`);
        if (sec[id]) throw new Error(`${file}: duplicate section ${id}`);
        sec[id] = b.subarray(p + 12, p + 12 + size);
        p += 12 + size;
    }
    return sec;
}
const leToBig = (u8) => { let x = 0n; for (let i = u8.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(u8[i]); return x; };

function parseScalar(s, r) {
    const x = BigInt(s);
    return ((x % r) + r) % r;
}

async function main() {
    const args = process.argv.slice(2);
    const pos = [];
    const opt = {};
    for (let i = 0; i < args.length; i++) {
        if (args[i] === "--r" || args[i] === "--s") opt[args[i].slice(2)] = args[++i];
        else if (args[i] === "--via-snarkjs") opt.viaSnarkjs = true;
        else if (args[i].startsWith("--")) throw new Error("unknown option " + args[i]);
        else pos.push(args[i]);
    }
    if (pos.length !== 4) {
        console.error("usage: snarkjs_prove_rs.mjs <circuit.zkey> <witness.wtns> <proof.json> <public.json> [--r N] [--s N]");
        process.exit(2);
    }
    const [zkeyFile, wtnsFile, proofFile, publicFile] = pos;
    const ffPath = path.join(NM, "ffjavascript/main.js");
    if (!fs.existsSync(ffPath)) throw new Error(`ffjavascript not found (${ffPath}); run: npm ci --prefix tests/js`);
    const ff = await import(pathToFileURL(ffPath).href);
    const snarkjs = opt.viaSnarkjs ? await import(pathToFileURL(path.join(NM, "snarkjs/main.js")).href) : null;

    // ---- zkey header (section 2)
    const zk = readContainer(zkeyFile, "zkey");
    for (const id of [1, 2, 3, 4, 5, 6, 7, 8, 9]) if (!zk[id]) throw new Error(`zkey: missing section ${id}`);
    if (new DataView(zk[1].buffer, zk[1].byteOffset).getUint32(0, true) !== 1) throw new Error("zkey is not Groth16");
    const h = zk[2];
    const hv = new DataView(h.buffer, h.byteOffset, h.byteLength);
    let o = 0;
    const n8q = hv.getUint32(o, true); o += 4;
    const q = leToBig(h.subarray(o, o + n8q)); o += n8q;
    const n8r = hv.getUint32(o, true); o += 4;
    const rMod = leToBig(h.subarray(o, o + n8r)); o += n8r;
    const nVars = hv.getUint32(o, true); o += 4;
    const nPublic = hv.getUint32(o, true); o += 4;
    const domainSize = hv.getUint32(o, true); o += 4;
    const sG1 = 2 * n8q, sG2 = 4 * n8q;
    const take = (len) => { const x = h.subarray(o, o + len); o += len; return x; };
    const alpha1 = take(sG1), beta1 = take(sG1), beta2 = take(sG2);
    take(sG2); // gamma2
    const delta1 = take(sG1), delta2 = take(sG2);

    const curve = q === ff.Scalar.e("21888242871839275222246405745257275088696311157297823662689037894645226208583")
        ? await ff.buildBn128() : await ff.buildBls12381();
    if (curve.q !== q && BigInt(curve.q) !== q) throw new Error("zkey: unknown curve");
    const Fr = curve.Fr, G1 = curve.G1, G2 = curve.G2;
    const n8 = Fr.n8;
    if (n8 !== n8r) throw new Error("zkey: n8r mismatch");

    // ---- witness
    const wt = readContainer(wtnsFile, "wtns");
    const wn8 = new DataView(wt[1].buffer, wt[1].byteOffset).getUint32(0, true);
    const wPrime = leToBig(wt[1].subarray(4, 4 + wn8));
    const nWitness = new DataView(wt[1].buffer, wt[1].byteOffset).getUint32(4 + wn8, true);
    if (wPrime !== rMod) throw new Error("witness prime != zkey r (wrong curve?)");
    if (nWitness !== nVars) throw new Error(`witness has ${nWitness} values, zkey expects ${nVars}`);
    const w = new Uint8Array(wt[2]); // standard form LE, n8 each

    const rand = () => leToBig(randomBytes(64)) % rMod;
    const rB = opt.r !== undefined ? parseScalar(opt.r, rMod) : rand();
    const sB = opt.s !== undefined ? parseScalar(opt.s, rMod) : rand();
    if (opt.r === undefined || opt.s === undefined) console.error(`snarkjs_prove_rs: r=${rB} s=${sB}`);
    const r = Fr.e(rB), s = Fr.e(sB);
    const S = ff.utils.stringifyBigInts;
    const write = (proof, pub) => {
        fs.writeFileSync(proofFile, JSON.stringify(proof, null, 1));
        fs.writeFileSync(publicFile, JSON.stringify(S(pub), null, 1));
    };

    if (opt.viaSnarkjs) {
        // snarkjs's zkey reader gets this same curve object: ffjavascript
        // caches one multi-threaded instance per curve in globalThis (snarkjs
        // was imported before the curve was built, so its copy of the module
        // cannot reset that cache).
        const queue = [r, s];
        const orig = Fr.random;
        Fr.random = () => (queue.length ? queue.shift() : orig.call(Fr));
        try {
            const { proof, publicSignals } = await snarkjs.groth16.prove(zkeyFile, wtnsFile);
            if (queue.length) throw new Error("snarkjs did not draw r, s through Fr.random");
            write(proof, publicSignals);
        } finally {
            Fr.random = orig;
        }
        await curve.terminate();
        return;
    }

    // ---- 1. A_T, B_T, C_T (Montgomery)
    const A = new Uint8Array(domainSize * n8), B = new Uint8Array(domainSize * n8);
    const co = zk[4];
    const cv = new DataView(co.buffer, co.byteOffset, co.byteLength);
    const nCoef = cv.getUint32(0, true);
    const sCoef = 12 + n8;
    if (co.length !== 4 + nCoef * sCoef) throw new Error("zkey: bad coefficient section");
    for (let i = 0; i < nCoef; i++) {
        const p = 4 + i * sCoef;
        const m = cv.getUint32(p, true), c = cv.getUint32(p + 4, true), s = cv.getUint32(p + 8, true);
        if (m > 1 || c >= domainSize || s >= nVars) throw new Error("zkey: bad coefficient entry");
        const out = m === 0 ? A : B;
        const v = Fr.mul(co.subarray(p + 12, p + 12 + n8), w.subarray(s * n8, s * n8 + n8));
        out.set(Fr.add(out.subarray(c * n8, c * n8 + n8), v), c * n8);
    }
    const C = new Uint8Array(domainSize * n8);
    for (let i = 0; i < domainSize; i++) {
        C.set(Fr.mul(A.subarray(i * n8, i * n8 + n8), B.subarray(i * n8, i * n8 + n8)), i * n8);
    }

    // ---- 2./3. odd coset evaluations, h
    const k = Math.log2(domainSize);
    const g = k === Fr.s ? Fr.shift : Fr.w[k + 1];
    const odd = async (X) => Fr.fft(await Fr.batchApplyKey(await Fr.ifft(X), Fr.one, g));
    const Ao = await odd(A), Bo = await odd(B), Co = await odd(C);
    const H = new Uint8Array(domainSize * n8);
    for (let i = 0; i < domainSize; i++) {
        const sl = (X) => X.subarray(i * n8, i * n8 + n8);
        H.set(Fr.sub(Fr.mul(sl(Ao), sl(Bo)), sl(Co)), i * n8);
    }
    const Hstd = await Fr.batchFromMontgomery(H);

    // ---- 4. MSMs and blinding

    const wPriv = w.subarray((nPublic + 1) * n8);
    const fromLEM = (G, b) => G.fromRprLEM(b, 0);
    let piA = await G1.multiExpAffine(zk[5], w);
    let piB = await G2.multiExpAffine(zk[7], w);
    let b1 = await G1.multiExpAffine(zk[6], w);
    let piC = await G1.multiExpAffine(zk[8], wPriv);
    const resH = await G1.multiExpAffine(zk[9], Hstd);
    const d1 = fromLEM(G1, delta1), d2 = fromLEM(G2, delta2);

    piA = G1.add(G1.add(piA, fromLEM(G1, alpha1)), G1.timesFr(d1, r));
    piB = G2.add(G2.add(piB, fromLEM(G2, beta2)), G2.timesFr(d2, s));
    b1 = G1.add(G1.add(b1, fromLEM(G1, beta1)), G1.timesFr(d1, s));
    piC = G1.add(piC, resH);
    piC = G1.add(piC, G1.timesFr(piA, s));
    piC = G1.add(piC, G1.timesFr(b1, r));
    piC = G1.add(piC, G1.timesFr(d1, Fr.neg(Fr.mul(r, s))));

    const pub = [];
    for (let i = 1; i <= nPublic; i++) pub.push(leToBig(w.subarray(i * n8, i * n8 + n8)));

    const proof = {
        pi_a: S(G1.toObject(G1.toAffine(piA))),
        pi_b: S(G2.toObject(G2.toAffine(piB))),
        pi_c: S(G1.toObject(G1.toAffine(piC))),
        protocol: "groth16",
        curve: curve.name,
    };
    write(proof, pub);
    await curve.terminate();
}

main().catch((e) => { console.error("snarkjs_prove_rs: " + (e && e.stack || e)); process.exit(1); });
