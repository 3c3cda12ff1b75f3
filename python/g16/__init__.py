"""g16: Groth16 proofs (BN254, BLS12-381; circom/snarkjs files) from Python.

A thin ctypes layer over libg16.so (include/g16.h). Example::

    import g16
    with g16.Context() as ctx:
        key = ctx.load_key("circuit.zkey")
        w = ctx.load_witness("witness.wtns")
        proof, public = ctx.prove(key, w)          # snarkjs JSON texts
        assert ctx.verify("vk.json", public, proof)

From an input.json through circom's witness generator (its .wasm, run by
node through the generate_witness.js beside it, or its C++ binary)::

        proof, public = ctx.prove(key, input={"x": "3", "y": "11"},
                                  witness_gen="circuit_js/circuit.wasm")

Solidity: ctx.solidity_verifier(key) and ctx.solidity_calldata(public,
proof) return snarkjs's verifier contract and verifyProof arguments.

Errors raise g16.Error subclasses; each carries .code (the g16_err value)
and .message (the library's one-line message, g16_last_error).
"""
import ctypes
import json
import os
import time

from . import _capi
from ._capi import c_uint64

__version__ = "0.1.0"

__all__ = [
    "Context", "Key", "Witness", "ProveResult", "Engine", "JobInfo",
    "Error", "InvalidArgument", "NoMemory", "IOError", "Truncated", "FormatError",
    "NotCanonical", "NotOnCurve", "NotInSubgroup", "WrongCurve", "SizeMismatch",
    "Unsupported", "InvalidProof", "DeviceError", "NoDevice", "Cancelled", "Timeout",
    "InternalError", "WitnessGeneratorError", "version", "library_path", "err_str",
]


# ---- errors ----------------------------------------------------------------

class Error(Exception):
    """A g16 call failed: .code is the g16_err value, .message its line."""
    code = None

    def __init__(self, code, message):
        self.code = code
        self.message = message
        super().__init__(message)

    def __str__(self):
        return "%s (%s)" % (self.message, err_str(self.code)) if self.message else err_str(self.code)


class InvalidArgument(Error, ValueError): pass      # noqa: E701
class NoMemory(Error, MemoryError): pass           # noqa: E701
class IOError(Error, OSError): pass                # noqa: E701,A001 (g16.IOError shadows the builtin)
class Truncated(Error): pass                        # noqa: E701
class FormatError(Error, ValueError): pass         # noqa: E701
class NotCanonical(Error, ValueError): pass        # noqa: E701
class NotOnCurve(Error, ValueError): pass          # noqa: E701
class NotInSubgroup(Error, ValueError): pass       # noqa: E701
class WrongCurve(Error, ValueError): pass          # noqa: E701
class SizeMismatch(Error, ValueError): pass        # noqa: E701
class Unsupported(Error): pass                      # noqa: E701
class InvalidProof(Error): pass                     # noqa: E701
class DeviceError(Error): pass                      # noqa: E701
class NoDevice(Error): pass                         # noqa: E701
class Cancelled(Error): pass                        # noqa: E701
class Timeout(Error, TimeoutError): pass           # noqa: E701
class InternalError(Error): pass                    # noqa: E701
class WitnessGeneratorError(Error): pass            # noqa: E701


_ERRORS = {
    _capi.ERR_INVALID_ARG: InvalidArgument, _capi.ERR_NOMEM: NoMemory,
    _capi.ERR_IO: IOError, _capi.ERR_TRUNCATED: Truncated, _capi.ERR_FORMAT: FormatError,
    _capi.ERR_NOT_CANONICAL: NotCanonical, _capi.ERR_NOT_ON_CURVE: NotOnCurve,
    _capi.ERR_NOT_IN_SUBGROUP: NotInSubgroup, _capi.ERR_WRONG_CURVE: WrongCurve,
    _capi.ERR_SIZE_MISMATCH: SizeMismatch, _capi.ERR_UNSUPPORTED: Unsupported,
    _capi.ERR_INVALID_PROOF: InvalidProof, _capi.ERR_DEVICE: DeviceError,
    _capi.ERR_NO_DEVICE: NoDevice, _capi.ERR_CANCELLED: Cancelled,
    _capi.ERR_TIMEOUT: Timeout, _capi.ERR_INTERNAL: InternalError,
    _capi.ERR_WITNESS_GEN: WitnessGeneratorError,
}
for _code, _cls in _ERRORS.items():
    _cls.code = _code
