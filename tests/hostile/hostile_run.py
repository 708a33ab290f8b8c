#!/usr/bin/python3
# A hostile run against the built program, in directions the earlier rounds
# did not take: resource limits other than memory and file size, the environment, odd paths,
# two runs at once, files that change while they are read, edge values in imported data, odd
# zip archives, sessions that point at strange things, and signals at other moments; and (round4)
# the fourth round's classes, each with inputs beyond the case its review found.
#
#   /usr/bin/python3 tests/hostile/hostile_run.py build/app/softmax-lab WORKDIR [--quick] [--verbose]
#                    [--only DIRECTION]
#
# Every case states what a good answer is: the exit codes allowed, whether stderr must be one line,
# that no temporary file is left, that the run ends within its time limit and under its memory
# limit. It prints one line per case that breaks its statement, and the counts per direction;
# exit status 1 when any case broke it. docs/ROBUSTNESS.md keeps the counts of a full run.
import json
import os
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import threading
import time
import zlib

import numpy as np

BINARY = None
WORK = None
QUICK = False
VERBOSE = False


class Case:
    """One run: argv (after the binary), what a good answer is, and how to prepare it."""

    def __init__(self, direction, name, args, codes=(0,), one_line=True, prefix="", env=None, timeout=120,
                 max_rss_mb=3000, check=None, stdin=None, watch=None, wrapper="", signals=(), others=None):
        self.direction, self.name, self.args = direction, name, args
        self.codes, self.one_line, self.prefix, self.env = codes, one_line, prefix, env
        self.timeout, self.max_rss_mb, self.check, self.stdin = timeout, max_rss_mb, check, stdin
        self.watch = watch or []  # folders that must hold no temporary afterwards
        self.wrapper = wrapper    # a command the program runs under (setpriv ...)
        self.signals = signals    # (seconds after the start, signal) sent to the program
        self.others = others      # a path a run started by the prefix writes to: waited for before the checks


def npy_bytes(array):
    import io
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def write(path, data, mode="wb"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as out:
        out.write(data)
    return path


def zip_raw(entries, directory_entries=None, flags=0, method=8, comment=b""):
    """entries: (name, data). directory_entries: override (name, local_offset) pairs."""
    body, directory, offsets = b"", b"", []
    for name, data in entries:
        payload = data
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = c.compress(data) + c.flush()
        crc = zlib.crc32(data) & 0xFFFFFFFF
        offsets.append((name, len(body), crc, len(payload), len(data)))
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, method, 0, 0, crc, len(payload), len(data),
                            len(name), 0) + name + payload
    for name, offset, crc, compressed, size in offsets:
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, flags, method, 0, 0, crc, compressed, size,
                                 len(name), 0, 0, 0, 0, 0, offset) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(offsets), len(offsets), len(directory), len(body),
                      len(comment)) + comment
    return body + directory + end


def temporaries(folder):
    found = []
    for root, _, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if ".tmp-" in f]
    return found


