"""report.py: the measuring and summing-up half of tests/gpu/advise-h200.sh.

    report.py timed RESULT.json STDOUT STDERR -- CMD...
        run CMD with its output in STDOUT and STDERR; write its exit status, wall clock and
        CPU time (user + system, from the kernel's accounting of the child, independently of
        what CMD says about itself) with the start and end times to RESULT.json
    report.py summary DIR "JOB:ID JOB:ID ..." JOB...
        one line per job from the files the script left in DIR: advise's first finding, whether
        it is the expected one, step time and samples/s plain and fixed, nvidia-smi's mean
        utilisation plain and fixed; then advise's own cost (healthy with advise attached
        against healthy without); exits 1 when a job was not diagnosed as expected

Only the standard library. advise's JSON is read loosely (the first "findings" list anywhere
in the document, its first entry's "id"), so that a change of its layout shows as a line to
fix here rather than as a crash.
"""
import datetime
import json
import os
import resource
import subprocess
import sys
import time


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def last_json_line(path):
    """The job's result: the last line of its stdout that is a JSON object."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def timed(argv):
    res_path, out_path, err_path = argv[:3]
    cmd = argv[4:] if len(argv) > 3 and argv[3] == "--" else argv[3:]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, w0 = time.time(), time.monotonic()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        try:
            rc = subprocess.call(cmd, stdout=out, stderr=err)
        except OSError as e:
            err.write("report.py: cannot run %s: %s\n" % (cmd[0], e))
            rc = 127
    wall = time.monotonic() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(res_path, "w") as f:
        json.dump({"rc": rc, "start": t0, "end": time.time(), "wall_s": round(wall, 3),
                   "cpu_s": round(cpu, 3), "cpu_pct": round(100 * cpu / max(wall, 1e-9), 2),
                   "cmd": cmd}, f)
    return 0


def first_list(d, key):
    """The first list stored under key anywhere in d (depth first, in document order)."""
    if isinstance(d, dict):
        if isinstance(d.get(key), list):
            return d[key]
        for v in d.values():
            r = first_list(v, key)
            if r is not None:
                return r
    elif isinstance(d, list):
        for v in d:
            r = first_list(v, key)
            if r is not None:
                return r
    return None


def find_keys(d, pred, path=""):
    """Every (path, value) whose key, or a key above it, satisfies pred: advise's self-cost,
    wherever it sits."""
    out = []
    if isinstance(d, dict):
        for k, v in d.items():
            p = path + "." + k if path else k
            if pred(k) and not isinstance(v, (dict, list)):
                out.append((p, v))
            elif pred(k) and isinstance(v, dict):
                out += find_keys(v, lambda _: True, p)
            else:
                out += find_keys(v, pred, p)
    elif isinstance(d, list):
        for i, v in enumerate(d[:50]):
            out += find_keys(v, pred, "%s[%d]" % (path, i))
    return out


def smi_mean(path, t0, t1):
    """Mean of nvidia-smi's utilization.gpu samples ("timestamp, util" lines) taken within
    [t0, t1] (epoch seconds), or of all of them when the timestamps cannot be read."""
    vals, inside = [], []
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None, 0
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2:
            continue
        try:
            u = float(parts[1])
        except ValueError:
            continue
        vals.append(u)
        try:
            ts = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        except ValueError:
            continue
        if t0 is not None and t0 <= ts <= t1:
            inside.append(u)
    use = inside if inside else vals
    return (sum(use) / len(use) if use else None), len(use)


def rate_between(marks, t0, t1):
    """Steps per second over the job's marks that fall within [t0, t1]."""
    sel = [m for m in marks or [] if t0 <= m[0] <= t1]
    if len(sel) < 2 or sel[-1][0] <= sel[0][0]:
        return None
    return (sel[-1][1] - sel[0][1]) / (sel[-1][0] - sel[0][0])


def fmt(v, f="%.1f"):
    return "-" if v is None else f % v


