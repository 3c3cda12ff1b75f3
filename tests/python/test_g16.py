"""unittest suite of the g16 Python package (run by tests/test_python.sh).

Environment: G16_LIBRARY (the libg16.so under test), G16_PY_SRC (the source
tree), G16_PY_TMP (a scratch folder), G16_INTEROP_CACHE (the snarkjs
fixtures; examples/poseidon stands in for missing ones). Prints
"N passed, M failed" last; exits 1 on any failure.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import g16
from g16 import _capi

SRC = os.environ.get("G16_PY_SRC") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TMP = os.environ.get("G16_PY_TMP") or tempfile.mkdtemp()
CACHE = os.environ.get("G16_INTEROP_CACHE") or os.path.join(SRC, ".cache", "interop")
SNARKJS = os.path.join(SRC, "tests", "js", "node_modules", "snarkjs", "cli.js")
CURVES = ("bn128", "bls12381")
CURVE_NAMES = {"bn128": "bn254", "bls12381": "bls12-381"}


def plain_env():
    """The environment for child programs: no sanitizer preload."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def fixtures():
    """(curve, circuit, folder, vk path) of each fixture to prove."""
    out = []
    for curve in CURVES:
        for circ in ("multiplier", "poseidon"):
            d = os.path.join(CACHE, curve, circ)
            if os.path.isfile(os.path.join(d, "circuit.zkey")) and os.path.isfile(os.path.join(d, "vk.json")):
                out.append((curve, circ, d, os.path.join(d, "vk.json")))
            elif circ == "poseidon":
                d = os.path.join(SRC, "examples", "poseidon", curve)
                out.append((curve, "poseidon(examples)", d, os.path.join(d, "verification_key.json")))
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def wtns_values(raw):
    """The 32-byte values of a .wtns (sections: 1 header, 2 values)."""
    assert raw[:4] == b"wtns"
    off, nsec = 12, int.from_bytes(raw[8:12], "little")
    for _ in range(nsec):
        typ = int.from_bytes(raw[off:off + 4], "little")
        size = int.from_bytes(raw[off + 4:off + 12], "little")
        if typ == 2:
            body = raw[off + 12:off + 12 + size]
            return [body[i:i + 32] for i in range(0, size, 32)]
        off += 12 + size
    raise ValueError("no values section")


def wtns_with(raw, values):
    """raw's header (prime) with these values: a well-formed .wtns."""
    off = 12
    typ = int.from_bytes(raw[off:off + 4], "little")
    size = int.from_bytes(raw[off + 4:off + 12], "little")
    assert typ == 1
    hdr = bytearray(raw[off + 12:off + 12 + size])
    hdr[-4:] = len(values).to_bytes(4, "little")  # n8, prime, nWitness
    body = b"".join(values)
    return (raw[:8] + (2).to_bytes(4, "little")
            + (1).to_bytes(4, "little") + len(hdr).to_bytes(8, "little") + bytes(hdr)
            + (2).to_bytes(4, "little") + len(body).to_bytes(8, "little") + body)


# A C program printing sizeof and each field's offset of the mirrored structs.
def c_layouts():
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "g16.h"', "int main(void) {"]
    for cname, cls in _capi.STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
        for fname, _ in cls._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (cname, fname, cname, fname))
    lines.append("return 0; }")
    d = tempfile.mkdtemp(dir=TMP)
    c = write(os.path.join(d, "layout.c"), "\n".join(lines).encode())
    exe = os.path.join(d, "layout")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", os.path.join(SRC, "include"), c, "-o", exe],
                   check=True, env=plain_env(), capture_output=True)
    out = subprocess.run([exe], check=True, env=plain_env(), capture_output=True, text=True).stdout
    return dict((k, int(v)) for k, v in (line.split() for line in out.splitlines()))


