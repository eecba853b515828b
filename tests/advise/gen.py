#!/usr/bin/env python3
"""tests/advise/gen.py: writes the hand-made advise timelines (docs/cmd/advise.md, "The saved
timeline") that tests/cli/advise.sh diagnoses with `gpuvet advise --from`. Each case is a small
story told in ticks; run `python3 tests/advise/gen.py OUTDIR` to write them."""
import json
import sys

HOST = ["tree_cpu_pct", "main_cpu_pct", "main_thread_max_pct", "workers", "workers_cpu_pct",
        "workers_busy", "tree_blocked_io", "read_bytes_s", "cpu_pressure_pct", "io_pressure_pct",
        "cg_throttled_pct", "host_busy_pct"]
GPU = ["util_pct", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_active_pct",
       "pcie_rx_bytes_s", "pcie_tx_bytes_s", "nvlink_rx_bytes_s", "nvlink_tx_bytes_s", "power_mw",
       "sm_mhz", "clock_events", "temp_c", "mem_used_bytes", "job_mem_bytes", "job_sm_pct"]


def gpu_facts(i, holds):
    return {"index": i, "name": "NVIDIA H200", "bus_id": "00000000:%02X:00.0" % (0x18 + i),
            "uuid": "GPU-%08d-0000-0000-0000-000000000000" % i,
            "mem_total_bytes": 150754820096, "power_limit_mw": 700000, "sm_max_mhz": 1980,
            "pcie_gen": 5, "pcie_width": 16, "pcie_max_gen": 5, "pcie_max_width": 16,
            "pcie_peak_bytes_s": 50416000000, "job_holds": holds, "gpm": True}


def timeline(cmd, ngpus, nticks, host_fn, gpu_fn, ncpus=16, quota=None):
    ticks = []
    for i in range(nticks):
        h = dict.fromkeys(HOST)
        h.update(host_fn(i))
        gs = []
        for g in range(ngpus):
            d = dict.fromkeys(GPU)
            d.update(gpu_fn(i, g))
            gs.append(d)
        ticks.append({"t_ns": i * 100000000, "host": h, "gpus": gs})
    return {"gpuvet_advise_timeline": 1,
            "job": {"pid": 4242, "cmd": cmd, "framework": "pytorch", "pids": [4242],
                    "ended": False},
            "machine": {"ncpus": ncpus, "cg_quota_cores": quota, "tick_ns": 100000000},
            "gpus": [gpu_facts(g, g == 0) for g in range(ngpus)],
            "ticks": ticks, "util_samples": [],
            "cost": {"self_cpu_ns": 30000000, "self_wall_ns": 3000000000}}


def input_bound():
    # the GPU idles 6 ticks in 10 while the main process holds one core and has no workers
    def host(i):
        return {"tree_cpu_pct": 100, "main_cpu_pct": 100, "main_thread_max_pct": 99,
                "workers": 0, "workers_cpu_pct": 0, "workers_busy": 0, "tree_blocked_io": 0,
                "host_busy_pct": 110} if i else {"workers": 0}

    def gpu(i, g):
        busy = g == 0 and i % 10 >= 6
        return {"util_pct": 95 if busy else 0, "sm_active_pct": 80 if busy else 0,
                "power_mw": 500000 if busy else 120000, "sm_mhz": 1980, "temp_c": 45,
                "mem_used_bytes": 20 << 30 if g == 0 else 0,
                "job_mem_bytes": 20 << 30 if g == 0 else 0, "job_sm_pct": 60 if busy else 0}
    return timeline("python3 train.py --epochs 3", 1, 30, host, gpu)


def busy():
    # a healthy job: the GPU always busy, four workers
    def host(i):
        return {"tree_cpu_pct": 260, "main_cpu_pct": 60, "main_thread_max_pct": 55,
                "workers": 4, "workers_cpu_pct": 200, "workers_busy": 2} if i else {"workers": 4}

    def gpu(i, g):
        return {"util_pct": 99, "sm_active_pct": 90, "sm_occupancy_pct": 45,
                "power_mw": 650000, "sm_mhz": 1980, "clock_events": 0, "temp_c": 60,
                "mem_used_bytes": 100 << 30, "job_mem_bytes": 100 << 30, "job_sm_pct": 99,
                "pcie_rx_bytes_s": 1000000000}
    return timeline("python3 train.py --workers 4", 2, 20, host, gpu)


def unread():
    # nothing could be read but the ticks themselves: every reading null
    return timeline("python3 train.py", 1, 5, lambda i: {}, lambda i, g: {})


def ended(nticks):
    # busy() whose job exited after nticks (the sampler keeps the ticks it was alive in)
    def make():
        t = busy()
        t["ticks"] = t["ticks"][:nticks] if nticks <= 20 else [
            dict(t["ticks"][i % 20], t_ns=i * 100000000) for i in range(nticks)]
        t["job"]["ended"] = True
        return t
    return make


CASES = {"input_bound.json": input_bound, "busy.json": busy, "unread.json": unread,
         "ended_short.json": ended(8), "ended_long.json": ended(40)}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, fn in CASES.items():
        with open("%s/%s" % (out, name), "w") as f:
            json.dump(fn(), f, indent=1)
            f.write("\n")