def summary(argv):
    d, table, jobs = argv[0], argv[1], argv[2:]
    expect = dict(e.split(":", 1) for e in table.split())
    bad = 0
    details = []
    print("%-8s %-26s %-26s %-3s %17s %21s %7s %11s" % (
        "job", "advise: first finding", "expected", "ok", "step ms plain/fix",
        "samples/s plain/fix", "ratio", "util % p/f"))
    for job in jobs:
        plain = last_json_line(os.path.join(d, job + ".plain.out"))
        fixed = last_json_line(os.path.join(d, job + ".fixed.out"))
        adv = load(os.path.join(d, job + ".advise.json"))
        arun = load(os.path.join(d, job + ".advise.run.json")) or {}
        if adv is None:
            first = "(no json: rc %s)" % arun.get("rc", "?")
        else:
            fs = first_list(adv, "findings")
            if fs is None:
                first = "(no findings list)"
            elif not fs:
                first = "(none)"
            else:
                f0 = fs[0] if isinstance(fs[0], dict) else {}
                first = str(f0.get("id", "?"))
                text = " ".join(str(f0[k]) for k in ("title", "message", "evidence", "fix")
                                if k in f0 and not isinstance(f0[k], (dict, list)))
                details.append("%s: %s" % (job, text[:300]))
        want = expect.get(job, "?")
        # a control with no finding at all also counts as "nothing to fix"
        ok = first == want or (want == "advise.ok" and first == "(none)")
        bad += not ok
        ratio = None
        if plain and fixed and plain.get("samples_s"):
            ratio = fixed["samples_s"] / plain["samples_s"]
        u = []
        for mode, res in (("plain", plain), ("fixed", fixed)):
            m = (res or {}).get("marks") or []
            t0, t1 = (m[0][0], m[-1][0]) if m else (None, None)
            u.append(smi_mean(os.path.join(d, "%s.%s.smi" % (job, mode)), t0, t1)[0])
        print("%-8s %-26s %-26s %-3s %8s/%-8s %10s/%-10s %7s %5s/%-5s" % (
            job, first[:26], want[:26], "yes" if ok else "NO",
            fmt((plain or {}).get("step_ms"), "%.2f"), fmt((fixed or {}).get("step_ms"), "%.2f"),
            fmt((plain or {}).get("samples_s"), "%.0f"), fmt((fixed or {}).get("samples_s"), "%.0f"),
            fmt(ratio, "%.2fx"), fmt(u[0], "%.0f"), fmt(u[1], "%.0f")))
    if details:
        print("-- advise's first finding, as it says it:")
        for line in details:
            print("  " + line)
    # advise's own cost: healthy's step rate while advise was attached against the same job
    # run without it (the --fixed run of healthy changes nothing else)
    if "healthy" in jobs:
        plain = last_json_line(os.path.join(d, "healthy.plain.out")) or {}
        fixed = last_json_line(os.path.join(d, "healthy.fixed.out")) or {}
        arun = load(os.path.join(d, "healthy.advise.run.json")) or {}
        with_adv = None
        if arun.get("start"):
            with_adv = rate_between(plain.get("marks"), arun["start"] + 1, arun["end"])
        without = fixed.get("steps_s")
        print("-- advise's cost on healthy.py:")
        if with_adv and without:
            print("  step rate with advise attached %.2f/s, without %.2f/s: step-time ratio %.4f "
                  "(%+.2f %%)" % (with_adv, without, without / with_adv,
                                   100 * (without / with_adv - 1)))
        else:
            print("  step rate with advise %s, without %s: no ratio" % (with_adv, without))
        if arun:
            print("  advise's process: %.2f s CPU over %.1f s wall (%.2f %% of one core), exit %s"
                  % (arun.get("cpu_s", 0), arun.get("wall_s", 0), arun.get("cpu_pct", 0),
                     arun.get("rc")))
        adv = load(os.path.join(d, "healthy.advise.json"))
        said = find_keys(adv, lambda k: "self" in k.lower() or "cost" in k.lower())
        print("  advise --json says: %s" % (", ".join("%s=%s" % kv for kv in said[:8])
                                             or "(no self-cost field found)"))
    n = len(jobs)
    print("advise-h200: %d of %d jobs diagnosed as expected" % (n - bad, n))
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "timed":
        return timed(sys.argv[2:])
    if len(sys.argv) >= 4 and sys.argv[1] == "summary":
        return summary(sys.argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