class Layout(unittest.TestCase):
    def test_structs_match_c(self):
        if shutil.which(os.environ.get("CC", "cc")) is None:
            self.skipTest("no C compiler")
        want = c_layouts()
        for cname, cls in _capi.STRUCTS.items():
            self.assertEqual(ctypes.sizeof(cls), want[cname], "sizeof(%s)" % cname)
            for fname, _ in cls._fields_:
                self.assertEqual(getattr(cls, fname).offset, want["%s.%s" % (cname, fname)],
                                 "offsetof(%s, %s)" % (cname, fname))

    def test_library_and_version(self):
        self.assertEqual(os.path.realpath(g16.library_path()), os.path.realpath(os.environ["G16_LIBRARY"]))
        self.assertRegex(g16.version(), r"^\d+\.\d+")
        self.assertIn("not on curve", g16.err_str(_capi.ERR_NOT_ON_CURVE))

    def test_package_version_and_place(self):
        pp = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
        if pp:
            self.assertTrue(os.path.realpath(g16.__file__).startswith(os.path.realpath(pp)), g16.__file__)
        with open(os.path.join(SRC, "python", "pyproject.toml")) as f:
            self.assertIn('version = "%s"' % g16.__version__, f.read())
        with open(os.path.join(SRC, "python", "_build_backend.py")) as f:
            self.assertIn('VERSION = "%s"' % g16.__version__, f.read())

    def test_library_next_to_package(self):
        # without G16_LIBRARY, a libg16.so in the package folder is found first
        d = tempfile.mkdtemp(dir=TMP)
        shutil.copytree(os.path.dirname(g16.__file__), os.path.join(d, "g16"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(os.environ["G16_LIBRARY"], os.path.join(d, "g16", "libg16.so"))
        env = dict(os.environ, PYTHONPATH=d)
        env.pop("G16_LIBRARY")
        out = subprocess.run([sys.executable, "-c", "import g16; print(g16.library_path()); print(g16.version())"],
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(out[0], os.path.join(d, "g16", "libg16.so"))
        self.assertEqual(out[1], g16.version())


class Prove(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = g16.Context(threads=2)

    @classmethod
    def tearDownClass(cls):
        cls.ctx.close()

    def snarkjs_verify(self, vk, public_json, proof_json, tag):
        if shutil.which("node") is None or not os.path.isfile(SNARKJS):
            return None
        d = tempfile.mkdtemp(dir=TMP)
        pub = write(os.path.join(d, "public.json"), public_json.encode())
        prf = write(os.path.join(d, "proof.json"), proof_json.encode())
        r = subprocess.run(["node", SNARKJS, "groth16", "verify", vk, pub, prf],
                           env=plain_env(), capture_output=True, text=True)
        return r.returncode == 0 and "OK!" in r.stdout

    def test_prove_fixtures(self):
        fx = fixtures()
        self.assertGreaterEqual(len(fx), 2)
        for curve, circ, d, vk in fx:
            with self.subTest(curve=curve, circuit=circ):
                with self.ctx.load_key(os.path.join(d, "circuit.zkey")) as key:
                    self.assertEqual(key.curve, CURVE_NAMES[curve])
                    wtns = os.path.join(d, "witness.wtns")
                    # witness from a path, then from bytes
                    for src in (wtns, read(wtns)):
                        res = self.ctx.prove(key, self.ctx.load_witness(src), backend="cpu")
                        proof_json, public_json = res
                        self.assertEqual(res.proof["protocol"], "groth16")
                        self.assertEqual(len(res.public), key.n_public)
                        self.assertEqual(res.stats["backend"], "cpu")
                        self.assertTrue(self.ctx.verify(read(vk).decode(), public_json, proof_json))
                        self.assertTrue(self.ctx.verify(vk, res.public, res.proof))
                        ok = self.snarkjs_verify(vk, public_json, proof_json, curve + circ)
                        if ok is not None:
                            self.assertTrue(ok, "snarkjs rejects the proof")
                    # a changed public input: False, not an exception
                    pub = res.public
                    pub[-1] = str(int(pub[-1]) + 1)
                    self.assertFalse(self.ctx.verify(vk, pub, proof_json))
                    self.assertIn(self.snarkjs_verify(vk, json.dumps(pub), proof_json, curve + circ), (None, False))
                    # files written by prove(), verified through g16_verify_files
                    t = tempfile.mkdtemp(dir=TMP)
                    pp, up = os.path.join(t, "proof.json"), os.path.join(t, "public.json")
                    self.ctx.prove(key, wtns, backend="auto", proof_path=pp, public_path=up)
                    self.assertTrue(self.ctx.verify(vk, up, pp))

    def test_wrong_witness(self):
        for curve, circ, d, vk in fixtures():
            with self.subTest(curve=curve, circuit=circ):
                key = self.ctx.load_key(os.path.join(d, "circuit.zkey"))
                raw = read(os.path.join(d, "witness.wtns"))
                values = wtns_values(raw)
                # w[1] (the first output) + 1: its constraint fails
                v = int.from_bytes(values[1], "little") + 1
                bad = wtns_with(raw, values[:1] + [v.to_bytes(32, "little")] + values[2:])
                self.assertEqual(self.ctx.prove(key, wtns_with(raw, values), backend="cpu").public,
                                 self.ctx.prove(key, raw, backend="cpu").public)
                with self.assertRaises(g16.InvalidProof) as cm:
                    self.ctx.prove(key, bad, backend="cpu")
                self.assertEqual(cm.exception.code, _capi.ERR_INVALID_PROOF)
                # a well-formed witness of another length
                with self.assertRaises(g16.Error) as cm:
                    self.ctx.prove(key, wtns_with(raw, values[:-1]), backend="cpu")
                self.assertEqual(cm.exception.code, _capi.ERR_SIZE_MISMATCH, str(cm.exception))
                self.assertIsInstance(cm.exception, g16.SizeMismatch)
                # the other curve's witness
                o = "bls12381" if curve == "bn128" else "bn128"
                with self.assertRaises(g16.WrongCurve) as cm:
                    self.ctx.prove(key, os.path.join(SRC, "examples", "poseidon", o, "witness.wtns"),
                                   backend="cpu")
                self.assertEqual(cm.exception.code, _capi.ERR_WRONG_CURVE)
                key.close()

    def test_bad_files(self):
        d = tempfile.mkdtemp(dir=TMP)
        zkey = os.path.join(SRC, "examples", "poseidon", "bn128", "circuit.zkey")
        data = read(zkey)
        trunc = write(os.path.join(d, "half-key.zkey"), data[:len(data) // 2])
        with self.assertRaises(g16.Error) as cm:
            self.ctx.load_key(trunc)
        self.assertEqual(cm.exception.code, _capi.ERR_TRUNCATED, str(cm.exception))
        self.assertIn("half-key.zkey", cm.exception.message)
        missing = os.path.join(d, "no-such-witness.wtns")
        with self.assertRaises(g16.IOError) as cm:
            self.ctx.load_witness(missing)
        self.assertEqual(cm.exception.code, _capi.ERR_IO)
        self.assertIn("no-such-witness.wtns", cm.exception.message)
        self.assertIsInstance(cm.exception, OSError)
        junk = write(os.path.join(d, "junk.wtns"), b"not a witness at all, clearly")
        with self.assertRaises(g16.Error) as cm:
            self.ctx.load_witness(junk)
        self.assertIn("junk.wtns", cm.exception.message)
        with self.assertRaises(g16.Error):
            self.ctx.load_witness(b"wtns\x02\x00\x00\x00")
        # verify: bad input raises, naming the file
        vk = os.path.join(SRC, "examples", "poseidon", "bn128", "verification_key.json")
        bad = write(os.path.join(d, "broken-proof.json"), b'{"pi_a": [1,2')
        with self.assertRaises(g16.Error) as cm:
            self.ctx.verify(vk, "[]", bad)
        with self.assertRaises(g16.FormatError) as cm:
            self.ctx.verify(vk, write(os.path.join(d, "public.json"), b"[]"), bad)
        self.assertIn("broken-proof.json", cm.exception.message)
        with self.assertRaises(g16.InvalidArgument):
            self.ctx.prove(zkey, os.path.join(SRC, "examples", "poseidon", "bn128", "witness.wtns"),
                           backend="quantum")


class EngineJob(unittest.TestCase):
    def test_three_partitions(self):
        for curve, circ, d, vk in fixtures()[:1] + [f for f in fixtures() if f[0] == "bls12381"][:1]:
            with self.subTest(curve=curve, circuit=circ):
                with g16.Context(threads=2) as ctx:
                    eng = g16.Engine(ctx, backend="cpu", workers=1)
                    try:
                        kid = eng.add_key(os.path.join(d, "circuit.zkey"))
                        self.assertEqual(eng.add_key(os.path.join(d, "circuit.zkey")), kid)
                        wtns = os.path.join(d, "witness.wtns")
                        job = eng.submit(kid, [wtns, read(wtns), wtns], priority="high")
                        info = eng.wait(job, timeout=60)
                        self.assertEqual(info.state, "done", info.message)
                        self.assertEqual((info.partitions, info.proved, info.failed), (3, 3, 0))
                        res = eng.results(job)
                        self.assertEqual(len(res), 3)
                        for proof_json, public_json in res:
                            self.assertTrue(ctx.verify(vk, public_json, proof_json))
                        self.assertEqual(res[0].public, res[2].public)
                        self.assertNotEqual(res[0].proof, res[1].proof)  # fresh r, s each
                        tl = eng.timeline()
                        dev = [s for s in tl["spans"] if s["job"] == job and s["stage"] == "device"]
                        self.assertEqual(sorted(s["partition"] for s in dev), [0, 1, 2])
                        self.assertTrue(all(s["device"] is None and s["start"] <= s["end"] <= tl["now"] for s in dev))
                        tr = eng.timeline(since=tl["now"] + 3600, chrome=True)
                        self.assertEqual(tr["traceEvents"], [])
                        eng.release(job)
                        with self.assertRaises(g16.InvalidArgument):
                            eng.info(job)
                        # a job with a bad partition fails with that partition's code
                        job = eng.submit(kid, [wtns, b"garbage", wtns])
                        info = eng.wait(job, timeout=60)
                        self.assertEqual(info.state, "failed")
                        self.assertEqual(info.failed_partition, 1)
                        with self.assertRaises(g16.Error) as cm:
                            eng.results(job)
                        self.assertEqual(cm.exception.code, info.err)
                        eng.release(job)
                        with self.assertRaises(g16.InvalidArgument):
                            eng.submit(kid + 1000, [wtns])
                        # a wait that runs out raises Timeout (unless the job is done already)
                        job = eng.submit(kid, [wtns] * 8, priority="low")
                        try:
                            self.assertEqual(eng.wait(job, timeout=0).state, "done")
                        except g16.Timeout as e:
                            self.assertEqual(e.code, _capi.ERR_TIMEOUT)
                        self.assertEqual(eng.wait(job).state, "done")
                        eng.release(job)
                    finally:
                        eng.close()


EXAMPLE = os.path.join(SRC, "examples", "poseidon")


def node_tools():
    """node and tests/js/node_modules (circom2, circomlib, snarkjs), or None."""
    nm = os.path.join(SRC, "tests", "js", "node_modules")
    if shutil.which("node") is None or not all(
            os.path.exists(os.path.join(nm, p)) for p in ("circom2/cli.js", "circomlib", "snarkjs/cli.js")):
        return None
    return os.path.realpath(nm)


class WitnessGen(unittest.TestCase):
    """prove(input=..., witness_gen=...) and generate_witness: a generator
    script (GEN INPUT OUT) that checks its input and writes the example's
    witness, its failure, and circom's .wasm when node and circom2 are here."""

    @classmethod
    def setUpClass(cls):
        # The generators are children of this process: without the
        # sanitizer preload (already in effect here; ASan's shadow memory
        # does not fit the generators' memory limit).
        os.environ.pop("LD_PRELOAD", None)
        cls.ctx = g16.Context(threads=2)
        cls.d = tempfile.mkdtemp(dir=TMP)
        cls.zkey = os.path.join(EXAMPLE, "bn128", "circuit.zkey")
        cls.vk = os.path.join(EXAMPLE, "bn128", "verification_key.json")
        cls.wtns = os.path.join(EXAMPLE, "bn128", "witness.wtns")
        cls.gen = os.path.join(cls.d, "gen.sh")
        write(cls.gen, ("#!/bin/sh\n"
                        "grep -q '\"x\"' \"$1\" || { echo 'gen.sh: no x in the input' >&2; exit 3; }\n"
                        "cp '%s' \"$2\"\n" % cls.wtns).encode())
        os.chmod(cls.gen, 0o755)
        cls.input = json.loads(read(os.path.join(EXAMPLE, "input.json")))

    @classmethod
    def tearDownClass(cls):
        cls.ctx.close()

    def test_prove_from_input(self):
        key = self.ctx.load_key(self.zkey)
        path = os.path.join(EXAMPLE, "input.json")
        publics = []
        for inp in (self.input, json.dumps(self.input), path):
            with self.subTest(input=type(inp).__name__):
                res = self.ctx.prove(key, input=inp, witness_gen=self.gen, backend="cpu")
                self.assertEqual(res.public[-1], self.input["y"])  # public: [out, y]
                publics.append(res.public)
                self.assertTrue(self.ctx.verify(self.vk, res.public_json, res.proof_json))
        self.assertEqual(publics, [publics[0]] * 3)
        w = self.ctx.generate_witness(self.gen, self.input, timeout=30)
        self.assertTrue(self.ctx.verify(self.vk, *reversed(self.ctx.prove(key, w))))
        w.close()

    def test_generator_failure(self):
        with self.assertRaises(g16.WitnessGeneratorError) as cm:
            self.ctx.prove(self.zkey, input={"y": "1"}, witness_gen=self.gen)
        self.assertIn("gen.sh: no x in the input", cm.exception.message)
        with self.assertRaises(g16.FormatError):
            self.ctx.generate_witness(self.gen, "[1, 2]")
        with self.assertRaises(g16.IOError):
            self.ctx.generate_witness(os.path.join(self.d, "missing"), self.input)
        with self.assertRaises(g16.InvalidArgument):
            self.ctx.prove(self.zkey, self.wtns, input=self.input, witness_gen=self.gen)
        with self.assertRaises(g16.InvalidArgument):
            self.ctx.prove(self.zkey, input=self.input)

    def test_circom_wasm(self):
        nm = node_tools()
        if nm is None:
            self.skipTest("node or tests/js/node_modules (circom2) missing")
        out = os.path.realpath(tempfile.mkdtemp(dir=TMP))
        # circom2 (WASI) reads paths relative to its working directory only
        r = subprocess.run(["node", os.path.join(nm, "circom2", "cli.js"),
                            os.path.relpath(os.path.join(EXAMPLE, "poseidon.circom"), "/"), "--wasm",
                            "--prime", "bn128", "-l", os.path.relpath(nm, "/"), "-o", os.path.relpath(out, "/")],
                           cwd="/", env=plain_env(), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        wasm = os.path.join(out, "poseidon_js", "poseidon.wasm")
        res = self.ctx.prove(self.zkey, input=self.input, witness_gen=wasm)
        self.assertEqual(res.public, self.ctx.prove(self.zkey, self.wtns).public)
        self.assertTrue(self.ctx.verify(self.vk, res.public, res.proof))


class Solidity(unittest.TestCase):
    """solidity_verifier and solidity_calldata: every form of the key gives
    one text, snarkjs's (when node is here)."""

    def test_verifier_and_calldata(self):
        ctx = g16.Context(threads=2)
        d = os.path.join(EXAMPLE, "bn128")
        zkey, vk = os.path.join(d, "circuit.zkey"), os.path.join(d, "verification_key.json")
        key = ctx.load_key(zkey)
        t = tempfile.mkdtemp(dir=TMP)
        sol_file = os.path.join(t, "verifier.sol")
        forms = [ctx.solidity_verifier(key), ctx.solidity_verifier(zkey), ctx.solidity_verifier(vk, sol_file),
                 ctx.solidity_verifier(json.loads(read(vk))), ctx.solidity_verifier(read(vk).decode())]
        self.assertIn("contract Groth16Verifier", forms[0])
        for f in forms[1:]:
            self.assertEqual(f, forms[0])
        self.assertEqual(read(sol_file).decode(), forms[0])
        pp, up = os.path.join(t, "proof.json"), os.path.join(t, "public.json")
        res = ctx.prove(key, os.path.join(d, "witness.wtns"), proof_path=pp, public_path=up)
        cd = ctx.solidity_calldata(up, pp)
        self.assertEqual(ctx.solidity_calldata(res.public_json, res.proof_json), cd)
        self.assertEqual(ctx.solidity_calldata(res.public, res.proof), cd)
        self.assertTrue(cd.startswith('["0x'), cd)
        with self.assertRaises(g16.Error):
            ctx.solidity_calldata(up, up)
        if shutil.which("node") is not None and os.path.isfile(SNARKJS):
            snark_sol = os.path.join(t, "snarkjs.sol")
            subprocess.run(["node", SNARKJS, "zkey", "export", "solidityverifier", zkey, snark_sol],
                           check=True, env=plain_env(), capture_output=True)
            self.assertEqual(read(snark_sol).decode(), forms[0])
            r = subprocess.run(["node", SNARKJS, "zkey", "export", "soliditycalldata", up, pp],
                               check=True, env=plain_env(), capture_output=True, text=True)
            self.assertEqual(r.stdout.rstrip("\n"), cd)
        ctx.close()


class Counting(unittest.TextTestResult):
    pass


if __name__ == "__main__":
    runner = unittest.TextTestRunner(verbosity=2, resultclass=Counting, stream=sys.stdout)
    result = runner.run(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
    failed = len(set(t.id() for t, _ in result.failures + result.errors))
    skipped = len(set(t.id() for t, _ in result.skipped))
    passed = result.testsRun - failed - skipped
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    sys.exit(1 if failed else 0)
