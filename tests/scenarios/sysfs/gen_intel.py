#!/usr/bin/env python3
"""gen_intel.py: writes the constructed Intel machines of tests/scenarios/sysfs/ (recording format
1, docs/scenarios.md): every path stored resolved, /sys/class/drm/cardN as links into the PCI
device folders, the drivers' sysfs files where i915 and xe keep them (gpu/intel.c lists them).

  intel-arc-a770.json   an Arc A770 on i915 (kernel 6.8: no hwmon temperature or fan) behind the
                        card's own PCIe switch (8086:4fa1 upstream, 8086:4fa4 downstream), with
                        the processor's integrated GPU (8086:a780, i915) as card0
  intel-max1550.json    a Data Center GPU Max 1550 on xe, two tiles of 64 GiB with one GT each

Run from the repository root: python3 tests/scenarios/sysfs/gen_intel.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

NO_NVIDIA = {
    "nvml": {"error": "libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
             "path": None, "version": None},
    "cuda": {"error": "libcuda.so.1: cannot open shared object file: No such file or directory",
             "path": None, "version": None},
}


class Tree:
    def __init__(self):
        self.files = {}

    def file(self, path, text):
        self.files[path] = text if text.endswith("\n") else text + "\n"

    def link(self, path, target):
        self.files[path] = {"link": target}

    def dir(self, path, names):
        self.files[path] = {"dir": sorted(names)}

    def pci(self, path, vendor, device, cls, link=None, extra=None):
        """a PCI function's folder: ids, class, link (speed, width) current and max"""
        self.file(path + "/vendor", "0x%04x" % vendor)
        self.file(path + "/device", "0x%04x" % device)
        self.file(path + "/class", "0x%06x" % cls)
        if link:
            cur, mx = link
            self.file(path + "/current_link_speed", cur[0])
            self.file(path + "/current_link_width", str(cur[1]))
            self.file(path + "/max_link_speed", mx[0])
            self.file(path + "/max_link_width", str(mx[1]))
        for k, v in (extra or {}).items():
            self.file(path + "/" + k, v)

    def card(self, n, dev, driver, render):
        """cardN and its render node under the PCI device folder dev"""
        pci_rel = "../../devices" + dev[len("/sys/devices"):]
        self.link("/sys/class/drm/card%d" % n, "%s/drm/card%d" % (pci_rel, n))
        self.link("/sys/class/drm/renderD%d" % render, "%s/drm/renderD%d" % (pci_rel, render))
        self.link("%s/drm/card%d/device" % (dev, n), "../../../" + os.path.basename(dev))
        self.link(dev + "/driver", "../../../bus/pci/drivers/" + driver)
        self.dir(dev + "/drm", ["card%d" % n, "renderD%d" % render])
        self.file("%s/drm/card%d/dev" % (dev, n), "226:%d" % n)
        # the node udev made (mode 0666 here: every user may open it)
        self.files["/dev/dri/renderD%d" % render] = {"stat": {
            "type": "c", "mode": "0666", "uid": 0, "gid": 109, "major": 226, "minor": render}}
        # on the PCI bus too, where doctor looks first
        bdf = os.path.basename(dev)
        bus = self.files.setdefault("/sys/bus/pci/devices", {"dir": []})
        bus["dir"] = sorted(set(bus["dir"]) | {bdf})
        self.link("/sys/bus/pci/devices/" + bdf, "../../../devices" + dev[len("/sys/devices"):])

    def proc(self, pid, comm, argv, fds):
        """a process holding DRM files: fd links and the fdinfo its driver writes
        (Documentation/gpu/drm-usage-stats.rst), with what the process table reads"""
        base = "/proc/%d" % pid
        listing = self.files.setdefault("/proc", {"dir": ["self"]})
        listing["dir"] = sorted(set(listing["dir"]) | {str(pid)})
        self.file(base + "/comm", comm)
        self.files[base + "/cmdline"] = {"hex": ("\0".join(argv) + "\0").encode().hex()}
        self.file(base + "/status", "Name:\t%s\nState:\tS (sleeping)\nPid:\t%d\nPPid:\t1\n"
                  "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000" % (comm, pid))
        self.file(base + "/stat", "%d (%s) S 1 %d %d 0 -1 4194304 100 0 0 0 5000 300 0 0 20 0 8 0 "
                  "123456 4294967296 131072 18446744073709551615 0 0 0 0 0 0 0 16781312 1 0 0 "
                  "17 3 0 0 0 0 0 0 0 0 0 0 0 0 0" % (pid, comm, pid, pid))
        self.dir(base + "/fd", ["0", "1", "2"] + [str(fd) for fd in fds])
        for fd in ("0", "1", "2"):
            self.link("%s/fd/%s" % (base, fd), "/dev/pts/0")
        for fd, (node, info) in fds.items():
            self.link("%s/fd/%d" % (base, fd), node)
            self.file("%s/fdinfo/%d" % (base, fd), info)


