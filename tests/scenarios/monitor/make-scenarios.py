#!/usr/bin/env python3
"""make-scenarios.py: writes the replay scenarios of the live monitor (top, watch, topo).

Every scenario derives from one recording of the 2x H200 machine (BASE below: tests/scenarios/h200x2.json,
recorded with `gpuvet record --scrub`) and changes only what the case needs.
The JSON files are committed; run this again after changing it or BASE:

    python3 tests/scenarios/monitor/make-scenarios.py

Keys and value orders are those gpuvet records (docs/scenarios-monitor.md). Timelines are
[[t_seconds, [rc, values...]], ...], t counted from the fake NVML's start and scaled by
GPUVET_REPLAY_SPEED. Process-utilisation time stamps smaller than 1e12 in magnitude are ages
in microseconds (negative: in the past).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = "../h200x2.json"
GiB = 1024 ** 3
TOTAL = 150754820096
RESERVED = 644939776
BUS = ["00000000:00:06.0", "00000000:00:07.0"]
NONE = 4294967295


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def timeline(fn, end=180, step=1):
    return {"timeline": [[t, fn(t)] for t in range(0, end + 1, step)]}


def memory(used):
    return [0, TOTAL, RESERVED, TOTAL - RESERVED - used, used]


def topology(me, other):
    """What a GPU of the pair answers about NVLink, topology, P2P, GPM and counters."""
    d = {}
    for l in range(18):
        d["nvmlDeviceGetNvLinkRemotePciInfo(%d)" % l] = [0, BUS[other], 0, 0, 6 + other,
                                                          590680286, 415174878]
        d["nvmlDeviceGetNvLinkVersion(%d)" % l] = [0, 6]
        d["nvmlDeviceGetFieldValues(164,%d)" % l] = [0, 26562]
    if other > me:
        d["nvmlDeviceGetTopologyCommonAncestor(%d)" % other] = [0, 30]
    for c in range(4):
        d["nvmlDeviceGetP2PStatus(%d,%d)" % (other, c)] = [0, 0]
    d["nvmlDeviceGetMemoryAffinity"] = [0, [1]] + [[0]] * 15
    d["nvmlGpmQueryDeviceSupport"] = [0, 1]
    for m in (2, 3, 5, 10):
        d["nvmlGpmMetricsGet(%d)" % m] = [0, 0]
    d["nvmlDeviceGetProcessUtilization"] = [0]
    # PCIe byte counters and the energy counter move: rates come from them
    d["nvmlDeviceGetFieldValues(197)"] = timeline(lambda t: [0, 10 ** 9 + t * 1250000])
    d["nvmlDeviceGetFieldValues(198)"] = timeline(lambda t: [0, 2 * 10 ** 9 + t * 700000])
    d["nvmlDeviceGetTotalEnergyConsumption"] = timeline(lambda t: [0, 2560066 + t * 78922])
    return d


def proc_files(pid, comm, cmd, uid, ppid, start, utime, rss_pages, cgroup, children=(),
               threads=()):
    stat = ("%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %d 300 0 0 20 0 %d 0 %d 8000000000 %d "
            "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n") % (
        pid, comm, ppid, pid, pid, utime, 1 + len(threads), start, rss_pages)
    files = {
        "/proc/%d/stat" % pid: stat,
        "/proc/%d/status" % pid: "Name:\t%s\nUid:\t%d\t%d\t%d\t%d\nNSpid:\t%d\nVmRSS:\t%d kB\n" % (
            comm, uid, uid, uid, uid, pid, rss_pages * 4),
        # NUL-separated: recordings keep such files as hex
        "/proc/%d/cmdline" % pid: {"hex": ("\0".join(cmd.split(" ")) + "\0").encode().hex()},
        "/proc/%d/cgroup" % pid: cgroup,
        "/proc/%d/task" % pid: {"dir": [str(pid)] + [str(t) for t in threads]},
        "/proc/%d/task/%d/children" % (pid, pid): "".join("%d " % c for c in children),
        "/proc/%d/task/%d/stat" % (pid, pid): stat,
    }
    for t in threads:
        files["/proc/%d/task/%d/children" % (pid, t)] = ""
        files["/proc/%d/task/%d/stat" % (pid, t)] = stat
    return files


PASSWD = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n"
DOCKER = "0::/system.slice/docker-3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f.scope\n"


def main():
    # the pair with its NVLink, topology, GPM, per-process samples and moving counters
    write("x2.json", {
        "gpuvet_recording": 1, "derive": BASE,
        "description": "2x H200 (NV18), idle, with topology, GPM and counters",
        "nvml": {"devices": {"0": topology(0, 1), "1": topology(1, 0)}},
    })
    write("x1.json", {"gpuvet_recording": 1, "derive": BASE, "replicate_gpus": 1,
                      "description": "one H200"})
    write("x8.json", {"gpuvet_recording": 1, "derive": BASE, "replicate_gpus": 8,
                      "description": "eight H200 (copies of GPU 0)"})
    write("x16.json", {"gpuvet_recording": 1, "derive": BASE, "replicate_gpus": 16,
                       "description": "sixteen H200 (copies of GPU 0)"})
    # GPU 1 falls off the bus two seconds in
    write("lost.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "GPU 1 answers 'GPU is lost' (15) from t=2 s",
        "nvml": {"devices": {"1": {
            "nvmlDeviceGetUtilizationRates": {"timeline": [[0, [0, 35, 12]], [2, [15]]]},
        }}},
    })
    # GPU 0 capped by power and slowed by heat, clocks down
    write("throttle.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "GPU 0 at its power cap and in hardware thermal slowdown",
        "nvml": {"devices": {"0": {
            "nvmlDeviceGetUtilizationRates": [0, 100, 78],
            "nvmlDeviceGetClockInfo(0)": [0, 1275],
            "nvmlDeviceGetClockInfo(1)": [0, 1275],
            "nvmlDeviceGetCurrentClocksEventReasons": [0, 4 | 64],
            "nvmlDeviceGetTemperature(0)": [0, 87],
            "nvmlDeviceGetMarginTemperature": [0, 2],
            "nvmlDeviceGetFieldValues(82)": [0, 91],
            "nvmlDeviceGetPowerUsage": [0, 698500],
            "nvmlDeviceGetMemoryInfo_v2": memory(120 * GiB),
            "nvmlDeviceGetFieldValues(74)": timeline(lambda t: [0, t * 600000000]),
            "nvmlDeviceGetFieldValues(270)": timeline(lambda t: [0, t * 250000000]),
            "nvmlGpmMetricsGet(2)": [0, 96500],
            "nvmlGpmMetricsGet(3)": [0, 41250],
            "nvmlGpmMetricsGet(5)": [0, 72000],
            "nvmlGpmMetricsGet(10)": [0, 58000],
        }}},
    })
    # a training job on GPU 0 (four data-loader workers), a second job on GPU 1 from t=1 s
    files = {"/etc/passwd": PASSWD, "/proc/uptime": "10000.00 20000.00\n"}
    files.update(proc_files(4242, "python3", "python3 train.py --epochs 3", 1000, 1, 900000,
                            5000, 250000, DOCKER, children=(4250, 4251, 4252, 4253),
                            threads=(4243, 4244)))
    for w in (4250, 4251, 4252, 4253):
        files.update(proc_files(w, "pt_data_worker", "python3 train.py --epochs 3", 1000, 4242,
                                901000, 4000, 120000, DOCKER))
    files.update(proc_files(5151, "python3", "python3 serve.py --port 8000", 0, 1, 950000, 100,
                            50000, "0::/user.slice\n"))
    write("procs.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "python3 train.py on GPU 0 with 4 data-loader workers; serve.py on GPU 1 from t=1 s",
        "files": files,
        "nvml": {"devices": {
            "0": {
                "nvmlDeviceGetUtilizationRates": [0, 87, 41],
                "nvmlDeviceGetCurrentClocksEventReasons": [0, 0],
                "nvmlDeviceGetMemoryInfo_v2": memory(24696061952),
                "nvmlDeviceGetComputeRunningProcesses": [0, [4242, 24696061952, NONE, NONE]],
                "nvmlDeviceGetProcessUtilization": [
                    0,
                    [4242, -150000, 87, 41, 0, 0],
                    [4242, -100000, 37100, 0, 0, 0],      # out of range
                    [99999, -100000, 50, 0, 0, 0],        # not in the process list
                    [4242, 5000000000, 99, 0, 0, 0],      # in the future
                    [4242, -99000000000, 10, 0, 0, 0],    # long gone
                ],
                "nvmlGpmMetricsGet(2)": [0, 71250],
                "nvmlGpmMetricsGet(5)": [0, 38500],
                # NVML's own utilisation samples ([age us, value type, value]; type 1 is
                # unsigned int): every 20 ms, the kernel idle in one of five (advise reads
                # them for the GPUs the job holds)
                "nvmlDeviceGetSamples(1)": [0, [-90000, 1, 100], [-70000, 1, 100],
                                            [-50000, 1, 0], [-30000, 1, 100],
                                            [-10000, 1, 100]],
            },
            "1": {
                "nvmlDeviceGetComputeRunningProcesses": {"timeline": [
                    [0, [0]], [1, [0, [5151, 21474836480, NONE, NONE]]]]},
                "nvmlDeviceGetProcessUtilization": [0, [5151, -100000, 12, 3, 0, 0]],
            },
        }},
    })
    # two training jobs of alice (uid 1000, advise run as alice): procs.json's on GPU 0 and a
    # smaller one with two workers on GPU 1, started from the same shell (a session leader);
    # root's serve.py on GPU 1 too, not hers
    tfiles = {}
    tfiles.update(proc_files(3000, "bash", "-bash", 1000, 1, 800000, 10, 1000, DOCKER,
                             children=(6161,)))
    tfiles.update(proc_files(6161, "python3", "python3 finetune.py --lr 1e-4", 1000, 3000,
                             960000, 3000, 200000, DOCKER, children=(6170, 6171)))
    for w in (6170, 6171):
        tfiles.update(proc_files(w, "pt_data_worker", "python3 finetune.py --lr 1e-4", 1000,
                                 6161, 961000, 2000, 100000, DOCKER))
    write("twojobs.json", {
        "gpuvet_recording": 1, "derive": "procs.json",
        "description": "alice's train.py on GPU 0 and finetune.py on GPU 1, root's serve.py on GPU 1",
        "identity": {"uid": 1000, "gid": 1000, "groups": []},
        "files": tfiles,
        "nvml": {"devices": {"1": {
            "nvmlDeviceGetComputeRunningProcesses": [0, [6161, 10 * GiB, NONE, NONE],
                                                     [5151, 20 * GiB, NONE, NONE]],
            "nvmlDeviceGetProcessUtilization": [0, [6161, -100000, 60, 10, 0, 0],
                                                [5151, -100000, 12, 3, 0, 0]],
            "nvmlDeviceGetUtilizationRates": [0, 72, 13],
        }}},
    })
    # procs.json's job (alice's) advised on by bob (uid 1001, not root): the kernel refuses
    # another user's /proc/PID/io and maps
    ofiles = {"/etc/passwd": PASSWD + "bob:x:1001:1001::/home/bob:/bin/bash\n"}
    for pid in (4242, 4250, 4251, 4252, 4253):
        ofiles["/proc/%d/io" % pid] = {"error": "EACCES"}
        ofiles["/proc/%d/maps" % pid] = {"error": "EACCES"}
    write("otheruser.json", {
        "gpuvet_recording": 1, "derive": "procs.json",
        "description": "procs.json's job of alice, advise run by bob: /proc/PID/io and maps refused",
        "identity": {"uid": 1001, "gid": 1001, "groups": []},
        "files": ofiles,
    })
    # the training job of procs.json on a GPU in MIG mode: NVML has no utilisation for it
    # (Not Supported, 3), nor its finer samples or per-process SM %; GPM still answers
    write("migjob.json", {
        "gpuvet_recording": 1, "derive": "procs.json",
        "description": "procs.json's training job on GPU 0 in MIG mode: utilisation n/a, GPM read",
        "nvml": {"devices": {"0": {
            "nvmlDeviceGetMigMode": [0, 1, 1],
            "nvmlDeviceGetMaxMigDeviceCount": [0, 7],
            "nvmlDeviceGetUtilizationRates": [3],
            "nvmlDeviceGetSamples(1)": [3],
            "nvmlDeviceGetComputeRunningProcesses": [0, [4242, 24696061952, 1, 0]],
        }}},
    })
    # more processes than NVML's first buffer holds, and more samples than one slot each
    rows = [[7001 + i, GiB, NONE, NONE] for i in range(20)]
    samples = [[7001 + i % 20, -50000 - 1000 * i, 10 + i % 20, 5, 0, 0] for i in range(100)]
    write("manyprocs.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "20 processes on GPU 0 (not visible in /proc), 100 utilisation samples",
        "nvml": {"devices": {"0": {
            "nvmlDeviceGetComputeRunningProcesses": [0] + rows,
            "nvmlDeviceGetProcessUtilization": [0] + samples,
        }}},
    })
    # gpuvet inside a container's PID namespace: NVML's PID 812345 is the host's; our
    # process 42 holds /dev/nvidia0. NVML's PID 43 on GPU 1 collides with a worker of ours.
    cfiles = {"/etc/passwd": PASSWD, "/proc/uptime": "10000.00 20000.00\n",
              "/proc/self/ns/pid": {"link": "pid:[4026532999]"},
              "/proc/42/fd/3": {"link": "/dev/nvidiactl"},
              "/proc/42/fd/4": {"link": "/dev/nvidia0"},
              "/proc/43/fd/4": {"link": "/dev/nvidia0"},
              "/proc/1/fd/0": {"link": "/dev/null"}}
    cfiles.update(proc_files(1, "bash", "bash", 0, 0, 100, 10, 1000, "0::/\n"))
    cfiles.update(proc_files(42, "python3", "python3 train.py", 0, 1, 900000, 5000, 250000,
                             "0::/\n", children=(43,)))
    cfiles.update(proc_files(43, "pt_data_worker", "python3 train.py", 0, 42, 900100, 4000,
                             120000, "0::/\n"))
    write("container.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "gpuvet in a container without --pid=host",
        "files": cfiles,
        "nvml": {"devices": {
            "0": {"nvmlDeviceGetComputeRunningProcesses": [0, [812345, 8 * GiB, NONE, NONE]]},
            "1": {"nvmlDeviceGetComputeRunningProcesses": [0, [43, 2 * GiB, NONE, NONE]]},
        }},
    })
    # a GPU whose power query never returns
    write("hang.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "GPU 1 hangs in nvmlDeviceGetPowerUsage from t=1 s",
        "nvml": {"devices": {"1": {
            "nvmlDeviceGetPowerUsage": {"timeline": [[0, [0, 78000]], [1, {"hang": True}]]},
        }}},
    })
    # MIG on GPU 0 with three instances of seven; GPU 1 turns MIG on at its next reset
    write("mig.json", {
        "gpuvet_recording": 1, "derive": "x2.json",
        "description": "GPU 0 in MIG mode with 3 instances; GPU 1 has MIG pending on",
        "nvml": {"devices": {
            "0": dict({"nvmlDeviceGetMigMode": [0, 1, 1],
                       "nvmlDeviceGetMaxMigDeviceCount": [0, 7]},
                      **{"nvmlDeviceGetMigDeviceHandleByIndex(%d)" % i: [0] for i in range(3)}),
            "1": {"nvmlDeviceGetMigMode": [0, 0, 1]},
        }},
    })


if __name__ == "__main__":
    main()
