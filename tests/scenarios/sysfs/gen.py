#!/usr/bin/env python3
"""gen.py: writes the constructed AMD machines of this folder (amd-*.json) as gpuvet recordings.

The files are the amdgpu driver's documented sysfs and hwmon files (Documentation/gpu/amdgpu/
thermal.rst, driver-misc.rst, ras.rst; the PCIe link files of sysfs-bus-pci) and the KFD
topology, laid out the way `gpuvet record` stores a machine: every path resolved, the links of
/sys/class/drm and /sys/class/kfd as `link` entries (docs/scenarios.md). There is no NVIDIA
library on these machines, so `libraries` holds the loader's error.

Run it from anywhere: python3 tests/scenarios/sysfs/gen.py; the JSON it writes is committed.
"""
import json
import os
import posixpath

HERE = os.path.dirname(os.path.abspath(__file__))
NO_NVML = "libnvidia-ml.so.1: cannot open shared object file: No such file or directory"
NO_CUDA = "libcuda.so.1: cannot open shared object file: No such file or directory"


def link(files, path, target):
    files[path] = {"link": posixpath.relpath(target, posixpath.dirname(path))}


def listing(files, path, names):
    files[path] = {"dir": sorted(names)}


def gpu(files, card, pci, ids, dev, hwmon, ras=None, render=None):
    """One amdgpu card: the class link, its device folder (pci: the resolved path), the files
    of dev (name -> content or {"error": ...}), its hwmon folder and RAS counters."""
    bdf = posixpath.basename(pci)
    # on the PCI bus too, where doctor looks first
    bus = files.setdefault("/sys/bus/pci/devices", {"dir": []})
    bus["dir"] = sorted(set(bus["dir"]) | {bdf})
    link(files, "/sys/bus/pci/devices/" + bdf, pci)
    link(files, "/sys/class/drm/" + card, pci + "/drm/" + card)
    link(files, pci + "/drm/" + card + "/device", pci)
    listing(files, pci + "/drm", [card] + ([render] if render else []))
    if render:
        # the node udev made: group render (109 here), which the recording user is in
        files["/dev/dri/" + render] = {"stat": {"type": "c", "mode": "0660", "uid": 0, "gid": 109,
                                                "major": 226, "minor": int(render[7:])}}
    link(files, pci + "/driver", "/sys/bus/pci/drivers/" + ids.get("driver", "amdgpu"))
    for k in ("vendor", "device", "revision", "subsystem_vendor", "subsystem_device", "class"):
        if k in ids:
            files[pci + "/" + k] = ids[k] + "\n"
    for k, v in dev.items():
        files[pci + "/" + k] = v if isinstance(v, dict) else v + "\n"
    if hwmon:
        name, entries = hwmon
        listing(files, pci + "/hwmon", [name])
        files[pci + "/hwmon/" + name + "/name"] = "amdgpu\n"
        for k, v in entries.items():
            files[pci + "/hwmon/" + name + "/" + k] = v if isinstance(v, dict) else v + "\n"
    if ras:
        listing(files, pci + "/ras", list(ras))
        for k, v in ras.items():
            files[pci + "/ras/" + k] = v
    return bdf


def kfd(files, nodes):
    """The KFD topology: nodes[i] is the text of node i's properties (node 0 the CPU)."""
    link(files, "/sys/class/kfd/kfd", "/sys/devices/virtual/kfd/kfd")
    files["/dev/kfd"] = {"stat": {"type": "c", "mode": "0660", "uid": 0, "gid": 109,
                                  "major": 235, "minor": 0}}
    base = "/sys/devices/virtual/kfd/kfd/topology/nodes"
    listing(files, base, [str(i) for i in range(len(nodes))])
    for i, text in enumerate(nodes):
        files["%s/%d/properties" % (base, i)] = text


def props(gfx, vendor, device, location, domain, render):
    return ("cpu_cores_count 0\nsimd_count 1216\nmem_banks_count 1\ngfx_target_version %d\n"
            "vendor_id %d\ndevice_id %d\nlocation_id %d\ndomain %d\ndrm_render_minor %d\n"
            % (gfx, vendor, device, location, domain, render))


CPU_NODE = ("cpu_cores_count 96\nsimd_count 0\nmem_banks_count 1\ngfx_target_version 0\n"
            "vendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\ndrm_render_minor 0\n")


