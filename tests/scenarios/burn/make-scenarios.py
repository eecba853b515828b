#!/usr/bin/env python3
"""make-scenarios.py: writes the replay scenarios of `gpuvet burn` (tests/cli/burn_telemetry.sh).

burn computes on the fake GPUs (tests/bench/fakegpu) and reads its telemetry from one of these
replays. Each derives from the recording of the 2x H200 machine (../h200x2.json) and changes
what the case needs; the PCI bus ids are the fake GPUs' (0000:10:00.0, 0000:11:00.0), since
burn maps CUDA devices to NVML ones by bus id. healthy.json puts both GPUs under load (full
clock, power near the limit, cool); every other case derives from it and makes one thing go
wrong mid-run, at t = 2 s of the fake NVML's clock (its start is burn's probe). The JSON files
are committed; run this again after changing it:

    python3 tests/scenarios/burn/make-scenarios.py

Keys and value orders are those gpuvet records (docs/scenarios-monitor.md).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BUS = ["00000000:10:00.0", "00000000:11:00.0"]
AT = 2  # seconds into the fake NVML's clock when a fault starts
HW_THERMAL, SW_THERMAL = 64, 32


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def step(before, after, at=AT):
    """A value that changes once, at `at` seconds."""
    return {"timeline": [[0, before], [at, after]]}


def loaded(gpu, sm_mhz=1980, power_mw=660000, temp_c=62):
    """A GPU under burn's load, with no reason to slow down."""
    return {
        "nvmlDeviceGetPciInfo": [0, BUS[gpu], 0, 16 + gpu, 0, 590680286, 415174878],
        "nvmlDeviceGetUtilizationRates": [0, 100, 60],
        "nvmlDeviceGetClockInfo(0)": [0, sm_mhz],
        "nvmlDeviceGetClockInfo(1)": [0, sm_mhz],
        "nvmlDeviceGetCurrentClocksEventReasons": [0, 0],
        "nvmlDeviceGetPowerUsage": [0, power_mw],
        "nvmlDeviceGetTemperature(0)": [0, temp_c],
        "nvmlDeviceGetMarginTemperature": [0, 87 - temp_c],
    }


def case(name, description, devices):
    write(name, {"gpuvet_recording": 1, "derive": "healthy.json", "description": description,
                 "nvml": {"devices": devices}})


def main():
    write("healthy.json", {
        "gpuvet_recording": 1, "derive": "../h200x2.json",
        "description": "2x H200 under burn's load at the fake GPUs' bus ids: both pass",
        "nvml": {"devices": {"0": loaded(0), "1": loaded(1)}},
    })
    case("thermal.json", "GPU 1 enters thermal slowdown (SW and HW) at 2 s, hot, clock down", {
        "1": {
            "nvmlDeviceGetCurrentClocksEventReasons": step([0, 0], [0, HW_THERMAL | SW_THERMAL]),
            "nvmlDeviceGetTemperature(0)": step([0, 62], [0, 88]),
            "nvmlDeviceGetMarginTemperature": step([0, 25], [0, 0]),
            "nvmlDeviceGetClockInfo(1)": step([0, 1980], [0, 1500]),
        }})
    case("ecc.json", "GPU 0: volatile uncorrected ECC errors rise from 0 to 3 at 2 s", {
        "0": {"nvmlDeviceGetTotalEccErrors(1,0)": step([0, 0], [0, 3])}})
    case("remap.json", "GPU 1: a row remap becomes pending at 2 s", {
        "1": {"nvmlDeviceGetRemappedRows": step([0, 0, 0, 0, 0], [0, 0, 1, 1, 0])}})
    case("pcie.json", "GPU 0: PCIe replays grow by 100 a second from 0 s", {
        "0": {"nvmlDeviceGetPcieReplayCounter": {
            "timeline": [[t, [0, 1 + 100 * t]] for t in range(0, 61)]}}})
    case("slow.json", "GPU 1 runs at 1400 MHz, 450 W and 50 C while GPU 0 runs at 1980 MHz", {
        "1": loaded(1, sm_mhz=1400, power_mw=450000, temp_c=50)})


main()
