"""ctypes declarations of libg16's public API (include/g16.h).

Every structure here mirrors its C definition field for field; the test
(tests/test_python.sh) compares their sizes and offsets with a C program
compiled against g16.h.
"""
import ctypes
import ctypes.util
import os
import threading

from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_size_t, c_uint, c_uint32, c_uint64, c_void_p)

c_enum = c_int  # every g16 enum has int's size and alignment on the ABIs g16 supports
g16_err = c_enum

# g16_err values
OK = 0
ERR_INVALID_ARG = 1
ERR_NOMEM = 2
ERR_IO = 3
ERR_TRUNCATED = 4
ERR_FORMAT = 5
ERR_NOT_CANONICAL = 6
ERR_NOT_ON_CURVE = 7
ERR_NOT_IN_SUBGROUP = 8
ERR_WRONG_CURVE = 9
ERR_SIZE_MISMATCH = 10
ERR_UNSUPPORTED = 11
ERR_INVALID_PROOF = 12
ERR_DEVICE = 13
ERR_NO_DEVICE = 14
ERR_CANCELLED = 15
ERR_TIMEOUT = 16
ERR_INTERNAL = 17
ERR_WITNESS_GEN = 18

# enum values
CURVE_BN254, CURVE_BLS12_381 = 0, 1
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2
KEY_TRUSTED, KEY_CHECK_SUBGROUP = 1, 2
TIER_NONE, TIER_MMAP, TIER_HOST = 0, 1, 2
JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_FAILED, JOB_CANCELLED = 0, 1, 2, 3, 4

error_cb = ctypes.CFUNCTYPE(None, g16_err, c_char_p, c_void_p)


class CtxOpts(Structure):
    _fields_ = [("threads", c_int),
                ("error_cb", error_cb),
                ("error_cb_user", c_void_p)]


class KeyInfo(Structure):
    _fields_ = [("curve", c_enum),
                ("n_vars", c_uint32),
                ("n_public", c_uint32),
                ("domain_size", c_uint32),
                ("n_coefficients", c_uint32)]


class ProveOpts(Structure):
    _fields_ = [("size", c_size_t),
                ("backend", c_enum),
                ("verify", c_int),
                ("device", c_int),
                ("stream_bases", c_int),
                ("progress", c_void_p),       # g16_progress_fn (NULL: none)
                ("progress_user", c_void_p)]


class ProveStats(Structure):
    _fields_ = [("synth_ms", c_double),
                ("ntt_ms", c_double),
                ("msm_ms", c_double),
                ("finalize_ms", c_double),
                ("total_ms", c_double),
                ("verify_ms", c_double),
                ("backend", c_enum),
                ("backend_note", c_char * 256)]


class EngineOpts(Structure):
    _fields_ = [("budget_bytes", c_uint64),
                ("workers", c_int),
                ("synth_threads", c_int),
                ("lookahead", c_int),
                ("no_verify", c_int),
                ("timeline_path", c_char_p),
                ("backend", c_enum),
                ("workers_per_device", c_int),
                ("devices", c_int),
                ("device_budget_bytes", c_uint64),
                ("gpu_tables", c_int)]


class EngineKeyInfo(Structure):
    _fields_ = [("tier", c_enum),
                ("bytes", c_uint64),
                ("work_bytes", c_uint64),
                ("work_areas", c_uint32),
                ("active", c_uint32),
                ("loads", c_uint32),
                ("evictions", c_uint32)]


class EngineWitness(Structure):
    _fields_ = [("path", c_char_p),
                ("data", c_void_p),
                ("len", c_size_t)]


class EngineJobInfo(Structure):
    _fields_ = [("state", c_enum),
                ("partitions", c_uint32),
                ("proved", c_uint32),
                ("failed", c_uint32),
                ("err", g16_err),
                ("failed_partition", c_uint32),
                ("msg", c_char * 256),
                ("finish_seq", c_uint64),
                ("latency_ms", c_double)]


class PartitionStats(Structure):
    _fields_ = [("queue_ms", c_double),
                ("synth_ms", c_double),
                ("device_ms", c_double),
                ("finalize_ms", c_double),
                ("verify_ms", c_double),
                ("worker", c_int)]


class EngineBudget(Structure):
    _fields_ = [("limit", c_uint64),
                ("used", c_uint64),
                ("peak", c_uint64)]


class WitgenOpts(Structure):
    _fields_ = [("size", c_size_t),
                ("timeout_s", c_double),
                ("memory_bytes", c_uint64),
                ("node", c_char_p),
                ("input_name", c_char_p)]


# The structures the test checks against sizeof/offsetof in C: C name -> class.
STRUCTS = {
    "g16_ctx_opts": CtxOpts,
    "g16_key_info": KeyInfo,
    "g16_prove_opts": ProveOpts,
    "g16_prove_stats": ProveStats,
    "g16_engine_opts": EngineOpts,
    "g16_engine_key_info": EngineKeyInfo,
    "g16_engine_witness": EngineWitness,
    "g16_engine_job_info": EngineJobInfo,
    "g16_partition_stats": PartitionStats,
    "g16_engine_budget": EngineBudget,
    "g16_witgen_opts": WitgenOpts,
}

_p = c_void_p  # opaque handles: g16_ctx *, g16_key *, g16_witness *, g16_result *, g16_engine *
_pp = POINTER(c_void_p)

