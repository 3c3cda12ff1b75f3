#!/usr/bin/env node
// fast_ptau.mjs -- write a PREPARED powers-of-tau file (snarkjs .ptau, phase 2
// ready) for a KNOWN tau, alpha, beta.
//
//   node scripts/interop/fast_ptau.mjs <bn128|bls12381> <power> <out.ptau>
//        [--tau N] [--alpha N] [--beta N] [--unprepared] [--threads N] [--window W]
//
// *** INSECURE, TEST ONLY. *** The toxic waste (tau, alpha, beta) is a fixed,
// public constant (or given on the command line), so anyone can forge proofs
// for any circuit set up with this file. It exists only so that interop test
// fixtures can be made in seconds instead of `snarkjs powersoftau prepare
// phase2`'s minutes-to-hours (point inverse FFTs). Never use it for anything
// that needs soundness.
//
// Output layout (as snarkjs 0.7.6 writes it: powersoftau_new.js,
// powersoftau_preparephase2.js, powersoftau_utils.js writePTauHeader):
//   "ptau", u32 version 1, u32 nSections (11; 7 with --unprepared), then
//   sections {u32 id, u64 size, data} in the order 1,2,3,4,5,6,7,12,13,14,15:
//   1  header: u32 n8q, q (n8q bytes LE), u32 power, u32 ceremonyPower (=power)
//   2  tauG1      tau^j G1,          j < 2^(power+1)-1
//   3  tauG2      tau^j G2,          j < 2^power
//   4  alphaTauG1 alpha tau^j G1,    j < 2^power
//   5  betaTauG1  beta tau^j G1,     j < 2^power
//   6  betaG2     beta G2
//   7  contributions: u32 0 (an empty list, as `powersoftau new` writes)
//   12 for l = 0..power+1: L_{l,i}(tau) G1, i < 2^l
//   13 for l = 0..power:   L_{l,i}(tau) G2
//   14 for l = 0..power:   alpha L_{l,i}(tau) G1
//   15 for l = 0..power:   beta  L_{l,i}(tau) G1
// Points are affine x||y (G2: x.c0||x.c1||y.c0||y.c1), every coordinate
// little-endian Montgomery (ffjavascript's in-memory form, "LEM").
//
// The Lagrange basis of the size-m domain (m = 2^l, omega = w[l] with
// ffjavascript's roots: w[s] = 5^t where r-1 = 2^s t, w[i] = w[i+1]^2) at tau:
//   L_{l,i}(tau) = (tau^m - 1)/m * omega^i / (tau - omega^i),
// which equals the inverse DFT (1/m) sum_j omega^(-ij) tau^j that snarkjs
// computes with point IFFTs. For the top level l = power+1 of section 12,
// snarkjs feeds the IFFT only 2^(power+1)-1 tau powers (the last one is
// zero), so that level holds L_{l,i}(tau) - omega^i tau^(m-1) / m; we do the
// same, so the file is byte-identical to snarkjs's for the same tau.
//
// Speed: every point is a fixed-base scalar multiple of the generator. Workers
// (worker_threads, one per core) hold a table of d * 2^(w k) * G for each
// w-bit window k and digit d (affine), and compute each multiple with one
// mixed addition per window through ffjavascript's wasm exports; results go
// back to affine with one batch inversion per chunk.

import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../..");

function nodeModulesDir() {
    return process.env.G16_JS_NODE_MODULES || path.join(REPO, "tests/js/node_modules");
}

// The worker builds ffjavascript's wasm (wasmcurves through wasmbuilder, as
// ffjavascript's buildBn128/buildBls12381 do) and calls its exports directly.
// (Importing ffjavascript itself inside a worker_thread trips its web-worker
// dependency, which treats every worker thread as one of its own.)
function requireFromNodeModules(name) {
    const dir = nodeModulesDir();
    if (!fs.existsSync(path.join(dir, name))) {
        throw new Error(`${name} not found in ${dir}; run: npm ci --prefix tests/js`);
    }
    return createRequire(path.join(dir, "_"))(name);
}

// Curve constants (q = base field, r = scalar field); n8q bytes per coordinate.
const CURVES = {
    bn128: {
        q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
        r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
        n8q: 32, build: "buildBn128",
    },
    bls12381: {
        q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
        r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
        n8q: 48, build: "buildBls12381",
    },
};
const N8R = 32;

