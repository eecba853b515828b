"""monitor_compare.py: the measuring and comparing half of tests/gpu/monitor-h200.sh.

    monitor_compare.py treecpu PID SECONDS     CPU % of PID and its descendants over SECONDS,
                                                read from /proc independently of gpuvet (JSON)
    monitor_compare.py smi-bench N FIELDS       CPU time of N runs of nvidia-smi --query-gpu
    monitor_compare.py report DIR PID           gpuvet against nvidia-smi, taken at the same time
    monitor_compare.py bench DIR                the collector's cost against raw NVML and nvidia-smi

Only the standard library: the GPU machine has no jq. Every comparison prints one line with
both numbers and the difference; nothing here fails the run, it reports.
"""
import json
import os
import resource
import subprocess
import sys
import time


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def json_lines(path):
    out = []
    for line in read(path).splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def avg(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, unit="", nd=1):
    return "n/a" if x is None else ("%.*f%s" % (nd, x, unit))


# ---- treecpu -------------------------------------------------------------------------------

def tree(pid):
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p in pids:
            continue
        pids.append(p)
        try:
            for tid in os.listdir("/proc/%d/task" % p):
                todo += [int(c) for c in read("/proc/%d/task/%s/children" % (p, tid)).split()]
        except OSError:
            pass
    return pids


def ticks(pid):
    s = read("/proc/%d/stat" % pid)
    if not s:
        return None
    f = s[s.rfind(")") + 2:].split()
    return int(f[11]) + int(f[12]), int(f[19])  # utime+stime, start time


def treecpu(pid, seconds):
    hz = os.sysconf("SC_CLK_TCK")
    before = {p: ticks(p) for p in tree(pid)}
    t0 = time.monotonic()
    time.sleep(seconds)
    members = tree(pid)
    after = {p: ticks(p) for p in members}
    dt = time.monotonic() - t0
    used = 0
    for p, a in after.items():
        b = before.get(p)
        if a is None:
            continue
        if b is not None and b[1] == a[1]:
            used += a[0] - b[0]
    own = None
    if before.get(pid) and after.get(pid):
        own = (after[pid][0] - before[pid][0]) * 100.0 / hz / dt
    print(json.dumps({"pid": pid, "seconds": dt, "tree_procs": len(members),
                      "tree_cpu_pct": used * 100.0 / hz / dt, "cpu_pct": own}))


# ---- nvidia-smi cost ---------------------------------------------------------------------------

def smi_bench(n, fields):
    ngpus = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    ok = 0
    for _ in range(n):
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv,noheader"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        if r.returncode == 0:
            ok += 1
            ngpus = len([l for l in r.stdout.decode().splitlines() if l.strip()])
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    g = ngpus or 1
    print(json.dumps({"kind": "nvidia-smi", "runs": n, "ok": ok, "gpus": ngpus,
                      "us_per_gpu": cpu * 1e6 / max(ok, 1) / g,
                      "wall_us_per_gpu": wall * 1e6 / max(n, 1) / g}))


# ---- report: gpuvet against nvidia-smi -------------------------------------------------------