def run(case):
    """Runs one case; returns a list of problems (empty: handled well)."""
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    if case.env:
        for key, value in case.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in [BINARY] + case.args)
    command = case.prefix + " exec " + case.wrapper + " " + quoted
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    # The shell execs the program, so the child's pid is the program's: signals go to it alone.
    process = subprocess.Popen(["sh", "-c", command], cwd=WORK, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timers = [threading.Timer(delay, lambda sig=sig: process.poll() is None and process.send_signal(sig))
              for delay, sig in case.signals]
    for timer in timers:
        timer.start()
    try:
        _, err = process.communicate(input=case.stdin, timeout=case.timeout)
        code, err = process.returncode, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return ["hung: no end within %d s" % case.timeout], None
    finally:
        for timer in timers:
            timer.cancel()
    seconds = time.monotonic() - start
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    # A second run the prefix started may still be writing: its temporaries are its own until it ends.
    waited = 0.0
    while case.others and waited < 120 and subprocess.run(["pgrep", "-f", "--", "--export-csv " + case.others],
                                                          stdout=subprocess.DEVNULL).returncode == 0:
        time.sleep(0.2)
        waited += 0.2
    problems = []
    sent = [int(sig) for _, sig in case.signals]
    if code < 0 and -code not in sent:
        problems.append("died of signal %d" % -code)
    elif code >= 0 and code not in case.codes:
        problems.append("exit %d, allowed %s" % (code, "/".join(map(str, case.codes))))
    lines = [line for line in err.split("\n") if line]
    if case.one_line and code != 0 and len(lines) != 1:
        problems.append("%d stderr lines" % len(lines))
    if any(len(line) > 400 for line in lines):
        problems.append("a stderr line over 400 characters")
    for folder in case.watch:
        left = temporaries(folder) if os.path.isdir(folder) else []
        if left:
            problems.append("left %d temporaries in %s" % (len(left), folder))
    if rss_mb > case.max_rss_mb and rss_mb > before / 1024.0:
        problems.append("max RSS %.0f MB over %d MB" % (rss_mb, case.max_rss_mb))
    if case.check:
        problem = case.check(code, err)
        if problem:
            problems.append(problem)
    return problems, (code, lines[0] if lines else "", seconds)


# ─── The directions ──────────────────────────────────────────────────────────────────────────

def limits_cases():
    """Resource limits other than memory and file size."""
    d, out = "limits", os.path.join(WORK, "limits")
    cases = []
    for files in (6, 10, 16, 32):
        cases.append(Case(d, "ulimit -n %d export-csv" % files, ["--export-csv", out + "/n%d" % files],
                          codes=(0, 3), prefix="ulimit -n %d;" % files, watch=[out]))
        cases.append(Case(d, "ulimit -n %d screenshot" % files, ["--screenshot", out + "/n%d.png" % files,
                                                                  "--size", "320x240"],
                          codes=(0, 3, 4), prefix="ulimit -n %d;" % files, watch=[out]))
    for stack in (64, 256, 1024):
        cases.append(Case(d, "ulimit -s %d export-csv" % stack, ["--export-csv", out + "/s%d" % stack],
                          codes=(0, 3), prefix="ulimit -s %d;" % stack, watch=[out]))
        cases.append(Case(d, "ulimit -s %d import long" % stack,
                          ["--import", WORK + "/data/long-q.npy:Q", "--import", WORK + "/data/long-k.npy:K",
                           "--export-csv", out + "/si%d" % stack], codes=(0, 3), prefix="ulimit -s %d;" % stack,
                          watch=[out]))
    cases.append(Case(d, "ulimit -S -t 1 long export (SIGXCPU)", ["--export-csv", out + "/t1", "--set", "seq_len=4096"],
                      codes=(0,), one_line=False, prefix="ulimit -S -t 1;", watch=[out],
                      signals=[(3600, signal.SIGXCPU)]))  # not sent: lists SIGXCPU as a death allowed
    cases.append(Case(d, "ulimit -c 0 -v 200M window start", [], codes=(3, 4), prefix="ulimit -v 204800;"))
    for limit in (150, 200, 400):
        cases.append(Case(d, "ulimit -v %dM export-svg" % limit, ["--export-svg", out + "/v%d" % limit],
                          codes=(0, 3), prefix="ulimit -v %d;" % (limit * 1024), watch=[out]))
        cases.append(Case(d, "ulimit -v %dM screenshot" % limit, ["--screenshot", out + "/v%d.png" % limit],
                          codes=(0, 3, 4), prefix="ulimit -v %d;" % (limit * 1024), watch=[out]))
        cases.append(Case(d, "ulimit -v %dM gif" % limit, ["--export-gif", out + "/v%d.gif" % limit, "--sweep",
                                                           "temperature=0.1:5", "--frames", "4", "--size", "320x240"],
                          codes=(0, 3, 4), prefix="ulimit -v %d;" % (limit * 1024), watch=[out]))
    if os.geteuid() == 0 and shutil.which("prlimit"):
        os.makedirs(out, exist_ok=True)
        os.chmod(out, 0o777)
        for threads in (1, 2, 3):
            for mode, args in (("export-csv", ["--export-csv", out + "/nproc%d" % threads]),
                               ("screenshot", ["--screenshot", out + "/nproc%d.png" % threads, "--size", "320x240"])):
                cases.append(Case(d, "prlimit --nproc=%d %s (nobody)" % (threads, mode), args, codes=(0, 3),
                                  wrapper="setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=%d --"
                                  % threads, watch=[out]))
    for size in (1, 20, 200):
        cases.append(Case(d, "ulimit -f %dk gif" % size, ["--export-gif", out + "/f%d.gif" % size, "--sweep",
                                                          "temperature=0.1:5", "--frames", "6", "--size", "320x240"],
                          codes=(0, 3), prefix="ulimit -f %d;" % size, watch=[out]))
        cases.append(Case(d, "ulimit -f %dk export-lesson" % size, ["--export-lesson", "why-softmax",
                                                                    out + "/lesson%d" % size, "--size", "320x240"],
                          codes=(0, 3), prefix="ulimit -f %d;" % size, watch=[out]))
    return cases


def environment_cases():
    """HOME, XDG, locale, umask, time zone, the working folder."""
    d, out = "environment", os.path.join(WORK, "env")
    cases = []
    for name, env in (("HOME unset", {"HOME": None}), ("HOME nowhere", {"HOME": "/nonexistent/x"}),
                      ("XDG relative", {"XDG_CONFIG_HOME": "relative/dir"}),
                      ("XDG a file", {"XDG_CONFIG_HOME": "/etc/passwd"}),
                      ("LC_ALL de_DE", {"LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"}),
                      ("LC_NUMERIC fr", {"LC_NUMERIC": "fr_FR.UTF-8"}), ("LANG tr", {"LANG": "tr_TR.UTF-8"}),
                      ("TZ odd", {"TZ": "Nowhere/Nothing"}), ("TMPDIR missing", {"TMPDIR": "/nonexistent"}),
                      ("assets a file", {"SOFTMAX_LAB_ASSETS": "/etc/passwd"}),
                      ("assets empty", {"SOFTMAX_LAB_ASSETS": ""})):
        target = out + "/" + name.replace(" ", "-")
        cases.append(Case(d, name + " export-csv", ["--export-csv", target], env=env, watch=[out],
                          check=same_numbers(target)))
        cases.append(Case(d, name + " screenshot", ["--screenshot", target + ".png", "--size", "320x240"],
                          codes=(0, 4), env=env, watch=[out]))
    for mask in ("0777", "0277", "0022"):
        cases.append(Case(d, "umask %s export-csv" % mask, ["--export-csv", out + "/umask" + mask],
                          codes=(0, 3), prefix="umask %s;" % mask, watch=[out]))
    cases.append(Case(d, "working folder deleted", ["--export-csv", out + "/cwd-gone"], codes=(0, 3),
                      prefix="mkdir -p %s/gone && cd %s/gone && rmdir %s/gone;" % (out, out, out), watch=[out]))
    cases.append(Case(d, "relative export from deleted cwd", ["--export-csv", "relative-out"], codes=(3,),
                      prefix="mkdir -p %s/gone2 && cd %s/gone2 && rmdir %s/gone2;" % (out, out, out)))
    cases.append(Case(d, "stdout closed", ["--export-csv", out + "/stdout-closed"], codes=(3,),
                      prefix="exec >&-;", watch=[out]))
    cases.append(Case(d, "stderr closed, bad value", ["--set", "temperature=-1"], codes=(2,), one_line=False,
                      prefix="exec 2>&-;"))
    cases.append(Case(d, "stdout /dev/full", ["--export-csv", out + "/dev-full"], codes=(3,),
                      prefix="exec >/dev/full;", watch=[out]))
    cases.append(Case(d, "list-keys to /dev/full", ["--list-keys"], codes=(3,), prefix="exec >/dev/full;"))
    return cases


def same_numbers(target):
    """The locale must not change a CSV number: compare with the reference export."""
    def check(code, err):
        if code != 0:
            return None
        reference = os.path.join(WORK, "reference-csv", "distribution.csv")
        mine = os.path.join(target, "distribution.csv")
        if os.path.exists(reference) and os.path.exists(mine):
            if open(reference, "rb").read() != open(mine, "rb").read():
                return "distribution.csv differs from the reference export"
        return None
    return check


def path_cases():
    """Odd names and places to write."""
    d, out = "paths", os.path.join(WORK, "paths")
    os.makedirs(out, exist_ok=True)
    cases = []
    names = {"newline": "a\nb.png", "leading-dash": "-x.png", "spaces": "   .png", "dots": "...png",
             "bad-utf8": "caf\xe9-bad.png", "emoji": "😀.png", "rtl": "\u202emirrored.png",
             "255 bytes": "n" * 251 + ".png", "256 bytes": "n" * 252 + ".png", "255 CJK": "猫" * 83 + ".png",
             "no extension": "picture", "dot-dot": "sub/../x.png"}
    os.makedirs(out + "/sub", exist_ok=True)
    for label, name in names.items():
        path = out + "/" + name if "\xe9" not in name else (out.encode() + b"/" + name.encode("latin-1")).decode(
            "utf-8", "surrogateescape")
        cases.append(Case(d, "screenshot name " + label, ["--screenshot", path, "--size", "320x240"],
                          codes=(0, 2, 3), watch=[out]))
    # Not named .png: refused for the name (exit 2) before the device is looked at.
    cases.append(Case(d, "screenshot to /dev/stdout", ["--screenshot", "/dev/stdout"], codes=(2,)))
    cases.append(Case(d, "screenshot to /proc/self/fd/1", ["--screenshot", "/proc/self/fd/1"], codes=(2,)))
    cases.append(Case(d, "csv into /proc", ["--export-csv", "/proc/sys/x"], codes=(3,)))
    cases.append(Case(d, "csv into /dev/null/x", ["--export-csv", "/dev/null/x"], codes=(3,)))
    cases.append(Case(d, "csv into a symlink to a folder", ["--export-csv", out + "/link-to-dir"], codes=(0,),
                      watch=[out + "/real-dir"]))
    os.makedirs(out + "/real-dir", exist_ok=True)
    if not os.path.lexists(out + "/link-to-dir"):
        os.symlink("real-dir", out + "/link-to-dir")
    if not os.path.lexists(out + "/dangling"):
        os.symlink("nowhere/at/all", out + "/dangling")
    cases.append(Case(d, "csv into a dangling symlink", ["--export-csv", out + "/dangling"], codes=(3,)))
    cases.append(Case(d, "svg into a 60-deep folder", ["--export-svg", out + "/" + "/".join(["d"] * 60)], codes=(0,),
                      watch=[out]))
    cases.append(Case(d, "gif named like a folder", ["--export-gif", out + "/sub/", "--sweep", "temperature=1:2",
                                                     "--frames", "2"], codes=(2, 3)))
    cases.append(Case(d, "load a folder", ["--load", out], codes=(3,)))
    cases.append(Case(d, "load /proc/self/status", ["--load", "/proc/self/status"], codes=(2, 3)))
    cases.append(Case(d, "load /dev/zero", ["--load", "/dev/zero"], codes=(3,)))
    cases.append(Case(d, "import /proc/self/maps", ["--import", "/proc/self/maps:Q"], codes=(2, 3)))
    cases.append(Case(d, "import /dev/stdin pipe", ["--import", "/dev/stdin:Q"], codes=(3,), stdin=b"1,2\n3,4\n"))
    cases.append(Case(d, "tokens /dev/stdin", ["--import", WORK + "/data/q.npy:Q", "--import", WORK + "/data/k.npy:K",
                                               "--tokens", "/dev/stdin"], codes=(3,), stdin=b"a\nb\n"))
    return cases


def concurrency_cases():
    """Two runs at once, and files that change while they are read."""
    d, out = "concurrency", os.path.join(WORK, "concurrent")
    cases = []
    for overwrite in ([], ["--overwrite"]):
        label = "two exports into one folder" + (" --overwrite" if overwrite else "")
        target = out + ("/same-ow" if overwrite else "/same")
        cases.append(Case(d, label, ["--export-csv", target, "--set", "seq_len=2048"] + overwrite,
                          codes=(0, 3), watch=[out],
                          prefix="(%s --export-csv %s --set seq_len=2048 %s >/dev/null 2>&1 &);" %
                          (BINARY, target, " ".join(overwrite)),
                          check=complete_or_absent(target), others=target))
    cases.append(Case(d, "folder removed during export", ["--export-csv", out + "/removed", "--set", "seq_len=4096"],
                      codes=(0, 3), prefix="(sleep 1; rm -rf %s/removed) & " % out, watch=[out]))
    if os.geteuid() == 0:
        cases.append(Case(d, "folder made read-only during export (nobody)",
                          ["--export-csv", out + "/ro", "--set", "seq_len=4096"], codes=(0, 3),
                          prefix="mkdir -p %s/ro; chmod 777 %s %s/ro; (sleep 1; chmod 555 %s/ro) & " % (out, out, out, out),
                          wrapper="setpriv --reuid=65534 --regid=65534 --clear-groups", watch=[out]))
    # An import that grows and one that shrinks while it is read (a writer racing the reader).
    grow = WORK + "/data/grow.npy"
    cases.append(Case(d, "import grows while read", ["--import", grow + ":Q", "--import", WORK + "/data/long-k.npy:K",
                                                     "--export-csv", out + "/grow"],
                      codes=(0, 2, 3), prefix="cp %s/data/long-q.npy %s; (sleep 0.3; head -c 4096 /dev/zero >> %s) & "
                      % (WORK, grow, grow), watch=[out]))
    shrink = WORK + "/data/shrink.npy"
    cases.append(Case(d, "import shrinks while read", ["--import", shrink + ":Q", "--import",
                                                       WORK + "/data/long-k.npy:K", "--export-csv", out + "/shrink"],
                      codes=(0, 2, 3), prefix="cp %s/data/long-q.npy %s; (sleep 0.2; truncate -s 200000 %s) & "
                      % (WORK, shrink, shrink), watch=[out]))
    cases.append(Case(d, "session rewritten while loading", ["--load", WORK + "/data/session-good.json",
                                                             "--export-csv", out + "/session"], codes=(0, 2),
                      prefix="(for i in 1 2 3 4 5; do echo '{' > %s/data/session-good.json; "
                             "cp %s/data/session-good.bak %s/data/session-good.json; done) & " % (WORK, WORK, WORK),
                      watch=[out]))
    return cases


def complete_or_absent(target):
    """After two racing exports the folder holds every file, each complete (or the run failed)."""
    def check(code, err):
        reference = sorted(os.listdir(os.path.join(WORK, "reference-csv")))
        if not os.path.isdir(target):
            return None if code != 0 else "exit 0 but no folder"
        names = sorted(n for n in os.listdir(target) if ".tmp-" not in n)
        if code == 0 and names != reference:
            return "exit 0 but %d of %d files" % (len(names), len(reference))
        for name in names:
            text = open(os.path.join(target, name), "rb").read()
            if not text.endswith(b"\n"):
                return name + " is cut short"
        return None
    return check


def data_cases():
    """Edge values in imported arrays."""
    d, out = "data", os.path.join(WORK, "data-out")
    data = os.path.join(WORK, "data")
    cases = []
    rng = np.random.default_rng(26)

    def pair(name, q, k, extra=(), codes=(0,), v=None):
        write(data + "/" + name + "-q.npy", npy_bytes(q))
        write(data + "/" + name + "-k.npy", npy_bytes(k))
        args = ["--import", data + "/" + name + "-q.npy:Q", "--import", data + "/" + name + "-k.npy:K"]
        if v is not None:
            write(data + "/" + name + "-v.npy", npy_bytes(v))
            args += ["--import", data + "/" + name + "-v.npy:V"]
        cases.append(Case(d, name, args + list(extra) + ["--export-csv", out + "/" + name], codes=codes, watch=[out],
                          check=no_nan_maps(out + "/" + name)))

    tiny = np.float32(1e-45)
    pair("subnormal", np.full((6, 3), tiny, np.float32), np.full((6, 3), tiny, np.float32))
    pair("negative-zero", np.full((5, 2), -0.0, np.float32), np.zeros((5, 2), np.float32))
    pair("fp16 max", np.full((4, 2), 65504, np.float16), np.full((4, 2), -65504, np.float16))
    pair("f64 beyond float", np.full((4, 2), 1e300), np.ones((4, 2)), codes=(2,))
    pair("f64 1e38", np.full((4, 2), 3.0e38), np.full((4, 2), 3.0e38))
    pair("mixed 1e38 and tiny", np.array([[3e38, 1e-38], [1e-38, -3e38]], np.float32),
         np.array([[1e-38, 3e38], [-3e38, 1e-38]], np.float32), extra=["--set", "temperature=0.01"])
    pair("L=2 d=1", rng.standard_normal((2, 1)).astype(np.float32), rng.standard_normal((2, 1)).astype(np.float32))
    pair("d=4096", rng.standard_normal((3, 4096)).astype(np.float32), rng.standard_normal((3, 4096)).astype(np.float32))
    pair("d=4097", rng.standard_normal((3, 4097)).astype(np.float32), rng.standard_normal((3, 4097)).astype(np.float32),
         codes=(2,))
    pair("H=65536 L=2 d=1", np.ones((65536, 2, 1), np.float32), np.ones((65536, 2, 1), np.float32),
         extra=["--set", "head=65535"])
    pair("H=65537", np.ones((65537, 2, 1), np.float32), np.ones((65537, 2, 1), np.float32), codes=(2,))
    pair("V with huge values", rng.standard_normal((5, 3)).astype(np.float32),
         rng.standard_normal((5, 3)).astype(np.float32), v=np.full((5, 2), 3e38, np.float32))
    pair("V of another L", rng.standard_normal((5, 3)).astype(np.float32),
         rng.standard_normal((5, 3)).astype(np.float32), v=np.ones((6, 2), np.float32), codes=(2,))
    pair("causal row 0", rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32),
         extra=["--set", "causal=true", "--set", "row=0"])
    pair("all equal causal", np.ones((9, 4), np.float32), np.ones((9, 4), np.float32),
         extra=["--set", "causal=true", "--set", "temperature=0.01", "--set", "score_scale=100"])
    # Weights and scores matrices at their edges.
    for name, matrix, codes in (
            ("weights one tiny per row", np.eye(5, dtype=np.float32) * np.float32(1e-45), (0,)),
            ("weights one-hot", np.eye(5, dtype=np.float32), (0,)),
            ("weights a zero row", np.vstack([np.zeros((1, 3)), np.ones((2, 3))]).astype(np.float32), (2,)),
            ("scores all -inf but one", np.where(np.eye(4) > 0, 0.0, -np.inf).astype(np.float32), (0,)),
            ("scores +inf", np.array([[np.inf, 0], [0, 0]], np.float32), (2,)),
            ("scores 3e38 spread", np.array([[3e38, -3e38], [-3e38, 3e38]], np.float32), (0,)),
            ("scores L=4097", np.zeros((4097, 4097), np.float16), (2,))):
        role = "weights" if name.startswith("weights") else "scores"
        write(data + "/" + name + ".npy", npy_bytes(matrix))
        cases.append(Case(d, name, ["--import", data + "/" + name + ".npy:" + role, "--export-csv",
                                    out + "/" + name.replace(" ", "-")], codes=codes, watch=[out],
                          check=no_nan_maps(out + "/" + name.replace(" ", "-"))))
    # CSV files in odd shapes.
    for name, text, codes in (("csv one cell", "5\n", (2,)), ("csv 2x2 crlf", "1,2\r\n3,4\r\n", (0,)),
                              ("csv tabs", "1\t2\n3\t4\n", (2,)), ("csv semicolons", "1;2\n3;4\n", (2,)),
                              ("csv trailing comma", "1,2,\n3,4,\n", (2,)), ("csv quoted", '"1","2"\n"3","4"\n', (2,)),
                              ("csv nul byte", "1,2\n3,\x004\n", (2,)), ("csv only header", "a,b\n", (2,)),
                              ("csv huge line", "1," * 40000 + "1\n", (2,)),
                              ("csv utf16", "\ufeff1,2\n3,4\n".encode("utf-16").decode("latin-1"), (2,)),
                              ("csv exponent forms", "1e0,2E+0\n-3e-0,4.\n", (0,)),
                              ("csv plus signs", "+1,+2\n+3,-inf\n", (0,))):
        write(data + "/" + name + ".csv", text.encode("latin-1") if isinstance(text, str) else text)
        cases.append(Case(d, name, ["--import", data + "/" + name + ".csv:scores", "--export-csv",
                                    out + "/" + name.replace(" ", "-")], codes=codes, watch=[out]))
    return cases


