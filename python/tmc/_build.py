"""Building a .tm module into a shared library with `tmc lib`, cached.

A build lives in a directory named by what it was asked (tmc's version, the
module's path, the options) and, inside it, by the contents of every file
the compile read (the module and its imports, from tmc's depfile): editing
an import rebuilds, loading an unchanged module twice does not. The PTX and
cubins inside come through tmc's compile cache as well.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile


def tmc_executable():
    """$TMC_EXECUTABLE, the build tree's (build/python/tmc -> build/bin/tmc),
    an install prefix's (PREFIX/lib/python3/dist-packages/tmc ->
    PREFIX/bin/tmc), else `tmc` on the PATH."""
    if os.environ.get("TMC_EXECUTABLE"):
        return os.environ["TMC_EXECUTABLE"]
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in (("..", "..", "bin", "tmc"), ("..", "..", "..", "..", "bin", "tmc")):
        p = os.path.normpath(os.path.join(here, *rel))
        if os.access(p, os.X_OK):
            return p
    found = shutil.which("tmc")
    if found:
        return found
    from . import Error
    raise Error("tmc: the tmc compiler was not found (build it with bash scripts/setup.sh, or set TMC_EXECUTABLE)")


def default_tuning_db():
    """The database tmc reads without --db (tune/tuning_db.cpp's DefaultDbPath)."""
    if os.environ.get("TMC_TUNING_DB"):
        return os.environ["TMC_TUNING_DB"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "tmc", "tuning.db")
    return os.path.join(os.environ.get("HOME") or ".", ".cache", "tmc", "tuning.db")


def cache_root():
    base = os.environ.get("TMC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tmc", "kernels")
    return os.path.join(base, "python")


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_depfile(path):
    """The prerequisites of the one Makefile rule tmc --depfile writes."""
    text = open(path).read().replace("\\\n", " ")
    rule = text.split(":", 1)[1] if ":" in text else ""
    deps, cur, i = [], "", 0
    while i < len(rule):
        c = rule[i]
        if c == "\\" and i + 1 < len(rule) and rule[i + 1] == " ":
            cur += " "
            i += 2
            continue
        if c.isspace():
            if cur:
                deps.append(cur.replace("$$", "$"))
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        deps.append(cur.replace("$$", "$"))
    return deps


def library_name(path):
    stem = re.sub(r"[^A-Za-z0-9_]", "_", os.path.splitext(os.path.basename(path))[0])
    return "py_" + stem


def build(path, archs, kernels, graphs, defines, shapes, tuning_db, extra_args):
    """Builds (or finds) the shared library of `path`; returns (library
    path, library name)."""
    from . import Error
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError("tmc.load: no such file: '%s'" % path)
    tmc = tmc_executable()
    args = ["--arch", ",".join(archs), "--shared", "--cpu"]
    for k in kernels or []:
        args += ["--kernel", k]
    for g in graphs or []:
        args += ["--graph", g]
    for name, value in sorted((defines or {}).items()):
        args += ["-D", "%s=%s" % (name, value)]
    if shapes:
        args += ["--shape", ",".join("%s=%d" % (k, v) for k, v in sorted(shapes.items()))]
    if tuning_db:
        args += ["--db", os.path.abspath(tuning_db)]
    # A retuned database (same path, new contents: other values, other
    # variants) is a new build; tmc lib reads the default one too.
    db = tuning_db or default_tuning_db()
    # (SQLite in WAL mode: recent rows may still be in the -wal file.)
    db_digest = [_sha256_file(f) if os.path.isfile(f) else None for f in (db, db + "-wal")]
    args += list(extra_args or [])
    version = subprocess.run([tmc, "--version"], capture_output=True, text=True).stdout.strip()
    st = os.stat(tmc)  # a rebuilt tmc (same version, new code) builds anew
    key = hashlib.sha256(json.dumps([version, tmc, st.st_size, st.st_mtime_ns, path, args, db_digest]).encode()).hexdigest()[:24]
    base = os.path.join(cache_root(), key)
    name = library_name(path)
    index = os.path.join(base, "current.json")
    try:
        with open(index) as f:
            cur = json.load(f)
        if all(os.path.isfile(d) and _sha256_file(d) == h for d, h in cur["deps"].items()):
            lib = os.path.join(base, cur["build"], "lib%s.so" % name)
            if os.path.isfile(lib):
                return lib, name
    except (OSError, ValueError, KeyError):
        pass
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix="build-", dir=base)
    cmd = [tmc, "lib", path, "-o", os.path.join(work, name), "--depfile", os.path.join(work, "deps.d")] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise Error("tmc.load('%s') failed:\n%s" % (path, (r.stderr + r.stdout).rstrip()))
    deps = {d: _sha256_file(d) for d in _read_depfile(os.path.join(work, "deps.d"))}
    build_id = hashlib.sha256(json.dumps(sorted(deps.items())).encode()).hexdigest()[:16]
    final = os.path.join(base, build_id)
    if os.path.isdir(final):
        shutil.rmtree(work, ignore_errors=True)  # another process built the same
    else:
        try:
            os.rename(work, final)
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
    fd, tmp = tempfile.mkstemp(dir=base, suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"build": build_id, "deps": deps}, f)
    os.replace(tmp, index)
    return os.path.join(final, "lib%s.so" % name), name
