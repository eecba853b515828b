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
    return recording("Data Center GPU Max 1550 on xe, two tiles of 64 GiB (gt0, gt1), Gen5 "
                     "x16; no NVIDIA driver", t)


def main():
    for name, rec in (("intel-arc-a770.json", arc_a770()), ("intel-max1550.json", max1550())):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(rec, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
