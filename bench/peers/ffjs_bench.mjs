// Peer benchmark: the same NTT and MSM sizes as `g16 bench ntt|msm`, run with
// ffjavascript (snarkjs's arithmetic engine: WebAssembly, one worker per CPU).
//   node bench/peers/ffjs_bench.mjs ntt|msm --curve bn254|bls12-381 --log-n K
//        [--group g1|g2] [--reps R] [--json]
// Prints one JSON line per figure, shaped like g16's, with "backend":"ffjavascript":
//   {"bench":"msm","curve":"bn254","backend":"ffjavascript","group":"g1","log_n":20,"threads":2,"cpu_ms":...,"ms":...}
// cpu_ms is the process's CPU time (all threads): on a shared machine it shows
// the work done when the wall time is inflated by other load.
// ntt: Fr.fft (forward, natural order) on random elements.
// msm: G.multiExpAffine on random scalars below 2^(bits(r)-1) and bases that
// tile 4096 distinct random multiples of the generator (the MSM's cost does
// not depend on the bases being distinct).
// ffjavascript is installed with snarkjs by `npm ci --prefix tests/js`.
import { randomBytes } from "crypto";
import { performance } from "perf_hooks";
import { buildBn128, buildBls12381 } from "../../tests/js/node_modules/ffjavascript/main.js";

// CPU time of the whole process (main thread and the workers) since c0, ms.
function cpuMs(c0) {
    const d = process.cpuUsage(c0);
    return (d.user + d.system) / 1000;
}

function parseArgs(argv) {
    const o = { what: argv[0], curve: "bn254", logN: -1, group: "g1", reps: 0 };
    for (let i = 1; i < argv.length; i++) {
        const a = argv[i], v = argv[i + 1];
        if (a === "--curve") { o.curve = v; i++; }
        else if (a === "--log-n") { o.logN = parseInt(v, 10); i++; }
        else if (a === "--group") { o.group = v; i++; }
        else if (a === "--reps") { o.reps = parseInt(v, 10); i++; }
        else if (a === "--json" || a === "--threads") { if (a === "--threads") i++; }
        else throw new Error("unknown option " + a);
    }
    if (o.what !== "ntt" && o.what !== "msm") throw new Error("usage: ffjs_bench.mjs ntt|msm ...");
    if (o.curve === "bn128" || o.curve === "alt_bn128") o.curve = "bn254";
    if (o.curve === "bls12381" || o.curve === "bls12_381") o.curve = "bls12-381";
    return o;
}

// Random bytes with the top bits cleared: a valid element (< r) whatever the
// encoding (Montgomery for the FFT input, standard for MSM scalars).
function randomElems(n, n8, topMask) {
    const b = new Uint8Array(randomBytes(n * n8));
    for (let i = 0; i < n; i++) b[i * n8 + n8 - 1] &= topMask;
    return b;
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const curve = o.curve === "bn254" ? await buildBn128() : await buildBls12381();
    const topMask = o.curve === "bn254" ? 0x1f : 0x3f; // < 2^253 / < 2^254, both < r
    const threads = curve.tm.concurrency;
    const out = (rec) => console.log(JSON.stringify(rec));
    try {
        if (o.what === "ntt") {
            const k = o.logN >= 0 ? o.logN : 20, n = 1 << k;
            const reps = o.reps > 0 ? o.reps : (k >= 22 ? 1 : k >= 18 ? 3 : 5);
            const buff = randomElems(n, curve.Fr.n8, topMask);
            let best = Infinity, bestCpu = 0;
            for (let r = 0; r < reps + 1; r++) {
                const t0 = performance.now(), c0 = process.cpuUsage();
                await curve.Fr.fft(buff);
                const ms = performance.now() - t0, cms = cpuMs(c0);
                if (r > 0 && ms < best) { best = ms; bestCpu = cms; }
            }
            out({ bench: "ntt", curve: o.curve, backend: "ffjavascript", log_n: k, threads, cpu_ms: +bestCpu.toFixed(1), ms: +best.toFixed(3) });
        } else {
            const G = o.group === "g2" ? curve.G2 : curve.G1;
            const k = o.logN >= 0 ? o.logN : 16, n = 1 << k;
            const reps = o.reps > 0 ? o.reps : (k >= 18 ? 1 : 3);
            const sG = G.F.n8 * 2;
            const distinct = Math.min(n, 4096);
            const gen = new Uint8Array(distinct * sG);
            const g = new Uint8Array(sG);
            G.toRprLEM(g, 0, G.g);
            for (let i = 0; i < distinct; i++) gen.set(g, i * sG);
            const first = curve.Fr.e(12345678901234567890n), inc = curve.Fr.e(98765432109876543210n);
            const pts = await G.batchApplyKey(gen, first, inc, "affine", "affine");
            const bases = new Uint8Array(n * sG);
            for (let i = 0; i < n; i += distinct) bases.set(pts.subarray(0, Math.min(distinct, n - i) * sG), i * sG);
            const scalars = randomElems(n, curve.Fr.n8, topMask);
            let best = Infinity, bestCpu = 0;
            for (let r = 0; r < reps; r++) {
                const t0 = performance.now(), c0 = process.cpuUsage();
                await G.multiExpAffine(bases, scalars);
                const ms = performance.now() - t0, cms = cpuMs(c0);
                if (ms < best) { best = ms; bestCpu = cms; }
            }
            out({ bench: "msm", curve: o.curve, backend: "ffjavascript", group: o.group, log_n: k, threads, cpu_ms: +bestCpu.toFixed(1), ms: +best.toFixed(3) });
        }
    } finally {
        await curve.terminate();
    }
}

main().catch((e) => { console.error("ffjs_bench: " + e.message); process.exit(2); });