del _code, _cls


def _error(code, message=None):
    """The Error subclass instance for code; message defaults to this
    thread's g16_last_error line."""
    if message is None:
        buf = ctypes.create_string_buffer(1024)
        last = _capi.lib().g16_last_error(buf, len(buf))
        message = buf.value.decode("utf-8", "replace") if last == code else ""
    return _ERRORS.get(code, Error)(code, message)


def _check(code):
    if code != _capi.OK:
        raise _error(code)


def err_str(code):
    """The library's name of a g16_err code, e.g. "not on curve"."""
    s = _capi.lib().g16_err_str(code)
    return s.decode() if s else "error %d" % code


def version():
    """libg16's version string (g16_version)."""
    return _capi.lib().g16_version().decode()


def library_path():
    """The path (or name) libg16 was loaded from."""
    return _capi.lib_path()


def _path(p):
    return os.fsencode(p)


def _take_text(ptr):
    """A char * the library malloc'd, as str (and freed)."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        _capi.lib().g16_free(ptr)


_BACKENDS = {"auto": _capi.BACKEND_AUTO, "cpu": _capi.BACKEND_CPU, "cuda": _capi.BACKEND_CUDA}
_BACKEND_NAMES = {v: k for k, v in _BACKENDS.items()}
_CURVES = {_capi.CURVE_BN254: "bn254", _capi.CURVE_BLS12_381: "bls12-381"}
_TIERS = {"none": _capi.TIER_NONE, "mmap": _capi.TIER_MMAP, "host": _capi.TIER_HOST}
_PRIORITIES = {"low": 0, "normal": 1, "high": 2, "critical": 3}
_JOB_STATES = {0: "queued", 1: "running", 2: "done", 3: "failed", 4: "cancelled"}


def _enum(table, value, what):
    if isinstance(value, int):
        return value
    try:
        return table[str(value).lower()]
    except KeyError:
        raise InvalidArgument(_capi.ERR_INVALID_ARG,
                              "%s: %r is not one of %s" % (what, value, ", ".join(table))) from None


# ---- keys, witnesses, results ----------------------------------------------

class _Handle:
    """An owned library object, freed by close() (or when collected)."""
    _free = None

    def __init__(self, ptr, owner):
        self._ptr = ptr
        self._owner = owner  # what must outlive it (the context)

    def close(self):
        if self._ptr:
            getattr(_capi.lib(), self._free)(self._ptr)
            self._ptr = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def _as_parameter_(self):
        if not self._ptr:
            raise InvalidArgument(_capi.ERR_INVALID_ARG, "%s is closed" % type(self).__name__)
        return self._ptr


class Key(_Handle):
    """A loaded proving key (.zkey). Attributes: path, curve ("bn254" or
    "bls12-381"), n_vars, n_public, domain_size, n_coefficients."""
    _free = "g16_key_free"

    def __init__(self, ptr, ctx, path):
        super().__init__(ptr, ctx)
        self.path = path
        info = _capi.KeyInfo()
        _check(_capi.lib().g16_key_get_info(ctx, ctypes.byref(info), ptr))
        self.curve = _CURVES.get(info.curve, str(info.curve))
        self.n_vars = info.n_vars
        self.n_public = info.n_public
        self.domain_size = info.domain_size
        self.n_coefficients = info.n_coefficients

    def export_vk(self, path):
        """Writes snarkjs's verification_key.json for this key at path."""
        _check(_capi.lib().g16_key_export_vk(self._owner, self, _path(path)))

    def __repr__(self):
        return "<g16.Key %s %s vars=%d public=%d domain=%d>" % (
            self.path, self.curve, self.n_vars, self.n_public, self.domain_size)