def recording(description, tree):
    return {
        "gpuvet_recording": 1,
        "gpuvet_version": "constructed",
        "description": description,
        "uname": {"sysname": "Linux", "nodename": "intel-box", "release": "6.8.0-51-generic",
                  "version": "#52-Ubuntu SMP PREEMPT_DYNAMIC", "machine": "x86_64"},
        "identity": {"uid": 1000, "gid": 1000, "groups": [1000]},
        "env": {"CUDA_VISIBLE_DEVICES": None},
        "libraries": NO_NVIDIA,
        "files": tree.files,
    }


def arc_a770():
    t = Tree()
    igpu = "/sys/devices/pci0000:00/0000:00:02.0"
    root = "/sys/devices/pci0000:00/0000:00:01.0"
    up = root + "/0000:01:00.0"
    down = up + "/0000:02:01.0"
    arc = down + "/0000:03:00.0"
    t.dir("/sys/class/drm", ["card0", "card0-HDMI-A-1", "card1", "card1-DP-1", "renderD128",
                             "renderD129", "version"])
    t.file("/sys/class/drm/version", "drm 1.1.0 20060810")
    # the processor's UHD Graphics 770: integrated, no link, no hwmon, no local memory
    t.pci(igpu, 0x8086, 0xa780, 0x030000, extra={
        "revision": "0x04", "subsystem_vendor": "0x1043", "subsystem_device": "0x8882",
        "numa_node": "-1", "local_cpulist": "0-23"})
    t.card(0, igpu, "i915", 128)
    c0 = igpu + "/drm/card0"
    for k, v in {"gt_act_freq_mhz": "0", "gt_cur_freq_mhz": "350", "gt_RP0_freq_mhz": "1650",
                 "gt_RPn_freq_mhz": "300", "gt_max_freq_mhz": "1650",
                 "gt_min_freq_mhz": "300", "gt_boost_freq_mhz": "1650"}.items():
        t.file(c0 + "/" + k, v)
    # Gen4 x16 slot; the card's switch; the GPU's own link says 2.5 GT/s x1
    gen4 = ("16.0 GT/s PCIe", 16)
    t.pci(root, 0x8086, 0xa70d, 0x060400, link=(gen4, gen4))
    t.pci(up, 0x8086, 0x4fa1, 0x060400, link=(gen4, gen4))
    t.pci(down, 0x8086, 0x4fa4, 0x060400, link=(gen4, gen4))
    x1 = ("2.5 GT/s PCIe", 1)
    t.pci(arc, 0x8086, 0x56a0, 0x030000, link=(x1, x1), extra={
        "revision": "0x08", "subsystem_vendor": "0x8086", "subsystem_device": "0x1020",
        "numa_node": "-1", "local_cpulist": "0-23"})
    t.card(1, arc, "i915", 129)
    c1 = arc + "/drm/card1"
    for k, v in {"gt_act_freq_mhz": "2100", "gt_cur_freq_mhz": "2100",
                 "gt_RP0_freq_mhz": "2400", "gt_RPn_freq_mhz": "300", "gt_max_freq_mhz": "2400",
                 "gt_min_freq_mhz": "300", "gt_boost_freq_mhz": "2400",
                 "lmem_total_bytes": str(16 << 30)}.items():
        t.file(c1 + "/" + k, v)
    t.dir(arc + "/hwmon", ["hwmon3"])
    hw = arc + "/hwmon/hwmon3"
    for k, v in {"name": "i915", "energy1_input": "123456789012", "power1_max": "190000000",
                 "power1_rated_max": "225000000", "power1_max_interval": "1000",
                 "curr1_crit": "400000", "in0_input": "1020"}.items():
        t.file(hw + "/" + k, v)
    return recording("Arc A770 on i915 (kernel 6.8) behind its on-card PCIe switch, with the "
                     "processor's integrated UHD Graphics 770 as card0; no NVIDIA driver", t)