def procs(files, plist):
    """Processes holding DRM files: /proc/PID/fd links to the render node and the fdinfo the
    driver writes for them (Documentation/gpu/drm-usage-stats.rst), with comm, cmdline and
    status for the process table."""
    listing(files, "/proc", [str(p["pid"]) for p in plist] + ["self"])
    for p in plist:
        base = "/proc/%d" % p["pid"]
        files[base + "/comm"] = p["comm"] + "\n"
        files[base + "/cmdline"] = {"hex": ("\0".join(p["argv"]) + "\0").encode().hex()}
        files[base + "/status"] = ("Name:\t%s\nState:\tS (sleeping)\nPid:\t%d\nPPid:\t1\n"
                                   "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"
                                   % (p["comm"], p["pid"]))
        # proc(5) stat: state, parent, the times in clock ticks, start time, RSS in pages
        files[base + "/stat"] = ("%d (%s) S 1 %d %d 0 -1 4194304 51234 0 12 0 %d %d 0 0 20 0 %d 0 "
                                 "123456 8589934592 262144 18446744073709551615 0 0 0 0 0 0 0 "
                                 "16781312 1 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                                 % (p["pid"], p["comm"], p["pid"], p["pid"], p["utime"],
                                    p["stime"], p["threads"]))
        listing(files, base + "/fd", ["0", "1", "2"] + [str(fd) for fd in p["fds"]])
        for fd, (node, info) in p["fds"].items():
            files["%s/fd/%d" % (base, fd)] = {"link": node}
            files["%s/fdinfo/%d" % (base, fd)] = info
        for fd in ("0", "1", "2"):
            files["%s/fd/%s" % (base, fd)] = {"link": "/dev/pts/0"}


def amd_fdinfo(pdev, client, vram_kib, gtt_kib, gfx_ns):
    return ("pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1121\ndrm-driver:\tamdgpu\n"
            "drm-client-id:\t%d\ndrm-pdev:\t%s\npasid:\t32770\n"
            "drm-memory-vram:\t%d KiB\ndrm-memory-gtt: \t%d KiB\ndrm-memory-cpu: \t0 KiB\n"
            "drm-engine-gfx:\t%d ns\ndrm-engine-compute:\t0 ns\n"
            % (client, pdev, vram_kib, gtt_kib, gfx_ns))


def recording(description, files):
    return {
        "gpuvet_recording": 1,
        "gpuvet_version": "constructed",
        "created": "2026-01-01T00:00:00Z",
        "description": description,
        "env": {},
        "uname": {"sysname": "Linux", "nodename": "host1", "release": "6.8.0-87-generic",
                  "version": "#88-Ubuntu SMP PREEMPT_DYNAMIC", "machine": "x86_64"},
        "identity": {"uid": 1000, "gid": 1000, "groups": [44, 109]},
        "libraries": {"nvml": {"error": NO_NVML, "path": None, "version": None},
                      "cuda": {"error": NO_CUDA, "path": None, "version": None}},
        "files": files,
    }