# name: (restype, argtypes)
_PROTOS = {
    "g16_version": (c_char_p, []),
    "g16_err_str": (c_char_p, [g16_err]),
    "g16_curve_name": (c_char_p, [c_enum]),
    "g16_last_error": (g16_err, [c_char_p, c_size_t]),
    "g16_ctx_create_ex": (g16_err, [_pp, POINTER(CtxOpts), c_char_p, c_size_t]),
    "g16_ctx_destroy": (None, [_p]),
    "g16_ctx_threads": (c_int, [_p]),
    "g16_ctx_last_error": (g16_err, [_p, c_char_p, c_size_t]),
    "g16_ctx_set_option": (g16_err, [_p, c_char_p, c_char_p, c_enum]),
    "g16_key_load": (g16_err, [_p, _pp, c_char_p, c_uint]),
    "g16_key_free": (None, [_p]),
    "g16_key_get_info": (g16_err, [_p, POINTER(KeyInfo), _p]),
    "g16_key_export_vk": (g16_err, [_p, _p, c_char_p]),
    "g16_witness_load": (g16_err, [_p, _pp, c_char_p]),
    "g16_witness_from_wtns_bytes": (g16_err, [_p, _pp, c_void_p, c_size_t]),
    "g16_witness_free": (None, [_p]),
    "g16_prove_opts_init": (None, [POINTER(ProveOpts)]),
    "g16_prove": (g16_err, [_p, _pp, _p, _p, POINTER(ProveOpts), POINTER(ProveStats)]),
    "g16_result_verify": (g16_err, [_p, _p, _p]),
    "g16_result_write": (g16_err, [_p, _p, c_char_p, c_char_p]),
    "g16_result_json": (g16_err, [_p, _pp, _pp, _p]),
    "g16_result_free": (None, [_p]),
    "g16_free": (None, [c_void_p]),
    "g16_verify_files": (g16_err, [_p, c_char_p, c_char_p, c_char_p]),
    "g16_verify_json": (g16_err, [_p, c_char_p, c_char_p, c_char_p]),
    "g16_witgen_opts_init": (None, [POINTER(WitgenOpts)]),
    "g16_witness_generate": (g16_err, [_p, _pp, c_char_p, c_char_p, c_void_p, c_size_t, POINTER(WitgenOpts)]),
    "g16_export_solidity_verifier": (g16_err, [_p, _pp, _p]),
    "g16_export_solidity_verifier_json": (g16_err, [_p, _pp, c_char_p]),
    "g16_export_solidity_verifier_file": (g16_err, [_p, _pp, POINTER(c_enum), POINTER(c_uint32),
                                                    c_char_p, c_char_p]),
    "g16_export_solidity_calldata": (g16_err, [_p, _pp, c_char_p, c_char_p]),
    "g16_export_solidity_calldata_files": (g16_err, [_p, _pp, c_char_p, c_char_p]),
    "g16_engine_create": (g16_err, [_p, _pp, POINTER(EngineOpts)]),
    "g16_engine_destroy": (None, [_p, c_int]),
    "g16_engine_key_add": (g16_err, [_p, POINTER(c_uint64), c_char_p, c_uint, c_enum]),
    "g16_engine_key_remove": (g16_err, [_p, c_uint64]),
    "g16_engine_key_get_info": (g16_err, [_p, POINTER(EngineKeyInfo), c_uint64]),
    "g16_engine_submit": (g16_err, [_p, POINTER(c_uint64), c_uint64, POINTER(EngineWitness),
                                    c_size_t, c_enum, c_double]),
    "g16_engine_cancel": (g16_err, [_p, c_uint64]),
    "g16_engine_wait": (g16_err, [_p, c_uint64, c_double]),
    "g16_engine_job_get_info": (g16_err, [_p, POINTER(EngineJobInfo), c_uint64]),
    "g16_engine_partition_result": (g16_err, [_p, _pp, _pp, POINTER(PartitionStats), c_uint64, c_uint32]),
    "g16_engine_job_release": (g16_err, [_p, c_uint64]),
    "g16_engine_get_budget": (g16_err, [_p, POINTER(EngineBudget)]),
    "g16_engine_metrics": (g16_err, [_p, _pp]),
    "g16_engine_status_json": (g16_err, [_p, _pp]),
    "g16_engine_timeline_json": (g16_err, [_p, c_double, c_int, _pp]),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _candidates():
    env = os.environ.get("G16_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, n) for n in ("libg16.so", "libg16.so.0")
           if os.path.exists(os.path.join(here, n))]
    found = ctypes.util.find_library("g16")
    if found:
        out.append(found)
    out.append("libg16.so.0")
    return out


def lib():
    """The loaded library, with its prototypes declared (loaded once).

    Looked for: $G16_LIBRARY (only that, when set), then libg16.so next to
    this package, then ctypes.util.find_library("g16"), then libg16.so.0.
    Raises OSError naming what was tried when none loads."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in _candidates():
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                errors.append("%s: %s" % (path, e))
                continue
            for name, (res, args) in _PROTOS.items():
                fn = getattr(handle, name)
                fn.restype = res
                fn.argtypes = args
            _lib_path = path
            _lib = handle
            return _lib
        raise OSError("libg16 not found (set G16_LIBRARY to libg16.so): " + "; ".join(errors))


def lib_path():
    lib()
    return _lib_path