def max1550():
    t = Tree()
    root = "/sys/devices/pci0000:17/0000:17:01.0"
    gpu = root + "/0000:18:00.0"
    t.dir("/sys/class/drm", ["card0", "renderD128", "version"])
    t.file("/sys/class/drm/version", "drm 1.1.0 20060810")
    gen5 = ("32.0 GT/s PCIe", 16)
    t.pci(root, 0x8086, 0x352a, 0x060400, link=(gen5, gen5))
    t.pci(gpu, 0x8086, 0x0bd5, 0x038000, link=(gen5, gen5), extra={
        "revision": "0x2f", "subsystem_vendor": "0x8086", "subsystem_device": "0x0b5b",
        "numa_node": "0", "local_cpulist": "0-55,112-167"})
    t.card(0, gpu, "xe", 128)
    t.dir(gpu, ["class", "current_link_speed", "current_link_width", "device", "driver", "drm",
                "hwmon", "local_cpulist", "max_link_speed", "max_link_width", "numa_node",
                "revision", "subsystem_device", "subsystem_vendor", "tile0", "tile1", "vendor"])
    # xe numbers its GTs across the device: tile1 holds gt1
    for tile, gt, act in ((0, 0, 1550), (1, 1, 1300)):
        td = "%s/tile%d" % (gpu, tile)
        t.dir(td, ["gt%d" % gt, "physical_vram_size_bytes"])
        t.file(td + "/physical_vram_size_bytes", str(64 << 30))
        t.dir("%s/gt%d" % (td, gt), ["freq0"])
        fd = "%s/gt%d/freq0" % (td, gt)
        for k, v in {"act_freq": act, "cur_freq": act, "max_freq": 1600, "min_freq": 800,
                     "rp0_freq": 1600, "rpe_freq": 1200, "rpn_freq": 800}.items():
            t.file(fd + "/" + k, str(v))
    t.dir(gpu + "/hwmon", ["hwmon2"])
    hw = gpu + "/hwmon/hwmon2"
    for k, v in {"name": "xe", "energy1_input": "1500000", "power1_max": "600000000",
                 "power1_rated_max": "600000000", "temp2_input": "45000",
                 "temp3_input": "52000", "in1_input": "880"}.items():
        t.file(hw + "/" + k, v)
    # a job on the GPU: xe's fdinfo gives busy and total cycles per engine class, and its memory
    t.proc(7001, "python3", ["python3", "train_xpu.py"], {4: ("/dev/dri/renderD128", (
        "pos:\t0\nflags:\t02100002\nmnt_id:\t27\nino:\t1045\ndrm-driver:\txe\n"
        "drm-client-id:\t12\ndrm-pdev:\t0000:18:00.0\n"
        "drm-total-system:\t4096 KiB\ndrm-shared-system:\t0\ndrm-active-system:\t0\n"
        "drm-resident-system:\t4096 KiB\ndrm-purgeable-system:\t0\n"
        "drm-total-vram0:\t8388608 KiB\ndrm-shared-vram0:\t0\ndrm-active-vram0:\t0\n"
        "drm-resident-vram0:\t8388608 KiB\ndrm-purgeable-vram0:\t0\n"
        "drm-cycles-rcs:\t0\ndrm-total-cycles-rcs:\t912345678901\n"
        "drm-cycles-ccs:\t734567890123\ndrm-total-cycles-ccs:\t912345678901\n"
        "drm-engine-capacity-ccs:\t4\n"
        "drm-cycles-bcs:\t1234567\ndrm-total-cycles-bcs:\t912345678901\n"))})
    return recording("Data Center GPU Max 1550 on xe, two tiles of 64 GiB (gt0, gt1), Gen5 "
                     "x16; no NVIDIA driver", t)


def main():
    for name, rec in (("intel-arc-a770.json", arc_a770()), ("intel-max1550.json", max1550())):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(rec, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