def smi_table(path):
    """nvidia-smi dmon / pmon text: rows as dicts keyed by the header's column names."""
    cols, rows = None, []
    for line in read(path).splitlines():
        if line.startswith("# gpu") or line.startswith("#gpu"):
            cols = line.lstrip("#").split()
            continue
        if line.startswith("#") or not line.strip() or cols is None:
            continue
        vals = line.split()
        rows.append(dict(zip(cols, vals)))
    return rows


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def report(d, pid):
    ok = True
    lines = json_lines(os.path.join(d, "watch.jsonl"))
    procs = [l for l in lines if l.get("kind") == "process" and l.get("pid") == pid]
    gpus0 = [l for l in lines if l.get("kind") == "gpu" and l.get("gpu") == 0]
    print("-- the training job (PID %d) as gpuvet watch sees it: %d process lines, %d GPU-0 lines"
          % (pid, len(procs), len(gpus0)))
    if not procs:
        print("PROBLEM: gpuvet watch did not list the training PID")
        ok = False
    # memory: gpuvet vs nvidia-smi --query-compute-apps at the same moment
    apps = {}
    for line in read(os.path.join(d, "apps.csv")).splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit():
            apps[int(parts[0])] = num(parts[1])
    g_mem = avg([p.get("gpu_mem_bytes", 0) / 2 ** 20 for p in procs if "gpu_mem_bytes" in p])
    s_mem = apps.get(pid)
    print("memory   gpuvet %s MiB   nvidia-smi --query-compute-apps %s MiB   diff %s MiB (%s)"
          % (fmt(g_mem, "", 0), fmt(s_mem, "", 0),
             fmt(None if g_mem is None or s_mem is None else g_mem - s_mem, "", 0),
             fmt(None if not s_mem or g_mem is None else (g_mem - s_mem) * 100 / s_mem, "%", 2)))
    pmon = [r for r in smi_table(os.path.join(d, "pmon.txt")) if r.get("pid") == str(pid)]
    p_fb = avg([num(r.get("fb")) for r in pmon])
    if p_fb is not None:
        print("memory   gpuvet %s MiB   nvidia-smi pmon fb %s MiB   diff %s MiB"
              % (fmt(g_mem, "", 0), fmt(p_fb, "", 0),
                 fmt(None if g_mem is None else g_mem - p_fb, "", 0)))
    # SM %: gpuvet's filtered samples vs pmon's sm column
    g_sm = avg([p.get("sm_pct") for p in procs[1:]] or [p.get("sm_pct") for p in procs])
    p_sm = avg([num(r.get("sm")) for r in pmon])
    print("SM %%     gpuvet %s (avg of %d lines)   nvidia-smi pmon %s (avg of %d)   diff %s points"
          % (fmt(g_sm), len(procs), fmt(p_sm), len(pmon),
             fmt(None if g_sm is None or p_sm is None else g_sm - p_sm)))
    # utilisation: gpuvet's GPU 0 lines vs dmon's sm column
    dmon = [r for r in smi_table(os.path.join(d, "dmon.txt")) if r.get("gpu") == "0"]
    g_util = avg([l.get("util_gpu_pct") for l in gpus0])
    d_util = avg([num(r.get("sm")) for r in dmon])
    print("util %%   gpuvet %s (GPU 0, %d lines)   nvidia-smi dmon sm %s (%d lines)   diff %s points"
          % (fmt(g_util), len(gpus0), fmt(d_util), len(dmon),
             fmt(None if g_util is None or d_util is None else g_util - d_util)))
    g_pwr = avg([l.get("power_mw", 0) / 1000.0 for l in gpus0 if "power_mw" in l])
    d_pwr = avg([num(r.get("pwr")) for r in dmon])
    print("power    gpuvet %s W   nvidia-smi dmon %s W   diff %s W"
          % (fmt(g_pwr), fmt(d_pwr), fmt(None if g_pwr is None or d_pwr is None else g_pwr - d_pwr)))
    # CPU of the process tree: gpuvet vs an independent /proc reading over the same seconds
    ind = json_lines(os.path.join(d, "treecpu.json"))
    ind = ind[0] if ind else {}
    g_tree = avg([p.get("tree_cpu_pct") for p in procs])
    g_own = avg([p.get("cpu_pct") for p in procs])
    g_n = max([p.get("tree_procs", 0) for p in procs] or [0])
    print("tree CPU gpuvet %s (%d processes; the main one %s)   /proc over %s s %s (%s processes)   diff %s points"
          % (fmt(g_tree, "%"), g_n, fmt(g_own, "%"), fmt(ind.get("seconds")),
             fmt(ind.get("tree_cpu_pct"), "%"), ind.get("tree_procs", "n/a"),
             fmt(None if g_tree is None or ind.get("tree_cpu_pct") is None
                 else g_tree - ind["tree_cpu_pct"])))
    if g_n < 5:
        print("PROBLEM: the tree should hold the main process and its 4 data-loader workers")
        ok = False
    # top --once: the row of the job
    row = [l for l in read(os.path.join(d, "top.txt")).splitlines()
           if l.strip().startswith(str(pid) + " ")]
    print("top      %s" % (row[0].strip() if row else "PROBLEM: no row for the PID in top --once"))
    ok = ok and bool(row)
    # topo
    try:
        topo = json.loads(read(os.path.join(d, "topo.json")))
        cell = topo["matrix"][0][1] if len(topo["matrix"]) > 1 else "X"
        print("topo     GPU0-GPU1 %s, links up %s, p2p %s" % (
            cell, [g.get("nvlinks_up") for g in topo["gpus"]],
            topo["pairs"][0]["p2p"] if topo.get("pairs") else "n/a"))
    except (ValueError, KeyError, IndexError, TypeError):
        print("PROBLEM: gpuvet topo --json did not give a matrix")
        ok = False
    print("report: %s" % ("the job shows with its memory, SM % and children" if ok else "see PROBLEM lines"))