class Witness(_Handle):
    """A loaded witness (.wtns); close() wipes it."""
    _free = "g16_witness_free"


class ProveResult(tuple):
    """(proof_json, public_json): snarkjs's proof.json and public.json texts.
    Also: .proof (dict), .public (list of decimal strings), .stats (dict)."""

    def __new__(cls, proof_json, public_json, stats=None):
        self = super().__new__(cls, (proof_json, public_json))
        self.stats = stats or {}
        return self

    @property
    def proof_json(self):
        return self[0]

    @property
    def public_json(self):
        return self[1]

    @property
    def proof(self):
        return json.loads(self[0])

    @property
    def public(self):
        return json.loads(self[1])


def _stats_dict(st):
    return {"synth_ms": st.synth_ms, "ntt_ms": st.ntt_ms, "msm_ms": st.msm_ms,
            "finalize_ms": st.finalize_ms, "total_ms": st.total_ms, "verify_ms": st.verify_ms,
            "backend": _BACKEND_NAMES.get(st.backend, st.backend),
            "backend_note": st.backend_note.decode("utf-8", "replace")}


def _json_arg(x, what):
    """(text, None) for JSON given as text/dict/list/bytes; (None, path) for a path."""
    if isinstance(x, (dict, list)):
        return json.dumps(x), None
    if isinstance(x, (bytes, bytearray)):
        x = bytes(x).decode("utf-8")
    if isinstance(x, os.PathLike):
        return None, x
    if isinstance(x, str):
        s = x.lstrip()
        if s.startswith("{") or s.startswith("["):
            return x, None
        return None, x
    raise InvalidArgument(_capi.ERR_INVALID_ARG,
                          "%s: expected JSON text, a dict/list or a path, not %s" % (what, type(x).__name__))


# ---- context ---------------------------------------------------------------