def mi300x():
    files = {}
    mi300_ids = {"vendor": "0x1002", "device": "0x74a1", "revision": "0x00",
                 "subsystem_vendor": "0x1002", "subsystem_device": "0x74a1",
                 "class": "0x120000"}
    pcis = ["/sys/devices/pci0000:00/0000:00:01.1/0000:0c:00.0",
            "/sys/devices/pci0000:20/0000:20:01.1/0000:22:00.0"]
    per_gpu = [
        {"uid": "a1b2c3d4e5f60718", "serial": "692312000101", "used": 1234567168,
         "busy": "37", "mbusy": "12", "junction": "45000", "mem": "38000", "power": "152000000",
         "replays": "0", "umc": "ue: 0\nce: 2\nde: 0\n", "gfx": "ue: 0\nce: 1\n",
         "numa": "0", "cpus": "0-47,96-143", "energy": "123456789000"},
        {"uid": "b2c3d4e5f6071829", "serial": "692312000102", "used": 2147483648,
         "busy": "0", "mbusy": "0", "junction": "41000", "mem": "36000", "power": "131000000",
         "replays": "3", "umc": "ue: 1\nce: 5\nde: 0\n", "gfx": "ue: 0\nce: 0\n",
         "numa": "1", "cpus": "48-95,144-191", "energy": "98765432000"},
    ]
    for i, (pci, g) in enumerate(zip(pcis, per_gpu)):
        dev = {
            "product_name": "AMD Instinct MI300X OAM",
            "unique_id": g["uid"], "serial_number": g["serial"],
            "vbios_version": "113-M3000100-102",
            "mem_info_vram_total": "206158430208", "mem_info_vram_used": str(g["used"]),
            "mem_info_gtt_total": "1621404278784", "mem_info_gtt_used": "20971520",
            "gpu_busy_percent": g["busy"], "mem_busy_percent": g["mbusy"],
            "pp_dpm_sclk": "0: 500Mhz\n1: 1420Mhz *\n2: 2100Mhz",
            "pp_dpm_mclk": "0: 900Mhz\n1: 1100Mhz\n2: 1200Mhz\n3: 1300Mhz *",
            "current_link_speed": "32.0 GT/s PCIe", "current_link_width": "16",
            "max_link_speed": "32.0 GT/s PCIe", "max_link_width": "16",
            "numa_node": g["numa"], "local_cpulist": g["cpus"],
            "pcie_replay_count": g["replays"],
        }
        # MI300 (SMU 13.0.6) has no edge sensor: temp1 is absent, the junction is temp2
        hwmon = ("hwmon%d" % (2 + i), {
            "temp2_label": "junction", "temp2_input": g["junction"], "temp2_crit": "100000",
            "temp2_emergency": "105000",
            "temp3_label": "mem", "temp3_input": g["mem"], "temp3_crit": "95000",
            "temp3_emergency": "100000",
            "power1_input": g["power"], "power1_cap": "750000000", "power1_cap_max": "750000000",
            "power1_cap_min": "0", "power1_cap_default": "750000000",
            "energy1_input": g["energy"],
        })
        ras = {"features": "feature mask: 0x3fbfff\n", "umc_err_count": g["umc"],
               "gfx_err_count": g["gfx"], "sdma_err_count": "ue: 0\nce: 0\n",
               "mmhub_err_count": "ue: 0\nce: 0\n", "xgmi_wafl_err_count": "ue: 0\nce: 0\n",
               "gpu_vram_bad_pages": ""}
        gpu(files, "card%d" % (i + 1), pci, mi300_ids, dev, hwmon, ras, "renderD%d" % (128 + i))
    listing(files, "/sys/class/drm", ["card1", "card2", "renderD128", "renderD129", "version"])
    files["/sys/class/drm/version"] = "drm 1.1.0 20060810\n"
    kfd(files, [CPU_NODE,
                props(90402, 4098, 0x74a1, 0x0c00, 0, 128),
                props(90402, 4098, 0x74a1, 0x2200, 0, 129)])
    # one training process on both GPUs (a client each), one on GPU 0 alone
    procs(files, [
        {"pid": 4242, "comm": "python3", "argv": ["python3", "train.py"], "utime": 91200,
         "stime": 4100, "threads": 24,
         "fds": {5: ("/dev/dri/renderD128", amd_fdinfo("0000:0c:00.0", 7, 1048576, 2048, 91234567890)),
                 6: ("/dev/dri/renderD129", amd_fdinfo("0000:22:00.0", 8, 2097152, 2048, 1234567))}},
        {"pid": 5151, "comm": "rocm-smi", "argv": ["python3", "/opt/rocm/bin/rocm-smi"],
         "utime": 30, "stime": 12, "threads": 1,
         "fds": {3: ("/dev/dri/renderD128", amd_fdinfo("0000:0c:00.0", 9, 4096, 0, 0))}},
    ])
    return recording("constructed: 2 AMD Instinct MI300X (amdgpu, KFD gfx942), no edge sensor "
                     "(temperature from the junction), RAS counters with corrected errors on "
                     "both and one uncorrected UMC error on GPU 1; no NVIDIA library", files)


def rx7900xtx():
    files = {}
    pci = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0"
    ids = {"vendor": "0x1002", "device": "0x744c", "revision": "0xc8",
           "subsystem_vendor": "0x1da2", "subsystem_device": "0x471d", "class": "0x030000"}
    # a consumer board: no product_name, unique_id, serial_number or RAS
    dev = {
        "vbios_version": "113-D70201-X4",
        "mem_info_vram_total": "25753026560", "mem_info_vram_used": "1073741824",
        "mem_info_gtt_total": "33454030848", "mem_info_gtt_used": "52428800",
        "gpu_busy_percent": "98", "mem_busy_percent": "41",
        "pp_dpm_sclk": "0: 500Mhz\n1: 2235Mhz *\n2: 2500Mhz",
        "pp_dpm_mclk": "0: 96Mhz\n1: 456Mhz\n2: 772Mhz\n3: 1250Mhz *",
        "current_link_speed": "16.0 GT/s PCIe", "current_link_width": "16",
        "max_link_speed": "16.0 GT/s PCIe", "max_link_width": "16",
        "numa_node": "-1", "local_cpulist": "0-15", "pcie_replay_count": "0",
    }
    hwmon = ("hwmon4", {
        "temp1_label": "edge", "temp1_input": "52000", "temp1_crit": "100000",
        "temp1_emergency": "105000",
        "temp2_label": "junction", "temp2_input": "68000", "temp2_crit": "110000",
        "temp2_emergency": "115000",
        "temp3_label": "mem", "temp3_input": "60000", "temp3_crit": "108000",
        "temp3_emergency": "113000",
        "power1_average": "78000000", "power1_cap": "339000000", "power1_cap_max": "402000000",
        "power1_cap_min": "305000000", "power1_cap_default": "339000000",
        "pwm1": "76", "pwm1_max": "255", "pwm1_min": "0", "pwm1_enable": "2",
        "fan1_input": "1100", "fan1_min": "0", "fan1_max": "3300",
        "freq1_label": "sclk", "freq1_input": "2235000000",
        "freq2_label": "mclk", "freq2_input": "1250000000", "in0_input": "850",
    })
    gpu(files, "card0", pci, ids, dev, hwmon, None, "renderD128")
    files[pci + "/drm/card0-DP-1"] = {"dir": ["status"]}
    listing(files, "/sys/class/drm", ["card0", "card0-DP-1", "renderD128", "version"])
    files["/sys/class/drm/version"] = "drm 1.1.0 20060810\n"
    kfd(files, [CPU_NODE, props(110000, 4098, 0x744c, 0x0300, 0, 128)])
    return recording("constructed: 1 AMD Radeon RX 7900 XTX (amdgpu, KFD gfx1100) with a fan and "
                     "an edge sensor, no RAS, no product name (named from its device id and "
                     "revision); no NVIDIA library", files)


