"""A PEP 517 build backend in the standard library only (zipfile), so that
`pip install --no-build-isolation ./python` works without setuptools or
wheel. It builds a pure-Python wheel of the g16 package (plus libg16.so when
one has been copied next to it) and an sdist of this folder. Metadata comes
from the constants below; keep them in step with pyproject.toml."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME = "g16"
VERSION = "0.1.0"
SUMMARY = "Groth16 proofs (BN254, BLS12-381; circom/snarkjs files) through libg16"
HERE = os.path.dirname(os.path.abspath(__file__))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
TAG = "py3-none-any"


def _metadata():
    readme = ""
    path = os.path.join(HERE, "README.md")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n"
            "License: MIT OR Apache-2.0\nRequires-Python: >=3.8\n"
            "Description-Content-Type: text/markdown\n\n%s" % (NAME, VERSION, SUMMARY, readme))


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: g16 _build_backend\nRoot-Is-Purelib: true\nTag: %s\n" % TAG


def _package_files():
    root = os.path.join(HERE, NAME)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fn in sorted(filenames):
            if fn.endswith((".py", ".so")) or ".so." in fn or fn == "py.typed":
                full = os.path.join(dirpath, fn)
                yield full, os.path.relpath(full, HERE).replace(os.sep, "/")


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        def add(arc, data):
            z.writestr(arc, data)
            record.append(_record_line(arc, data))
        for full, arc in _package_files():
            with open(full, "rb") as f:
                add(arc, f.read())
        add(DIST_INFO + "/METADATA", _metadata().encode("utf-8"))
        add(DIST_INFO + "/WHEEL", _wheel_file().encode("utf-8"))
        add(DIST_INFO + "/top_level.txt", (NAME + "\n").encode())
        record.append(DIST_INFO + "/RECORD,,")
        z.writestr(DIST_INFO + "/RECORD", "\n".join(record) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for fn in ("pyproject.toml", "README.md", "_build_backend.py"):
            if os.path.exists(os.path.join(HERE, fn)):
                t.add(os.path.join(HERE, fn), arcname=base + "/" + fn)
        for full, arc in _package_files():
            t.add(full, arcname=base + "/" + arc)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode("utf-8")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