class Context(_Handle):
    """A g16 context: a thread pool (threads=0: every online CPU), options
    (set_option), and the functions that load, prove and verify."""
    _free = "g16_ctx_destroy"

    def __init__(self, threads=0, options=None):
        lib = _capi.lib()
        opts = _capi.CtxOpts(threads=threads)
        ptr = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(512)
        code = lib.g16_ctx_create_ex(ctypes.byref(ptr), ctypes.byref(opts), msg, len(msg))
        if code != _capi.OK:
            raise _error(code, msg.value.decode("utf-8", "replace"))
        super().__init__(ptr.value, None)
        for name, value in (options or {}).items():
            self.set_option(name, value)

    @property
    def threads(self):
        return _capi.lib().g16_ctx_threads(self)

    def set_option(self, name, value):
        """Sets option `name` (docs/config.md) from its text form."""
        if isinstance(value, bool):
            value = "true" if value else "false"
        _check(_capi.lib().g16_ctx_set_option(self, name.encode(), str(value).encode(), 2))

    def load_key(self, path, trusted=False, check_subgroup=False):
        """Loads and validates a .zkey (memory-mapped) -> Key."""
        flags = (_capi.KEY_TRUSTED if trusted else 0) | (_capi.KEY_CHECK_SUBGROUP if check_subgroup else 0)
        ptr = ctypes.c_void_p()
        _check(_capi.lib().g16_key_load(self, ctypes.byref(ptr), _path(path), flags))
        return Key(ptr.value, self, os.fspath(path))

    def load_witness(self, source):
        """A Witness from a .wtns path (str or PathLike) or its bytes."""
        ptr = ctypes.c_void_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            _check(_capi.lib().g16_witness_from_wtns_bytes(self, ctypes.byref(ptr), data, len(data)))
        else:
            _check(_capi.lib().g16_witness_load(self, ctypes.byref(ptr), _path(source)))
        return Witness(ptr.value, self)

    def generate_witness(self, witness_gen, input, timeout=0, memory_mb=0, node=None):
        """Runs circom's witness generator on one input -> Witness
        (g16_witness_generate, docs/witgen.md). witness_gen: the .wasm
        (run by node through the generate_witness.js beside it) or the C++
        generator (any executable, run as GEN INPUT OUT); input: a dict,
        JSON text, or the path of an input.json. timeout (seconds),
        memory_mb and node (the node program for a .wasm): 0 / None take the
        context's options (witgen.timeout_s, witgen.memory_mb, witgen.node).
        Raises WitnessGeneratorError when the generator fails (the message
        names it and the input, with the last lines of its output),
        FormatError when the input is not a JSON object, IOError when the
        generator cannot be used."""
        lib = _capi.lib()
        opts = _capi.WitgenOpts()
        lib.g16_witgen_opts_init(ctypes.byref(opts))
        opts.timeout_s = float(timeout or 0)
        opts.memory_bytes = int(memory_mb or 0) * 1024 * 1024
        opts.node = None if node is None else _path(node)
        text, path = _json_arg(input, "input")
        ptr = ctypes.c_void_p()
        if text is None:
            _check(lib.g16_witness_generate(self, ctypes.byref(ptr), _path(witness_gen), _path(path), None, 0,
                                            ctypes.byref(opts)))
        else:
            data = text.encode("utf-8")
            _check(lib.g16_witness_generate(self, ctypes.byref(ptr), _path(witness_gen), None, data, len(data),
                                            ctypes.byref(opts)))
        return Witness(ptr.value, self)

    def prove(self, key, witness=None, backend="auto", verify=True, device=0,
              proof_path=None, public_path=None, input=None, witness_gen=None,
              witgen_timeout=0, witgen_memory_mb=0, node=None):
        """Proves witness (a Witness, a .wtns path or its bytes) against key
        (a Key or a .zkey path) -> ProveResult (proof_json, public_json).
        In place of a witness: input (a dict, JSON text or an input.json
        path) and witness_gen (circom's generator), with witgen_timeout,
        witgen_memory_mb and node as generate_witness's options.
        backend: "auto", "cpu" or "cuda"; verify: check the proof before
        returning it (InvalidProof when the witness does not satisfy the
        circuit). proof_path/public_path: also write the files there."""
        lib = _capi.lib()
        if (witness is None) == (input is None and witness_gen is None):
            raise InvalidArgument(_capi.ERR_INVALID_ARG,
                                  "prove: give either a witness, or input and witness_gen")
        if witness is None and (input is None or witness_gen is None):
            raise InvalidArgument(_capi.ERR_INVALID_ARG, "prove: input and witness_gen go together")
        own_key = own_w = None
        if not isinstance(key, Key):
            key = own_key = self.load_key(key)
        try:
            if witness is None:
                witness = own_w = self.generate_witness(witness_gen, input, timeout=witgen_timeout,
                                                        memory_mb=witgen_memory_mb, node=node)
            elif not isinstance(witness, Witness):
                witness = own_w = self.load_witness(witness)
        except BaseException:
            if own_key is not None:
                own_key.close()
            raise
        try:
            opts = _capi.ProveOpts()
            lib.g16_prove_opts_init(ctypes.byref(opts))
            opts.backend = _enum(_BACKENDS, backend, "backend")
            opts.verify = 1 if verify else 0
            opts.device = device
            stats = _capi.ProveStats()
            res = ctypes.c_void_p()
            _check(lib.g16_prove(self, ctypes.byref(res), key, witness, ctypes.byref(opts), ctypes.byref(stats)))
            try:
                pj, uj = ctypes.c_void_p(), ctypes.c_void_p()
                _check(lib.g16_result_json(self, ctypes.byref(pj), ctypes.byref(uj), res))
                proof_json, public_json = _take_text(pj), _take_text(uj)
                if proof_path is not None or public_path is not None:
                    _check(lib.g16_result_write(self, res,
                                                None if proof_path is None else _path(proof_path),
                                                None if public_path is None else _path(public_path)))
            finally:
                lib.g16_result_free(res)
            return ProveResult(proof_json, public_json, _stats_dict(stats))
        finally:
            if own_w is not None:
                own_w.close()
            if own_key is not None:
                own_key.close()

    def verify(self, vk, public, proof):
        """Verifies a Groth16 proof: each argument is snarkjs JSON as text, a
        dict/list, or a path to the file (verification_key.json,
        public.json, proof.json). Returns True for a valid proof, False for
        an invalid one; raises Error for bad input (a malformed file, a point
        off the curve, the wrong number of public inputs, ...)."""
        lib = _capi.lib()
        args = [_json_arg(vk, "vk"), _json_arg(public, "public"), _json_arg(proof, "proof")]
        if all(text is None for text, _ in args):
            code = lib.g16_verify_files(self, *[_path(p) for _, p in args])
        else:
            texts = []
            for text, path in args:
                if text is None:
                    try:
                        with open(path, "rb") as f:
                            text = f.read().decode("utf-8")
                    except OSError as e:
                        raise IOError(_capi.ERR_IO, "%s: %s" % (os.fspath(path), e.strerror)) from None
                    except UnicodeDecodeError:
                        raise FormatError(_capi.ERR_FORMAT, "%s: not UTF-8 text" % os.fspath(path)) from None
                texts.append(text.encode("utf-8"))
            code = lib.g16_verify_json(self, *texts)
        if code == _capi.OK:
            return True
        if code == _capi.ERR_INVALID_PROOF:
            return False
        raise _error(code)


    def solidity_verifier(self, key, path=None):
        """snarkjs's Solidity verifier contract (`snarkjs zkey export
        solidityverifier`, byte for byte) -> str. key: a Key, a .zkey or
        verification_key.json path, or the verification key as a dict or
        JSON text. path: also write the contract there (atomically)."""
        lib = _capi.lib()
        sol = ctypes.c_void_p()
        if isinstance(key, Key):
            _check(lib.g16_export_solidity_verifier(self, ctypes.byref(sol), key))
        else:
            text, vk_path = _json_arg(key, "key")
            if text is None:
                _check(lib.g16_export_solidity_verifier_file(self, ctypes.byref(sol), None, None, _path(vk_path),
                                                             None if path is None else _path(path)))
                return _take_text(sol)
            _check(lib.g16_export_solidity_verifier_json(self, ctypes.byref(sol), text.encode("utf-8")))
        out = _take_text(sol)
        if path is not None:
            tmp = os.fspath(path) + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(out)
            os.replace(tmp, path)
        return out

    def solidity_calldata(self, public, proof):
        """The verifyProof arguments `snarkjs zkey export soliditycalldata`
        prints for a proof (without its newline) -> str. public, proof:
        snarkjs JSON as text, a dict/list, or paths to the files."""
        lib = _capi.lib()
        cd = ctypes.c_void_p()
        (ut, up), (pt, pp) = _json_arg(public, "public"), _json_arg(proof, "proof")
        if ut is None and pt is None:
            _check(lib.g16_export_solidity_calldata_files(self, ctypes.byref(cd), _path(up), _path(pp)))
        else:
            texts = []
            for text, p in ((ut, up), (pt, pp)):
                if text is None:
                    with open(p, "rb") as f:
                        text = f.read().decode("utf-8")
                texts.append(text.encode("utf-8"))
            _check(lib.g16_export_solidity_calldata(self, ctypes.byref(cd), *texts))
        return _take_text(cd)