// ---------------------------------------------------------------- worker side
async function workerMain() {
    const { curveName, window: w } = workerData;
    const { ModuleBuilder } = requireFromNodeModules("wasmbuilder");
    const wasmcurves = requireFromNodeModules("wasmcurves");
    const mb = new ModuleBuilder();
    mb.setMemory(25);
    wasmcurves[CURVES[curveName].build](mb);
    const memory = new WebAssembly.Memory({ initial: 25, maximum: 32767 });
    const instance = await WebAssembly.instantiate(await WebAssembly.compile(mb.build()), { env: { memory } });
    const ex = instance.exports;
    const mods = mb.modules[curveName];
    const u32 = () => new Uint32Array(memory.buffer, 0, 1);
    // bump allocator on the wasm heap (free pointer at address 0), growing memory
    function alloc(len) {
        const f = u32();
        f[0] = (f[0] + 7) & ~7;
        const p = f[0];
        f[0] = p + len;
        if (p + len > memory.buffer.byteLength) {
            memory.grow(Math.ceil((p + len - memory.buffer.byteLength) / 65536) + 1);
        }
        headroom(len);
        return p;
    }
    // wasm batch routines (batchToAffine) use the heap above the free pointer
    // as scratch: keep `len` bytes there mapped.
    function headroom(len) {
        const need = u32()[0] + len - memory.buffer.byteLength;
        if (need > 0) memory.grow(Math.ceil(need / 65536) + 1);
    }
    const getBuff = (p, n) => new Uint8Array(memory.buffer, p, n).slice();
    const nbits = CURVES[curveName].r.toString(2).length;
    const nWin = Math.ceil(nbits / w);
    const nDig = (1 << w) - 1;
    const groups = {};

    function setup(gname) {
        if (groups[gname]) return groups[gname];
        const pre = gname === "G1" ? "g1m" : "g2m";
        const n8 = CURVES[curveName].n8q * (gname === "G1" ? 1 : 2);
        const sA = n8 * 2, sJ = n8 * 3;
        // Table: window k, digit d (1..2^w-1) at index k*nDig + d-1, value d*2^(wk)*G.
        const pTab = alloc(nWin * nDig * sA);
        const pTmpJ = alloc(nDig * sJ);
        const pB = alloc(sJ), pBA = alloc(sA);
        ex[pre + "_copy"](gname === "G1" ? mods.pG1gen : mods.pG2gen, pB);
        for (let k = 0; k < nWin; k++) {
            ex[pre + "_toAffine"](pB, pBA);
            ex[pre + "_copy"](pB, pTmpJ);
            if (nDig > 1) ex[pre + "_double"](pB, pTmpJ + sJ);
            for (let d = 3; d <= nDig; d++) {
                ex[pre + "_addMixed"](pTmpJ + (d - 2) * sJ, pBA, pTmpJ + (d - 1) * sJ);
            }
            // next window base: 2^w * B = (2^w - 1) B + B
            ex[pre + "_addMixed"](pTmpJ + (nDig - 1) * sJ, pBA, pB);
            headroom(2 * nDig * sJ);
            ex[pre + "_batchToAffine"](pTmpJ, nDig, pTab + k * nDig * sA);
        }
        const g = { pre, sA, sJ, pTab, cap: 0, pAcc: 0, pOut: 0 };
        groups[gname] = g;
        return g;
    }

    let busy = 0;
    parentPort.on("message", (job) => {
        if (job.stats) { parentPort.postMessage({ id: job.id, out: busy }); return; }
        const tj = performance.now();
        const g = setup(job.group);
        const sc = job.scalars; // n x 32 bytes, standard form LE
        const n = sc.length / N8R;
        if (n > g.cap) {
            g.pAcc = alloc(n * g.sJ);
            g.pOut = alloc(n * g.sA);
            g.cap = n;
        }
        const add = ex[g.pre + "_addMixed"], zero = ex[g.pre + "_zero"];
        const mask = nDig;
        for (let i = 0; i < n; i++) {
            const pAcc = g.pAcc + i * g.sJ;
            zero(pAcc);
            const base = i * N8R;
            for (let k = 0; k < nWin; k++) {
                const bit = k * w;
                const byte = bit >> 3;
                // up to 4 bytes cover any window of <= 25 bits
                let v = sc[base + byte] | (sc[base + byte + 1] << 8) |
                        (sc[base + byte + 2] << 16) | (sc[base + byte + 3] << 24);
                if (byte + 3 >= N8R) { // don't read past this scalar
                    v = 0;
                    for (let b = Math.min(N8R - 1, byte + 3); b >= byte; b--) v = (v * 256 + sc[base + b]) >>> 0;
                }
                const d = (v >>> (bit & 7)) & mask;
                if (d) add(pAcc, g.pTab + (k * nDig + d - 1) * g.sA, pAcc);
            }
        }
        headroom(2 * n * g.sJ);
        ex[g.pre + "_batchToAffine"](g.pAcc, n, g.pOut);
        const out = getBuff(g.pOut, n * g.sA).slice();
        busy += performance.now() - tj;
        parentPort.postMessage({ id: job.id, out }, [out.buffer]);
    });
    parentPort.postMessage({ ready: true });
}