def no_nan_maps(target):
    def check(code, err):
        if code != 0:
            return None
        for name in ("attention.csv", "attention_scaled.csv", "distribution.csv"):
            path = os.path.join(target, name)
            if os.path.exists(path) and b"nan" in open(path, "rb").read().lower():
                return name + " holds NaN"
        return None
    return check


def zip_cases():
    """Odd .npz archives."""
    d, out = "zip", os.path.join(WORK, "zip-out")
    data = os.path.join(WORK, "zip")
    q = npy_bytes(np.ones((4, 2), np.float32))
    k = npy_bytes(np.arange(8, dtype=np.float32).reshape(4, 2))
    cases = []

    def archive(name, blob, codes=(2,), selection=""):
        path = write(data + "/" + name.replace(" ", "-") + ".npz", blob)
        cases.append(Case(d, name, ["--import", path + selection, "--export-csv", out + "/" + name.replace(" ", "-")],
                          codes=codes, watch=[out], timeout=60, max_rss_mb=500))

    archive("stored", zip_raw([(b"q.npy", q), (b"k.npy", k)], method=0), codes=(0,))
    archive("deflated", zip_raw([(b"q.npy", q), (b"k.npy", k)]), codes=(0,))
    archive("names with folders", zip_raw([(b"a/b/q.npy", q), (b"a/b/k.npy", k)]), codes=(0,))
    archive("dot-dot names", zip_raw([(b"../../q.npy", q), (b"../k.npy", k)]), codes=(0, 2))
    archive("duplicate names", zip_raw([(b"q.npy", q), (b"q.npy", q), (b"k.npy", k)]), codes=(2,))
    archive("data descriptor flag", zip_raw([(b"q.npy", q), (b"k.npy", k)], flags=8), codes=(0, 2))
    archive("bzip2 method", zip_raw([(b"q.npy", q), (b"k.npy", k)], method=12), codes=(2,))
    archive("zero-byte entry", zip_raw([(b"q.npy", b""), (b"k.npy", k)]), codes=(2,))
    archive("entry not npy", zip_raw([(b"q.npy", b"hello"), (b"k.npy", k)]), codes=(2,))
    archive("65 KB comment", zip_raw([(b"q.npy", q), (b"k.npy", k)], comment=b"c" * 65535), codes=(0, 2))
    good = zip_raw([(b"q.npy", q), (b"k.npy", k)])
    archive("truncated by one byte", good[:-1])
    archive("directory offset past end", good[:-6] + struct.pack("<I", len(good) * 2) + good[-2:])
    archive("entry count 0xffff without zip64", good[:-12] + struct.pack("<HH", 0xFFFF, 0xFFFF) + good[-8:])
    archive("crc zeroed in both headers", good.replace(struct.pack("<I", zlib.crc32(q) & 0xFFFFFFFF), b"\0\0\0\0"))
    archive("crc zeroed in the local header only (the directory's counts)",
            good.replace(struct.pack("<I", zlib.crc32(q) & 0xFFFFFFFF), b"\0\0\0\0", 1), codes=(0,))
    archive("only a directory", good[good.index(b"PK\x01\x02"):], codes=(2,))
    archive("256 tiny entries", zip_raw([(b"x%d.npy" % i, q) for i in range(256)]), codes=(2,))
    archive("257 entries", zip_raw([(b"x%d.npy" % i, q) for i in range(257)]), codes=(2,))
    archive("selection of a missing name", good, selection=":q,zz=K")
    archive("two entries one role by name", zip_raw([(b"layer0_q.npy", q), (b"layer1_q.npy", q), (b"k.npy", k)]))
    # A deflate stream that ends early, and one that goes on past its declared size.
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = c.compress(q) + c.flush()
    long_q = zip_raw([(b"q.npy", q), (b"k.npy", k)])
    archive("deflate cut short", long_q.replace(payload, payload[: len(payload) // 2] + bytes(len(payload) - len(payload) // 2), 1))
    return cases


def session_cases():
    """Sessions that point at strange things."""
    d, out = "sessions", os.path.join(WORK, "session-out")
    data = os.path.join(WORK, "data")
    cases = []
    q, k = data + "/q.npy", data + "/k.npy"

    def session(name, document, codes):
        path = write(data + "/session-" + name.replace(" ", "-") + ".json", json.dumps(document).encode())
        cases.append(Case(d, name, ["--load", path, "--export-csv", out + "/" + name.replace(" ", "-")],
                          codes=codes, watch=[out]))

    base = {"version": 1}
    session("imports itself", dict(base, **{"import": {"files": [data + "/session-imports-itself.json:Q", k + ":K"]}}),
            (2,))
    session("eight copies of one file", dict(base, **{"import": {"files": [q + ":Q"] * 8}}), (2,))
    session("tokens a FIFO", dict(base, **{"import": {"files": [q + ":Q", k + ":K"], "tokens": data + "/fifo"}}), (3,))
    session("tokens /dev/zero", dict(base, **{"import": {"files": [q + ":Q", k + ":K"], "tokens": "/dev/zero"}}), (3,))
    session("relative import", dict(base, **{"import": {"files": ["q.npy:Q", "k.npy:K"]}}), (3,))
    session("import with seq_len that contradicts",
            dict(base, **{"import": {"files": [q + ":Q", k + ":K"]}, "params": {"seq_len": "16"}}), (2,))
    session("import and custom scores", dict(base, **{"import": {"files": [q + ":Q", k + ":K"]},
                                                     "params": {"scores": "1,2,3"}}), (0, 2))
    session("import 4 KB path", dict(base, **{"import": {"files": ["/" + "a" * 4094]}}), (2, 3))
    session("import NUL in path", dict(base, **{"import": {"files": ["q.npy\u0000:Q"]}}), (2,))
    if not os.path.exists(data + "/fifo"):
        os.mkfifo(data + "/fifo")
    return cases


def signal_cases():
    """Signals at other moments: while importing, while computing, twice, after a stop."""
    d, out = "signals", os.path.join(WORK, "signal-out")
    cases = []
    big = ["--import", WORK + "/data/long-q.npy:Q", "--import", WORK + "/data/long-k.npy:K"]
    for name, sig, delay in (("SIGTERM while computing a long import", signal.SIGTERM, 1.5),
                             ("SIGINT while computing a long import", signal.SIGINT, 1.5),
                             ("SIGHUP early", signal.SIGHUP, 0.05), ("SIGUSR2 very early", signal.SIGUSR2, 0.0),
                             ("SIGPROF while exporting", signal.SIGPROF, 1.0),
                             ("SIGPWR while exporting", signal.SIGPWR, 1.0),
                             ("SIGQUIT while reading", signal.SIGQUIT, 0.2),
                             ("SIGSEGV sent while exporting", signal.SIGSEGV, 1.0),
                             ("SIGABRT sent while exporting", signal.SIGABRT, 1.0)):
        target = out + "/" + sig.name
        cases.append(Case(d, name, big + ["--export-csv", target], codes=(0,), one_line=False,
                          signals=[(delay, sig)], watch=[out]))
    cases.append(Case(d, "SIGINT twice", ["--export-csv", out + "/double", "--set", "seq_len=4096"], codes=(0,),
                      one_line=False, signals=[(1.0, signal.SIGINT), (1.01, signal.SIGINT)], watch=[out]))
    cases.append(Case(d, "SIGSTOP, SIGCONT, SIGTERM", ["--export-csv", out + "/stopped", "--set", "seq_len=4096"],
                      codes=(0,), one_line=False,
                      signals=[(1.0, signal.SIGSTOP), (1.5, signal.SIGCONT), (1.6, signal.SIGTERM)], watch=[out]))
    cases.append(Case(d, "SIGHUP ignored (nohup)", ["--export-csv", out + "/nohup", "--set", "seq_len=2048"],
                      codes=(0,), one_line=False, prefix="trap '' HUP;", signals=[(0.5, signal.SIGHUP)],
                      watch=[out]))
    cases.append(Case(d, "SIGTERM during a GIF", ["--export-gif", out + "/a.gif", "--sweep", "temperature=0.1:3",
                                                  "--frames", "40"], codes=(0,), one_line=False,
                      signals=[(2.0, signal.SIGTERM)], watch=[out]))
    cases.append(Case(d, "SIGTERM during lesson PNGs", ["--export-lesson", "why-softmax", out + "/lesson"],
                      codes=(0,), one_line=False, signals=[(2.0, signal.SIGTERM)], watch=[out]))
    return cases


def mutation_cases():
    """Random byte mutations of valid inputs (a seeded mini-fuzzer through the command line): an
    .npy, an .npz, a CSV, a token list and a session, each run through --export-csv."""
    d, out = "mutations", os.path.join(WORK, "mutation-out")
    data = os.path.join(WORK, "mutations")
    rng = np.random.default_rng(2026)
    q = npy_bytes(rng.standard_normal((6, 4)).astype(np.float32))
    k = npy_bytes(rng.standard_normal((6, 4)).astype(np.float32))
    write(data + "/k.npy", k)
    archive = zip_raw([(b"q.npy", q), (b"k.npy", k)])
    csv = b"\n".join(b",".join(b"%.3f" % x for x in row) for row in rng.standard_normal((5, 5))) + b"\n"
    tokens = b"The\ncat\nsat\non\nthe\nmat\n"
    session = json.dumps({"version": 1, "params": {"temperature": "0.5", "seq_len": "6"},
                          "import": {"files": [data + "/base-q.npy:Q", data + "/k.npy:K"]}}).encode()
    write(data + "/base-q.npy", q)
    count = 12 if QUICK else 60
    cases = []

    def mutate(blob, seed):
        r = np.random.default_rng(seed)
        b = bytearray(blob)
        for _ in range(int(r.integers(1, 6))):
            what = int(r.integers(0, 4))
            at = int(r.integers(0, max(len(b), 1)))
            if what == 0 and b:
                b[at % len(b)] = int(r.integers(0, 256))
            elif what == 1:
                b[at:at] = bytes(r.integers(0, 256, int(r.integers(1, 9))).astype(np.uint8))
            elif what == 2 and b:
                del b[at:at + int(r.integers(1, 9))]
            else:
                b = b[:at]
        return bytes(b)

    for i in range(count):
        for kind, blob, suffix, role in (("npy", q, ".npy", ":Q"), ("npz", archive, ".npz", ""),
                                         ("csv", csv, ".csv", ":scores")):
            path = write(data + "/m%d-%s%s" % (i, kind, suffix), mutate(blob, 1000 * i + len(kind)))
            args = ["--import", path + role]
            if kind == "npy":
                args += ["--import", data + "/k.npy:K"]
            cases.append(Case(d, "%s mutation %d" % (kind, i), args + ["--export-csv", out + "/%s%d" % (kind, i)],
                              codes=(0, 2), watch=[out], timeout=60, max_rss_mb=600))
        path = write(data + "/m%d-tokens.txt" % i, mutate(tokens, 7 * i))
        cases.append(Case(d, "tokens mutation %d" % i, ["--import", data + "/base-q.npy:Q", "--import",
                                                        data + "/k.npy:K", "--tokens", path, "--export-csv",
                                                        out + "/tokens%d" % i], codes=(0, 2), watch=[out]))
        path = write(data + "/m%d-session.json" % i, mutate(session, 13 * i))
        cases.append(Case(d, "session mutation %d" % i, ["--load", path, "--export-csv", out + "/session%d" % i],
                          codes=(0, 2, 3), watch=[out]))
    return cases


def view_cases():
    """Every view rendered from imported data at its extremes: the drawing code meets 1e38, 1e-45
    and a causal one-hot, at a projector size and a small one."""
    d, out = "views", os.path.join(WORK, "view-out")
    data = os.path.join(WORK, "view-data")
    os.makedirs(out, exist_ok=True)  # --screenshot writes into an existing folder only
    write(data + "/big-q.npy", npy_bytes(np.full((12, 4), 1e38, np.float32)))
    write(data + "/big-k.npy", npy_bytes(np.array([[(-1) ** (i + c) * 3e38 for c in range(4)] for i in range(12)],
                                                  np.float32)))
    write(data + "/tiny-q.npy", npy_bytes(np.full((12, 4), 1e-45, np.float32)))
    views = ["dashboard", "normalizers", "stability", "temperature", "scaling", "gradients", "attention-variants",
             "positions", "heads", "values", "sampling", "loss", "geometry", "init"]
    cases = []
    for view in views:
        for label, q, k, extra in (("huge", "big-q", "big-k", ["--set", "temperature=0.01"]),
                                   ("subnormal", "tiny-q", "tiny-q", ["--set", "causal=true"])):
            size = "1280x720" if label == "huge" else "640x360"
            cases.append(Case(d, "%s %s" % (view, label),
                              ["--import", data + "/" + q + ".npy:Q", "--import", data + "/" + k + ".npy:K", "--view",
                               view, "--size", size, "--screenshot", out + "/%s-%s.png" % (view, label)] + extra,
                              codes=(0,), watch=[out], timeout=180))
    cases.append(Case(d, "svg of every plot, huge data", ["--import", data + "/big-q.npy:Q", "--import",
                                                          data + "/big-k.npy:K", "--export-svg", out + "/svg"],
                      codes=(0,), watch=[out], check=svgs_well_formed(out + "/svg")))
    cases.append(Case(d, "gif sweep of T over huge data", ["--import", data + "/big-q.npy:Q", "--import",
                                                           data + "/big-k.npy:K", "--export-gif", out + "/t.gif",
                                                           "--sweep", "temperature=0.01:100:log", "--frames", "12",
                                                           "--size", "640x360"], codes=(0,), watch=[out]))
    cases.append(Case(d, "gif sweep of seq_len 2 to 4096", ["--export-gif", out + "/l.gif", "--sweep",
                                                            "seq_len=2:4096:log", "--frames", "8", "--size",
                                                            "640x360"], codes=(0,), watch=[out], timeout=300))
    return cases


def svgs_well_formed(folder):
    def check(code, err):
        import xml.dom.minidom
        if code != 0:
            return None
        for name in sorted(os.listdir(folder)):
            try:
                xml.dom.minidom.parse(os.path.join(folder, name))
            except Exception as error:  # noqa: BLE001 (any parse failure is the finding)
                return "%s is not well-formed XML: %s" % (name, error)
        return None
    return check


def window_cases():
    """The real window under Xvfb, started in hostile conditions and closed by a signal."""
    d, out = "window", os.path.join(WORK, "window")
    cases = []
    if shutil.which("xvfb-run") is None:
        return cases
    config = out + "/config"
    os.makedirs(config + "/softmax-lab", exist_ok=True)
    # One X server for the direction (its own display number), ended when the run ends.
    display = ":%d" % (90 + os.getpid() % 9)
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import atexit
    atexit.register(server.terminate)
    time.sleep(1.0)
    for name, args, env, prefix in (
            ("a long import, SIGTERM at 4 s", ["--import", WORK + "/data/long-q.npy:Q", "--import",
                                               WORK + "/data/long-k.npy:K"], {}, ""),
            ("a session whose import is gone", ["--load", WORK + "/data/session-imports-gone.json"], {}, ""),
            ("the config folder read-only", [], {}, "chmod 555 %s/softmax-lab;" % config),
            ("the config folder a file", [], {"XDG_CONFIG_HOME": "/etc/passwd"}, ""),
            ("under ulimit -v 1G", [], {}, "ulimit -v 1048576;"),
            ("under ulimit -n 16", [], {}, "ulimit -n 16;")):
        env = dict({"XDG_CONFIG_HOME": config, "DISPLAY": display}, **env)
        cases.append(Case(d, name, args, codes=(0, 3, 4), one_line=False, env=env, prefix=prefix,
                          signals=[(4.0, signal.SIGTERM)], watch=[config], timeout=90))
    write(WORK + "/data/session-imports-gone.json",
          json.dumps({"version": 1, "import": {"files": ["/nonexistent/q.npy:Q", "/nonexistent/k.npy:K"]}}).encode())
    return cases


def absent(*paths):
    """A check: none of `paths` exists after the run (a refused run writes and makes nothing)."""
    def check(code, err):
        made = [p for p in paths if os.path.lexists(p)]
        return "left %s" % ", ".join(made) if made else None
    return check


def all_of(*checks):
    def check(code, err):
        for one in checks:
            problem = one(code, err)
            if problem:
                return problem
        return None
    return check


def says(text):
    def check(code, err):
        return None if text in err else "stderr lacks %r" % text
    return check


def round4_cases():
    """The fourth round's classes (docs/ROBUSTNESS.md), each beyond the case the review found: a
    training that cannot run or would run for hours, numbers past int, escaped duplicate keys,
    control characters in tokens, links under --overwrite, names for another format, a closed
    pipe, folders left by refused runs, the sentence .npz of a blown-up model, keys that depend on
    each other."""
    d, out = "round4", os.path.join(WORK, "round4-out")
    data = os.path.join(WORK, "round4-data")
    os.makedirs(out, exist_ok=True)
    cases = []
    # A training that cannot run: no lesson texts for the language model, in every mode.
    assets = data + "/assets-nolessons"
    os.makedirs(assets + "/lessons", exist_ok=True)
    source_assets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets")
    if not os.path.lexists(assets + "/i18n"):
        os.symlink(os.path.abspath(source_assets + "/i18n"), assets + "/i18n")
    shutil.copy(source_assets + "/presets.json", assets + "/presets.json")
    no_lessons = {"SOFTMAX_LAB_ASSETS": assets}
    write(data + "/language.json", json.dumps({"version": 1, "params": {"train_task": "language"}}).encode())
    language = [("export csv", ["--export-csv", out + "/lang-csv"], out + "/lang-csv"),
                ("export svg", ["--export-svg", out + "/lang-svg"], out + "/lang-svg"),
                ("screenshot", ["--screenshot", out + "/lang.png"], out + "/lang.png"),
                ("gif", ["--export-gif", out + "/lang.gif", "--sweep", "temperature=1:2", "--frames", "2"],
                 out + "/lang.gif"),
                ("bench frames", ["--bench-frames", "3"], None), ("bench latency", ["--bench-latency", "1"], None)]
    for name, args, target in language:
        check = says("train_task=language needs the lesson texts")
        if target:
            check = all_of(check, absent(target))
        cases.append(Case(d, "language without texts: " + name, ["--train", "language", "--steps", "2"] + args,
                          codes=(2,), env=no_lessons, check=check, timeout=60))
    cases.append(Case(d, "language without texts: a session", ["--load", data + "/language.json", "--export-csv",
                                                                 out + "/lang-session"], codes=(2,), env=no_lessons,
                      check=absent(out + "/lang-session"), timeout=60))
    # Settings in range that would train for hours: refused at once, naming the estimate.
    largest = ["--set", "train_seq_len=128", "--set", "train_vocab=256", "--set", "train_d_model=256", "--set",
               "train_d_k=512", "--set", "train_heads=8", "--set", "train_layers=2", "--set", "train_batch=256"]
    hours = [("the largest model, 100 steps", ["--train", "recall", "--steps", "100"] + largest),
             ("the largest model, one step of 32 runs",
              ["--train", "recall", "--steps", "1", "--set", "train_seeds=8", "--set", "train_compare=d_k=64,128,256"]
              + largest),
             ("d_k 512 and 8 heads, 100000 steps", ["--set", "train_d_k=512", "--set", "train_heads=8", "--set",
                                                     "train_steps=100000"]),
             ("a language model of two wide layers", ["--train", "language", "--steps", "100000", "--set",
                                                      "train_d_model=256", "--set", "train_layers=2"]),
             ("8 seeds of 4 runs at batch 256", ["--set", "train_seeds=8", "--set", "train_compare=d_k=8,32,64",
                                                 "--set", "train_batch=256", "--set", "train_steps=100000"])]
    for index, (name, args) in enumerate(hours):
        target = out + "/hours-%d" % index
        cases.append(Case(d, "hours: " + name + " (csv)", args + ["--export-csv", target], codes=(2,),
                          check=all_of(says("is estimated at"), absent(target)), timeout=60))
    heavy = ["--view", "training", "--set", "train_batch=256", "--set", "train_steps=100000"]
    cases.append(Case(d, "hours: screenshot of the lab", heavy + ["--screenshot", out + "/heavy.png"], codes=(2,),
                      check=all_of(says("is estimated at"), absent(out + "/heavy.png")), timeout=60))
    cases.append(Case(d, "hours: a GIF of a temperature sweep of the lab",
                      heavy + ["--export-gif", out + "/heavy.gif", "--sweep", "temperature=1:2"], codes=(2,),
                      check=absent(out + "/heavy.gif"), timeout=60))
    cases.append(Case(d, "hours: a GIF sweeping train_steps", ["--view", "training", "--export-gif",
                                                               out + "/steps.gif", "--sweep", "train_steps=0:100000",
                                                               "--frames", "1000"], codes=(2,),
                      check=absent(out + "/steps.gif"), timeout=60))
    cases.append(Case(d, "hours: a bench of the lab", heavy + ["--bench-frames", "1000"], codes=(2,), timeout=60))
    cases.append(Case(d, "a short training is not refused", ["--train", "copy", "--steps", "20", "--export-csv",
                                                              out + "/short"], codes=(0,), timeout=120))
    # Whole numbers past int (and signs, spaces) on the command line.
    for size in ("4294967616x240", "320x4294967536", "-4294966976x240", "9223372036854775808x240", "+320x240",
                 "320x240 ", "0x1p9x240", "320x0240x"):
        cases.append(Case(d, "--size " + size, ["--size", size, "--screenshot", out + "/size.png"], codes=(2,),
                          check=absent(out + "/size.png")))
    for option, extra in (("--frames", ["--export-gif", out + "/f.gif", "--sweep", "temperature=1:2"]),
                          ("--steps", ["--train", "recall", "--export-csv", out + "/steps"]),
                          ("--bench-frames", []), ("--bench-latency", []), ("--bench-load", ["--bench-frames", "1"])):
        for value in ("4294967297", "2147483648", "1e3"):
            cases.append(Case(d, option + " " + value, [option, value] + extra, codes=(2,)))
    # A key twice in one object, spelt with escapes.
    for name, text in (("temperature", r'{"version":1,"params":{"temperature":0.5,"\u0074emperature":2}}'),
                       ("params", r'{"version":1,"params":{},"\u0070arams":{"temperature":2}}'),
                       ("version", r'{"version":1,"\u0076\u0065rsion":1}'),
                       ("view", r'{"version":1,"view":"dashboard","vi\u0065w":"training"}'),
                       ("a solidus", r'{"version":1,"params":{"seed":1},"p\/x":1,"p/x":2}'),
                       ("upper-case hex", r'{"version":1,"params":{"row":1,"\u0072\u006F\u0077":2}}')):
        path = write(data + "/dup-" + name.replace(" ", "-") + ".json", text.encode())
        cases.append(Case(d, "session duplicate key " + name, ["--load", path, "--export-csv", out + "/dup"],
                          codes=(2,), check=all_of(says("twice in one object"), absent(out + "/dup"))))
    # Control characters in tokens (q.npy and k.npy are 4 × 8: four tokens).
    for name, text in (("NUL", b"a\0b\nc\nd\ne\n"), ("NUL escape", b'["a\\u0000b", "c", "d", "e"]'),
                       ("ESC", b"a\x1b[2Jb\nc\nd\ne\n"), ("DEL", b"c\nd\ne\na\x7fb\n"),
                       ("unit separator escape", b'["a", "b\\u001fc", "d", "e"]'), ("bell escape", b'["\\u0007"]')):
        path = write(data + "/tokens-" + name.replace(" ", "-") + ".txt", text)
        cases.append(Case(d, "token with " + name, ["--import", WORK + "/data/q.npy:Q", "--import",
                                                    WORK + "/data/k.npy:K", "--tokens", path, "--export-csv",
                                                    out + "/tokens"], codes=(2,), check=says("holds")))
    # Links under --overwrite: refused, the file they point to untouched.
    links = data + "/links"
    os.makedirs(links, exist_ok=True)
    outside = write(data + "/outside.txt", b"not yours\n")
    for name in ("params.csv", "dashboard-distribution.svg", "shot.png", "anim.gif", "why-softmax-01.png"):
        if not os.path.lexists(links + "/" + name):
            os.symlink(outside, links + "/" + name)

    def unchanged(code, err):
        with open(outside, "rb") as kept:
            return None if kept.read() == b"not yours\n" else "the file the link points to was changed"
    for name, args in (("csv", ["--export-csv", links]), ("svg", ["--export-svg", links]),
                       ("screenshot", ["--screenshot", links + "/shot.png", "--size", "320x240"]),
                       ("gif", ["--export-gif", links + "/anim.gif", "--sweep", "temperature=1:2", "--frames", "2",
                                "--size", "320x240"]),
                       ("lesson", ["--export-lesson", "why-softmax", links])):
        for overwrite in ([], ["--overwrite"]):
            cases.append(Case(d, "a link as the %s target %s" % (name, " ".join(overwrite)), args + overwrite,
                              codes=(3,), check=all_of(says("symbolic link"), unchanged), watch=[links]))
    # Names for another format.
    for option, name in (("--screenshot", "a.jpg"), ("--screenshot", "a.gif"), ("--screenshot", "png"),
                         ("--screenshot", "a.png "), ("--export-gif", "a.png"), ("--export-gif", "a.GIF.png")):
        extra = ["--sweep", "temperature=1:2"] if option == "--export-gif" else []
        cases.append(Case(d, option + " " + name, [option, out + "/" + name] + extra, codes=(2,),
                          check=all_of(says("must end in"), absent(out + "/" + name))))
    cases.append(Case(d, "--screenshot A.PNG", ["--screenshot", out + "/A.PNG", "--size", "320x240"], codes=(0,)))
    # A pipe whose reader has gone (closed before the program starts, as `| true` closes it at
    # once): one line, exit 3.
    piped = ("/usr/bin/python3 -c 'import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
             "os.execv(sys.argv[1], sys.argv[1:])'")
    for name, args in (("--list-keys", ["--list-keys"]), ("--export-csv", ["--export-csv", out + "/piped"]),
                       ("--screenshot", ["--screenshot", out + "/piped.png", "--size", "320x240"])):
        cases.append(Case(d, name + " | true", args, codes=(3,), wrapper=piped, check=says("Broken pipe")))
    # Folders made by runs refused later, or killed.
    old = write(out + "/old/dashboard-distribution.svg", b"old\n")
    for name, args, made in (("/dev/null/x", ["--export-csv", out + "/new1", "--export-svg", "/dev/null/x"],
                              out + "/new1"),
                             ("an existing file", ["--export-csv", out + "/new2/deep", "--export-svg",
                                                   os.path.dirname(old)], out + "/new2"),
                             ("a lesson under a file", ["--export-lesson", "why-softmax", old + "/sub"],
                              old + "/sub")):
        cases.append(Case(d, "folder made before a refusal: " + name, args, codes=(3,), check=absent(made)))
    cases.append(Case(d, "folder made before SIGTERM in training",
                      ["--train", "recall", "--steps", "30000", "--set", "train_batch=256", "--export-csv",
                       out + "/killed"], codes=(0,), one_line=False, signals=[(2.0, signal.SIGTERM)],
                      check=absent(out + "/killed"), watch=[out]))
    # The sentence of a blown-up model: no .npz, one warning line, exit 0.
    for name, sets in (("naive fp16 at init 100", ["train_precision=fp16", "train_softmax=naive",
                                                    "train_init_scale=100", "train_scaled=false"]),
                       ("naive bf16 at T 0.01", ["train_precision=bf16", "train_softmax=naive",
                                                 "train_temperature=0.01", "train_init_scale=100"])):
        target = out + "/blown-%d" % len(cases)
        args = ["--train", "recall", "--steps", "10"]
        for assignment in sets:
            args += ["--set", assignment]

        def consistent(code, err, target=target):
            written = os.path.exists(target + "/train-sentence.npz")
            if written == ("not written" in err):
                return "train-sentence.npz %s, and stderr says %r" % ("written" if written else "absent", err[:80])
            return None
        cases.append(Case(d, "sentence of a blow-up: " + name, args + ["--export-csv", target], codes=(0,),
                          check=consistent))
    # Keys that depend on each other, as one set.
    for name, sets, codes in (("L 3, vocab 2", ["train_seq_len=3", "train_vocab=2"], (0,)),
                              ("vocab 2, L 3", ["train_vocab=2", "train_seq_len=3"], (0,)),
                              ("maximum L 5 vocab 4", ["train_task=maximum", "train_vocab=4", "train_seq_len=5"], (0,)),
                              ("L 20, vocab 10", ["train_seq_len=20", "train_vocab=10"], (2,)),
                              ("row 10 then seq_len 16", ["row=10", "seq_len=16"], (0,)),
                              ("row 10 then seq_len 4", ["row=10", "seq_len=4"], (2,))):
        args = ["--set", "train_steps=2"]
        for assignment in sets:
            args += ["--set", assignment]
        cases.append(Case(d, "keys together: " + name, args + ["--export-csv", out + "/keys-%d" % len(cases)],
                          codes=codes))
    write(data + "/small.json", json.dumps({"version": 1, "params": {"train_vocab": 2, "train_seq_len": 3,
                                                                      "train_steps": 2}}).encode())
    cases.append(Case(d, "keys together: a session of L 3, vocab 2", ["--load", data + "/small.json", "--export-csv",
                                                                       out + "/keys-session"], codes=(0,)))
    return cases


DIRECTIONS = {"limits": limits_cases, "environment": environment_cases, "paths": path_cases,
              "concurrency": concurrency_cases, "data": data_cases, "zip": zip_cases, "sessions": session_cases,
              "signals": signal_cases, "mutations": mutation_cases, "views": view_cases,
              "window": window_cases, "round4": round4_cases}


def prepare():
    data = os.path.join(WORK, "data")
    os.makedirs(data, exist_ok=True)
    rng = np.random.default_rng(7)
    write(data + "/q.npy", npy_bytes(rng.standard_normal((4, 8)).astype(np.float32)))
    write(data + "/k.npy", npy_bytes(rng.standard_normal((4, 8)).astype(np.float32)))
    length = 2048 if QUICK else 8192
    write(data + "/long-q.npy", npy_bytes(rng.standard_normal((length, 64)).astype(np.float32)))
    write(data + "/long-k.npy", npy_bytes(rng.standard_normal((length, 64)).astype(np.float32)))
    good = {"version": 1, "params": {"temperature": "0.5"}}
    write(data + "/session-good.json", json.dumps(good).encode())
    shutil.copy(data + "/session-good.json", data + "/session-good.bak")
    reference = os.path.join(WORK, "reference-csv")
    if not os.path.isdir(reference):
        subprocess.run([BINARY, "--export-csv", reference], check=True, capture_output=True)


def main():
    global BINARY, WORK, QUICK, VERBOSE
    BINARY = os.path.abspath(sys.argv[1])
    WORK = os.path.abspath(sys.argv[2])
    QUICK = "--quick" in sys.argv
    VERBOSE = "--verbose" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    # A fresh folder each run (earlier outputs would make every export "already exists"); one this
    # script made before is cleared, anything else is refused.
    marker = os.path.join(WORK, ".hostile-run")
    if os.path.exists(WORK) and os.listdir(WORK):
        if not os.path.exists(marker):
            sys.exit("%s is not empty and not a hostile run's folder" % WORK)
        shutil.rmtree(WORK)
    os.makedirs(WORK, exist_ok=True)
    open(marker, "w").close()
    prepare()
    totals = {}
    broken = 0
    for direction, make in DIRECTIONS.items():
        if only and direction != only:
            continue
        cases = make()
        good = 0
        for case in cases:
            problems, outcome = run(case)
            if problems:
                broken += 1
                first = outcome[1][:160] if outcome else ""
                print("PROBLEM [%s] %s: %s | %s" % (direction, case.name, "; ".join(problems), first), flush=True)
            else:
                good += 1
                if VERBOSE:
                    print("ok      [%s] %s: exit %d, %.1f s | %s" % (direction, case.name, outcome[0], outcome[2],
                                                                    outcome[1][:140]), flush=True)
        totals[direction] = (good, len(cases))
        print("%-12s %3d of %3d handled well" % (direction, good, len(cases)), flush=True)
    cases = sum(t for _, t in totals.values())
    print("total        %3d of %3d handled well" % (cases - broken, cases))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