# ---- engine ----------------------------------------------------------------

class JobInfo:
    """A job's state: state ("queued", "running", "done", "failed",
    "cancelled"), partitions, proved, failed, err (g16_err code), message,
    failed_partition, finish_seq, latency_ms."""

    def __init__(self, job_id, info):
        self.job_id = job_id
        self.state = _JOB_STATES.get(info.state, str(info.state))
        self.partitions = info.partitions
        self.proved = info.proved
        self.failed = info.failed
        self.err = info.err
        self.failed_partition = info.failed_partition
        self.message = info.msg.decode("utf-8", "replace")
        self.finish_seq = info.finish_seq
        self.latency_ms = info.latency_ms

    @property
    def finished(self):
        return self.state in ("done", "failed", "cancelled")

    def __repr__(self):
        return "<g16.JobInfo %d %s %d/%d proved>" % (self.job_id, self.state, self.proved, self.partitions)


class Engine(_Handle):
    """A proving engine (docs/engine.md) on a Context: keys kept resident,
    jobs of several witnesses (partitions), each proof verified before it is
    returned. close(drain=True) finishes accepted jobs first."""
    _free = None

    def __init__(self, ctx, backend="auto", workers=0, synth_threads=0, lookahead=0,
                 budget_bytes=0, verify=True, devices=0, workers_per_device=0,
                 device_budget_bytes=0, gpu_tables=False, timeline_path=None):
        lib = _capi.lib()
        self._timeline = None if timeline_path is None else _path(timeline_path)
        opts = _capi.EngineOpts(budget_bytes=budget_bytes, workers=workers, synth_threads=synth_threads,
                                lookahead=lookahead, no_verify=0 if verify else 1,
                                timeline_path=self._timeline,
                                backend=_enum(_BACKENDS, backend, "backend"),
                                workers_per_device=workers_per_device, devices=devices,
                                device_budget_bytes=device_budget_bytes, gpu_tables=1 if gpu_tables else 0)
        ptr = ctypes.c_void_p()
        _check(lib.g16_engine_create(ctx, ctypes.byref(ptr), ctypes.byref(opts)))
        super().__init__(ptr.value, ctx)

    def close(self, drain=True):
        if self._ptr:
            _capi.lib().g16_engine_destroy(self._ptr, 1 if drain else 0)
            self._ptr = None

    def add_key(self, path, tier="mmap", trusted=False, check_subgroup=False):
        """Registers and loads a .zkey -> its key id (int)."""
        flags = (_capi.KEY_TRUSTED if trusted else 0) | (_capi.KEY_CHECK_SUBGROUP if check_subgroup else 0)
        kid = c_uint64()
        _check(_capi.lib().g16_engine_key_add(self, ctypes.byref(kid), _path(path), flags,
                                              _enum(_TIERS, tier, "tier")))
        return kid.value

    def remove_key(self, key_id):
        _check(_capi.lib().g16_engine_key_remove(self, key_id))

    def submit(self, key_id, witnesses, priority="normal", timeout_ms=0):
        """Submits a job: one partition per witness (a .wtns path or its
        bytes) -> the job id (int). Witness faults show per partition."""
        if isinstance(witnesses, (str, bytes, bytearray, memoryview, os.PathLike)):
            witnesses = [witnesses]
        witnesses = list(witnesses)
        arr = (_capi.EngineWitness * max(1, len(witnesses)))()
        keep = []
        for i, w in enumerate(witnesses):
            if isinstance(w, (bytes, bytearray, memoryview)):
                buf = ctypes.create_string_buffer(bytes(w), len(w))
                keep.append(buf)
                arr[i].data = ctypes.cast(buf, ctypes.c_void_p)
                arr[i].len = len(w)
            else:
                p = _path(w)
                keep.append(p)
                arr[i].path = p
        jid = c_uint64()
        _check(_capi.lib().g16_engine_submit(self, ctypes.byref(jid), key_id, arr, len(witnesses),
                                             _enum(_PRIORITIES, priority, "priority"), float(timeout_ms)))
        return jid.value

    def info(self, job_id):
        """The job's JobInfo now."""
        info = _capi.EngineJobInfo()
        _check(_capi.lib().g16_engine_job_get_info(self, ctypes.byref(info), job_id))
        return JobInfo(job_id, info)

    def wait(self, job_id, timeout=None):
        """Waits until the job is finished (timeout in seconds, None: no
        limit) -> its JobInfo. Raises Timeout when the wait runs out."""
        # Waits in slices of at most 200 ms, so that a signal (Ctrl-C) is
        # handled between them.
        lib = _capi.lib()
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        while True:
            left = 0.2 if deadline is None else min(0.2, max(0.0, deadline - time.monotonic()))
            code = lib.g16_engine_wait(self, job_id, left * 1000.0)
            if code == _capi.OK:
                return self.info(job_id)
            if code != _capi.ERR_TIMEOUT or (deadline is not None and time.monotonic() >= deadline):
                raise _error(code)

    def cancel(self, job_id):
        _check(_capi.lib().g16_engine_cancel(self, job_id))

    def results(self, job_id, release=False):
        """The proofs of a finished job: a list of ProveResult, one per
        partition in order (.stats: its stage timings). Raises the first
        failed partition's Error when the job did not succeed."""
        lib = _capi.lib()
        info = self.info(job_id)
        if info.state != "done":
            if info.err != _capi.OK:
                raise _error(info.err, "partition %d: %s" % (info.failed_partition, info.message))
            raise InvalidArgument(_capi.ERR_INVALID_ARG, "job %d is %s" % (job_id, info.state))
        out = []
        for i in range(info.partitions):
            pj, uj = ctypes.c_void_p(), ctypes.c_void_p()
            st = _capi.PartitionStats()
            code = lib.g16_engine_partition_result(self, ctypes.byref(pj), ctypes.byref(uj),
                                                   ctypes.byref(st), job_id, i)
            proof_json, public_json = _take_text(pj), _take_text(uj)
            if code != _capi.OK:
                raise _error(code)
            out.append(ProveResult(proof_json, public_json, {
                "queue_ms": st.queue_ms, "synth_ms": st.synth_ms, "device_ms": st.device_ms,
                "finalize_ms": st.finalize_ms, "verify_ms": st.verify_ms, "worker": st.worker}))
        if release:
            self.release(job_id)
        return out

    def release(self, job_id):
        """Forgets a finished job and frees its results."""
        _check(_capi.lib().g16_engine_job_release(self, job_id))

    def prove(self, key_id, witnesses, priority="normal", timeout=None):
        """submit + wait + results + release in one call."""
        jid = self.submit(key_id, witnesses, priority)
        try:
            self.wait(jid, timeout)
            return self.results(jid)
        finally:
            try:
                self.release(jid)
            except Error:
                pass

    def budget(self):
        b = _capi.EngineBudget()
        _check(_capi.lib().g16_engine_get_budget(self, ctypes.byref(b)))
        return {"limit": b.limit, "used": b.used, "peak": b.peak}

    def metrics(self):
        """Counters and histograms (Prometheus text)."""
        p = ctypes.c_void_p()
        _check(_capi.lib().g16_engine_metrics(self, ctypes.byref(p)))
        return _take_text(p)

    def status(self):
        """A status snapshot (dict)."""
        p = ctypes.c_void_p()
        _check(_capi.lib().g16_engine_status_json(self, ctypes.byref(p)))
        return json.loads(_take_text(p))

    def timeline(self, since=0.0, chrome=False):
        """The recent stage spans ending at or after since (Unix seconds), as
        a dict: {"now", "capacity", "dropped", "spans"}, or with chrome=True
        Chrome trace event JSON ({"traceEvents": [...]})."""
        p = ctypes.c_void_p()
        _check(_capi.lib().g16_engine_timeline_json(self, float(since), 1 if chrome else 0, ctypes.byref(p)))
        return json.loads(_take_text(p))