// ------------------------------------------------------------------ main side
const mod = (a, m) => ((a % m) + m) % m;
function powmod(b, e, m) {
    let r = 1n; b = mod(b, m);
    while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; }
    return r;
}
const inv = (a, m) => powmod(a, m - 2n, m);

// Montgomery's trick: all inverses of a (nonzero) array with one inversion.
function batchInv(xs, m) {
    const n = xs.length, pre = new Array(n);
    let acc = 1n;
    for (let i = 0; i < n; i++) { pre[i] = acc; acc = acc * xs[i] % m; }
    let ia = inv(acc, m);
    const out = new Array(n);
    for (let i = n - 1; i >= 0; i--) { out[i] = ia * pre[i] % m; ia = ia * xs[i] % m; }
    return out;
}

// Roots of unity, ffjavascript's convention (F1Field / WasmField1 constructor).
function rootsOfUnity(r) {
    let t = r - 1n, s = 0;
    while ((t & 1n) === 0n) { t >>= 1n; s++; }
    let nqr = 2n;
    while (powmod(nqr, (r - 1n) / 2n, r) === 1n) nqr++;
    const w = new Array(s + 1);
    w[s] = powmod(nqr, t, r);
    for (let i = s - 1; i >= 0; i--) w[i] = w[i + 1] * w[i + 1] % r;
    if (w[0] !== 1n) throw new Error("bad roots of unity");
    return w;
}

function scalarsToBytes(xs) {
    const buf = new Uint8Array(xs.length * N8R);
    const u64 = new BigUint64Array(buf.buffer);
    for (let i = 0; i < xs.length; i++) {
        let x = xs[i];
        for (let k = 0; k < 4; k++) { u64[i * 4 + k] = BigInt.asUintN(64, x); x >>= 64n; }
    }
    return buf;
}

// Test-only default toxic waste: hashes of fixed labels, reduced mod r.
function defaultSecret(label, r) {
    const h = createHash("sha512").update("g16 INSECURE test ptau: " + label).digest("hex");
    return BigInt("0x" + h) % r;
}