def faults():
    files = {}
    eacces = {"error": "EACCES"}
    pci = "/sys/devices/pci0000:00/0000:00:03.1/0000:0a:00.0"
    ids = {"vendor": "0x1002", "device": "0x73df", "revision": "0xc1",
           "subsystem_vendor": "0x1002", "subsystem_device": "0x0e36", "class": "0x030000"}
    dev = {
        "vbios_version": "113-D5121100-101",
        "mem_info_vram_total": "12868124672", "mem_info_vram_used": "536870912",
        "mem_info_gtt_total": "16727015424", "mem_info_gtt_used": "10485760",
        "gpu_busy_percent": {"error": "ENOENT"}, "mem_busy_percent": "3",
        "pp_dpm_sclk": "0: 500Mhz *\n1: 2321Mhz\n2: 2581Mhz",
        "pp_dpm_mclk": eacces,
        "current_link_speed": "Unknown", "current_link_width": "16",
        "max_link_speed": "16.0 GT/s PCIe", "max_link_width": "16",
        "numa_node": "-1", "local_cpulist": "0-7",
    }
    # a hardened host: hwmon readable by root only
    hwmon = ("hwmon1", {k: eacces for k in (
        "temp1_label", "temp1_input", "temp1_crit", "temp1_emergency",
        "temp2_label", "temp2_input", "temp2_crit", "temp2_emergency",
        "temp3_label", "temp3_input", "temp3_crit", "temp3_emergency",
        "power1_average", "power1_cap", "power1_cap_max", "power1_cap_min",
        "power1_cap_default", "pwm1", "pwm1_max", "fan1_input", "fan1_max",
        "freq1_input", "freq2_input", "energy1_input")})
    gpu(files, "card1", pci, ids, dev, hwmon, None, "renderD128")
    # the BMC's display controller, bound to another DRM driver: not a backend's GPU
    bmc = "/sys/devices/pci0000:00/0000:00:1c.0/0000:05:00.0/0000:06:00.0"
    gpu(files, "card0", bmc, {"vendor": "0x1a03", "device": "0x2000", "driver": "ast"}, {}, None)
    listing(files, "/sys/class/drm", ["card0", "card1", "renderD128", "version"])
    files["/sys/class/drm/version"] = "drm 1.1.0 20060810\n"
    return recording("constructed: an AMD Radeon RX 6700 XT (a device id gpuvet has no name for) "
                     "whose hwmon files root alone may read (EACCES), without gpu_busy_percent, "
                     "pp_dpm_mclk unreadable, current_link_speed 'Unknown' and no KFD; beside it "
                     "the BMC's display controller on the ast driver", files)


def mixed():
    """The 1x H200 recording with the Radeon of rx7900xtx() added: NVIDIA's GPU through NVML and
    AMD's through sysfs on one machine. A derived scenario (docs/scenarios.md): only the files
    that differ; the PCI bus listing is the union of both."""
    rx = rx7900xtx()["files"]
    with open(os.path.join(HERE, "..", "h200x1.json")) as f:
        base = json.load(f)["files"]
    files = {k: v for k, v in rx.items() if not k.startswith("/proc")}
    bus = base.get("/sys/bus/pci/devices", {"dir": []})["dir"]
    files["/sys/bus/pci/devices"] = {"dir": sorted(set(bus) | set(rx["/sys/bus/pci/devices"]["dir"]))}
    return {"gpuvet_recording": 1, "derive": "../h200x1.json",
            "description": "constructed: the 1x H200 machine (NVML) with an AMD Radeon RX 7900 XTX "
                           "added (sysfs): both kinds of GPU on one machine",
            "files": files}


def main():
    for name, rec in (("amd-mi300x.json", mi300x()), ("amd-rx7900xtx.json", rx7900xtx()),
                      ("amd-faults.json", faults()), ("mixed-h200-rx7900xtx.json", mixed())):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(rec, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