# ---- bench: the collector's cost ---------------------------------------------------------------

def bench(d):
    def first(name, kind):
        for l in json_lines(os.path.join(d, name)):
            if l.get("kind") == kind:
                return l
        return {}

    hot = first("floor_hot.json", "floor")
    sleep = first("floor_sleep.json", "floor")
    c6 = first("collector6.json", "self_cost")
    full = first("collector_full.json", "self_cost")
    smi = first("smi_bench.json", "nvidia-smi")
    h, s = hot.get("us_per_gpu"), sleep.get("us_per_gpu")
    c = c6.get("collector_us_per_tick_per_gpu")
    m = smi.get("us_per_gpu")
    print("-- CPU per GPU per sample, the same six fields (util, memory, temperature, power, SM clock, clock events)")
    print("raw NVML, back to back (the floor)        %s us" % fmt(h, "", 2))
    print("raw NVML, sleeping like a collector       %s us" % fmt(s, "", 2))
    print("gpuvet collector (thread CPU, whole tick) %s us   (%s ticks, %s GPUs)"
          % (fmt(c, "", 2), c6.get("fast_ticks", "n/a"), c6.get("gpus", "n/a")))
    print("  the whole gpuvet process (prints too)   %s us" % fmt(c6.get("process_us_per_tick_per_gpu"), "", 2))
    print("nvidia-smi --query-gpu, per run           %s us   (%s runs)" % (fmt(m, "", 0), smi.get("runs", "n/a")))
    if full:
        print("gpuvet full fast tier + processes + GPM   %s us per GPU per tick (fields %s, processes %s, GPM %s; /proc %s us per tick)"
              % (fmt(full.get("collector_us_per_tick_per_gpu"), "", 1),
                 fmt(full.get("fast_fields_us_per_tick_per_gpu"), "", 1),
                 fmt(full.get("process_lists_us_per_tick_per_gpu"), "", 1),
                 fmt(full.get("gpm_us_per_tick_per_gpu"), "", 1),
                 fmt(full.get("proc_reads_us_per_tick"), "", 1)))
    if c and h:
        r = c / h
        print("ratio collector / floor back to back      %.2fx  (goal <= 2x: %s)" % (r, "met" if r <= 2 else "NOT met"))
    if c and s:
        r = c / s
        print("ratio collector / floor sleeping alike    %.2fx  (%s)" % (r, "met" if r <= 2 else "NOT met"))
    if c and m:
        r = m / c
        print("ratio nvidia-smi / collector              %.0fx  (goal >= 100x: %s)" % (r, "met" if r >= 100 else "NOT met"))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cmd = sys.argv[1]
    if cmd == "treecpu":
        treecpu(int(sys.argv[2]), float(sys.argv[3]))
    elif cmd == "smi-bench":
        smi_bench(int(sys.argv[2]), sys.argv[3])
    elif cmd == "report":
        report(sys.argv[2], int(sys.argv[3]))
    elif cmd == "bench":
        bench(sys.argv[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