function parseArgs(argv) {
    const a = { pos: [], unprepared: false };
    for (let i = 0; i < argv.length; i++) {
        const s = argv[i];
        if (s === "--unprepared") a.unprepared = true;
        else if (["--tau", "--alpha", "--beta", "--threads", "--window"].includes(s)) a[s.slice(2)] = argv[++i];
        else if (s.startsWith("--")) throw new Error("unknown option " + s);
        else a.pos.push(s);
    }
    return a;
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    if (args.pos.length !== 3) {
        console.error("usage: fast_ptau.mjs <bn128|bls12381> <power> <out.ptau> [--tau N] [--alpha N] [--beta N] [--unprepared] [--threads N] [--window W]\n" +
            "INSECURE: tau is known. Test fixtures only.");
        process.exit(2);
    }
    let [curveName, powerS, outName] = args.pos;
    if (curveName === "bn254") curveName = "bn128";
    const C = CURVES[curveName];
    if (!C) throw new Error("unknown curve " + curveName);
    const power = Number(powerS);
    if (!Number.isInteger(power) || power < 1 || power > 24) throw new Error("power must be 1..24");
    const r = C.r;
    const tau = args.tau !== undefined ? mod(BigInt(args.tau), r) : defaultSecret("tau", r);
    const alpha = args.alpha !== undefined ? mod(BigInt(args.alpha), r) : defaultSecret("alpha", r);
    const beta = args.beta !== undefined ? mod(BigInt(args.beta), r) : defaultSecret("beta", r);
    const w = rootsOfUnity(r);
    if (power + 1 > w.length - 1) throw new Error("power too big for this curve");
    for (let l = 0; l <= power + 1; l++) {
        if (powmod(tau, 1n << BigInt(l), r) === 1n) throw new Error("tau is a root of unity");
    }
    if (alpha === 0n || beta === 0n) throw new Error("alpha, beta must be nonzero");
    const nThreads = Number(args.threads || os.cpus().length || 2);
    // Window: table cost (nWin * 2^w points per worker) against one addition
    // per window per point; 12 is best from 2^14 points up (measured).
    const win = Number(args.window || Math.max(4, Math.min(12, power - 2)));
    if (!(win >= 2 && win <= 20)) throw new Error("window must be 2..20");
    const t0 = Date.now();

    // ---- worker pool
    const workers = [];
    const pending = new Map();
    let nextId = 0;
    for (let i = 0; i < nThreads; i++) {
        const wk = new Worker(fileURLToPath(import.meta.url), { workerData: { curveName, window: win } });
        await new Promise((res, rej) => {
            wk.once("message", res); wk.once("error", rej);
        });
        wk.on("message", (m) => { const p = pending.get(m.id); pending.delete(m.id); p.resolve(m.out); });
        wk.on("error", (e) => { for (const p of pending.values()) p.reject(e); pending.clear(); });
        wk.busy = 0;
        workers.push(wk);
    }
    function runChunk(group, scalars) {
        // least-loaded worker; chunks are equal-size so this balances well
        let wk = workers[0];
        for (const x of workers) if (x.busy < wk.busy) wk = x;
        wk.busy++;
        const id = nextId++;
        return new Promise((resolve, reject) => {
            pending.set(id, { resolve: (o) => { wk.busy--; resolve(o); }, reject });
            wk.postMessage({ id, group, scalars }, [scalars.buffer]);
        });
    }
    // Multiply each scalar by the generator of `group`; returns the affine
    // points in order, as a list of buffers.
    async function mulGen(group, xs) {
        const CH = 4096;
        const jobs = [];
        for (let i = 0; i < xs.length; i += CH) {
            jobs.push(runChunk(group, scalarsToBytes(xs.slice(i, i + CH))));
        }
        return Promise.all(jobs);
    }

    // ---- scalars
    const tS = Date.now();
    const nTau = 2 ** (power + 1);
    const tauPow = new Array(nTau);
    tauPow[0] = 1n;
    for (let j = 1; j < nTau; j++) tauPow[j] = tauPow[j - 1] * tau % r;
    const scaled = (xs, k) => xs.map((x) => x * k % r);

    function lagrange(l, truncated) {
        const m = 2 ** l;
        const om = w[l];
        const omp = new Array(m);
        omp[0] = 1n;
        for (let i = 1; i < m; i++) omp[i] = omp[i - 1] * om % r;
        const invM = inv(BigInt(m), r);
        const c = mod(tauPow[m] !== undefined ? tauPow[m] - 1n : powmod(tau, BigInt(m), r) - 1n, r) * invM % r;
        const dinv = batchInv(omp.map((x) => mod(tau - x, r)), r);
        const tm1 = truncated ? tauPow[m - 1] * invM % r : 0n;
        return omp.map((x, i) => mod(c * x % r * dinv[i] - (truncated ? x * tm1 : 0n), r));
    }
    const lag = [];
    for (let l = 0; l <= power + 1; l++) lag.push(lagrange(l, l === power + 1));
    const lagUpTo = (maxL) => lag.slice(0, maxL + 1).flat();
    const verbose = !!process.env.FAST_PTAU_VERBOSE;
    if (verbose) console.error(`fast_ptau: workers ready at ${Date.now() - t0} ms, scalars ${Date.now() - tS} ms`);

    // ---- file
    const n8q = C.n8q;
    const sG1 = n8q * 2, sG2 = n8q * 4;
    const sections = [];
    const hdr = new Uint8Array(4 + n8q + 8);
    const hv = new DataView(hdr.buffer);
    hv.setUint32(0, n8q, true);
    hdr.set(scalarsToBytesN(C.q, n8q), 4);
    hv.setUint32(4 + n8q, power, true);
    hv.setUint32(8 + n8q, power, true);
    sections.push({ id: 1, size: hdr.length, data: async () => [hdr] });
    const nLag = (maxL) => 2 ** (maxL + 1) - 1;
    sections.push({ id: 2, size: (nTau - 1) * sG1, data: () => mulGen("G1", tauPow.slice(0, nTau - 1)) });
    sections.push({ id: 3, size: (nTau / 2) * sG2, data: () => mulGen("G2", tauPow.slice(0, nTau / 2)) });
    sections.push({ id: 4, size: (nTau / 2) * sG1, data: () => mulGen("G1", scaled(tauPow.slice(0, nTau / 2), alpha)) });
    sections.push({ id: 5, size: (nTau / 2) * sG1, data: () => mulGen("G1", scaled(tauPow.slice(0, nTau / 2), beta)) });
    sections.push({ id: 6, size: sG2, data: () => mulGen("G2", [beta]) });
    sections.push({ id: 7, size: 4, data: async () => [new Uint8Array(4)] });
    if (!args.unprepared) {
        sections.push({ id: 12, size: nLag(power + 1) * sG1, data: () => mulGen("G1", lagUpTo(power + 1)) });
        sections.push({ id: 13, size: nLag(power) * sG2, data: () => mulGen("G2", lagUpTo(power)) });
        sections.push({ id: 14, size: nLag(power) * sG1, data: () => mulGen("G1", scaled(lagUpTo(power), alpha)) });
        sections.push({ id: 15, size: nLag(power) * sG1, data: () => mulGen("G1", scaled(lagUpTo(power), beta)) });
    }

    const tmpName = outName + ".tmp" + process.pid;
    const fd = fs.openSync(tmpName, "w");
    try {
        const fh = new Uint8Array(12);
        fh.set([0x70, 0x74, 0x61, 0x75]); // "ptau"
        new DataView(fh.buffer).setUint32(4, 1, true);
        new DataView(fh.buffer).setUint32(8, sections.length, true);
        fs.writeSync(fd, fh);
        // Start every section's point work right away so the workers never idle;
        // write sections in order as they complete.
        const results = sections.map((s) => s.data());
        for (let k = 0; k < sections.length; k++) {
            const s = sections[k];
            const sh = new Uint8Array(12);
            const dv = new DataView(sh.buffer);
            dv.setUint32(0, s.id, true);
            dv.setBigUint64(4, BigInt(s.size), true);
            fs.writeSync(fd, sh);
            let written = 0;
            for (const b of await results[k]) { fs.writeSync(fd, b); written += b.length; }
            if (written !== s.size) throw new Error(`section ${s.id}: wrote ${written}, expected ${s.size}`);
        }
        if (verbose) {
            for (const wk of workers) {
                const id = nextId++;
                const b = await new Promise((resolve, reject) => { pending.set(id, { resolve, reject }); wk.postMessage({ id, stats: 1 }); });
                console.error(`fast_ptau: worker busy ${b.toFixed(0)} ms`);
            }
        }
    } finally {
        fs.closeSync(fd);
        for (const wk of workers) await wk.terminate();
    }
    fs.renameSync(tmpName, outName);
    console.error(`fast_ptau: ${curveName} 2^${power} -> ${outName} in ${((Date.now() - t0) / 1000).toFixed(1)} s ` +
        `(${nThreads} threads, window ${win}) [INSECURE: known tau, test only]`);
}

function scalarsToBytesN(x, n) {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) { b[i] = Number(x & 0xffn); x >>= 8n; }
    return b;
}

if (isMainThread) {
    main().catch((e) => { console.error("fast_ptau: " + (e && e.stack || e)); process.exit(1); });
} else {
    workerMain().catch((e) => { console.error("fast_ptau worker: " + (e && e.stack || e)); process.exit(1); });
}
