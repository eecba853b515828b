#!/usr/bin/env python3
"""make-amd.py: writes the constructed AMD machines mi300x-rocm.json and radeon-rx7900.json.

No AMD GPU was at hand to record, so these recordings are built from what the kernel's and
ROCm's files hold (KFD topology properties, /dev/kfd, render nodes, /opt/rocm-X/.info/version,
torch/version.py). libtorch_hip.so is a tiny ELF shared object written here: an ELF header,
a .rodata section holding the ";"-separated gfx target list and a .shstrtab, which is all
doctor reads of the real (about 1 GB) library. NVML and libcuda are absent (`error`).
Run it from this folder after changing it; the fault scenarios in ../faults/amd-*.json
derive from its output.
"""
import json
import struct


def tiny_elf(rodata_strings):
    rodata = b"\0" + b"".join(s.encode() + b"\0" for s in rodata_strings)
    shstr = b"\0.rodata\0.shstrtab\0"
    ro_off = 64
    sh_off_str = ro_off + len(rodata)
    shoff = (sh_off_str + len(shstr) + 7) & ~7
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 2)
    body = ehdr + rodata + shstr
    body += bytes(shoff - len(body))
    sh = bytes(64)
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, ro_off, len(rodata), 0, 0, 1, 0)
    sh += struct.pack("<IIQQQQIIQQ", 9, 3, 0, 0, sh_off_str, len(shstr), 0, 0, 1, 0)
    return (body + sh).hex()


def kfd_props(gfx, minor, loc):
    if not gfx:
        return "cpu_cores_count 96\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n"
    return ("cpu_cores_count 0\nsimd_count 1216\ngfx_target_version %d\nvendor_id 4098\n"
            "device_id 29857\nlocation_id %d\ndomain 0\ndrm_render_minor %d\n" % (gfx, loc, minor))


def machine(desc, gpus, gfx, dkms, targets, torch_archs):
    files = {
        "/etc/os-release": 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\nPRETTY_NAME="Ubuntu 24.04.3 LTS"\n',
        "/etc/group": "root:x:0:\nvideo:x:44:alice\nrender:x:992:alice\nalice:x:1000:\n",
        "/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.8.0-87-generic root=/dev/nvme0n1p2 ro quiet\n",
        "/proc/modules": "amdgpu 19734528 0 - Live 0x0000000000000000\namdxcp 12288 1 amdgpu, Live 0x0000000000000000\ndrm_exec 12288 1 amdgpu, Live 0x0000000000000000\n",
        "/sys/firmware/efi": {"dir": []},
        "/lib/firmware/amdgpu": {"dir": ["gc_9_4_3_mec.bin", "psp_13_0_6_sos.bin"]},
        "/sys/class/kfd/kfd": {"dir": ["topology"]},
        "/dev/kfd": {"stat": {"type": "c", "mode": "0660", "uid": 0, "gid": 992, "major": 235, "minor": 0}},
        "/opt": {"dir": ["rocm", "rocm-6.2.0", "venv"]},
        "/opt/rocm": {"link": "rocm-6.2.0"},
        "/opt/rocm-6.2.0/.info/version": "6.2.0-66\n",
        "/opt/rocm-6.2.0/lib/rocblas/library": {"dir": ["TensileLibrary_lazy_%s.dat" % t for t in targets]},
        "/opt/venv/pyvenv.cfg": "home = /usr/bin\nversion = 3.12.3\n",
        "/opt/venv/bin/python3": {"stat": {"type": "f", "mode": "0755", "uid": 0, "gid": 0}},
        "/opt/venv/lib": {"dir": ["python3.12"]},
        "/opt/venv/lib/python3.12/site-packages": {"dir": ["torch", "torch-2.5.1+rocm6.2.dist-info"]},
        "/opt/venv/lib/python3.12/site-packages/torch/version.py":
            "__version__ = '2.5.1+rocm6.2'\ndebug = False\ncuda = None\ngit_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip = '6.2.41133-dd7f95766'\n",
        "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so":
            {"hex": tiny_elf(["HIP error: %s", ";".join(torch_archs), "gfx942"])},
    }
    if dkms:
        files["/var/lib/dkms/amdgpu"] = {"dir": [dkms]}
    nodes = ["0"]
    files["/sys/class/kfd/kfd/topology/nodes/0/properties"] = kfd_props(0, 0, 0)
    for i, (bdf, dev) in enumerate(gpus):
        bus = int(bdf[5:7], 16)
        render = "renderD%d" % (128 + i)
        d = "/sys/bus/pci/devices/" + bdf
        files[d + "/vendor"] = "0x1002\n"
        files[d + "/device"] = "0x%04x\n" % dev
        files[d + "/class"] = "0x038000\n" if dev != 0x744c else "0x030000\n"
        files[d + "/subsystem_vendor"] = "0x1002\n"
        files[d + "/subsystem_device"] = "0x0c34\n"
        files[d + "/revision"] = "0x00\n"
        files[d + "/numa_node"] = "%d\n" % (i % 2)
        files[d + "/driver"] = {"link": "../../drivers/amdgpu"}
        files[d + "/drm"] = {"dir": ["card%d" % (i + 1), render]}
        # the DRM class links the monitoring backend follows (gpu/backend.c)
        files["/sys/class/drm/card%d" % (i + 1)] = {"link": "../../bus/pci/devices/%s/drm/card%d" % (bdf, i + 1)}
        files[d + "/drm/card%d/device" % (i + 1)] = {"link": "../../../" + bdf}
        files["/dev/dri/" + render] = {"stat": {"type": "c", "mode": "0660", "uid": 0, "gid": 992, "major": 226, "minor": 128 + i}}
        nodes.append(str(i + 1))
        files["/sys/class/kfd/kfd/topology/nodes/%d/properties" % (i + 1)] = kfd_props(gfx, 128 + i, bus << 8)
    files["/sys/bus/pci/devices"] = {"dir": [b for b, _ in gpus]}
    files["/sys/class/drm"] = {"dir": ["card%d" % (i + 1) for i in range(len(gpus))] +
                               ["renderD%d" % (128 + i) for i in range(len(gpus))]}
    files["/sys/class/kfd/kfd/topology/nodes"] = {"dir": nodes}
    files["/dev/dri"] = {"dir": ["by-path"] + ["card%d" % (i + 1) for i in range(len(gpus))] + ["renderD%d" % (128 + i) for i in range(len(gpus))]}
    return {
        "gpuvet_recording": 1,
        "description": desc,
        "env": {"PATH": "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin", "HOME": "/home/alice",
                "HSA_OVERRIDE_GFX_VERSION": None, "HIP_VISIBLE_DEVICES": None,
                "ROCR_VISIBLE_DEVICES": None, "CUDA_VISIBLE_DEVICES": None, "container": None},
        "uname": {"sysname": "Linux", "nodename": "amd1", "release": "6.8.0-87-generic",
                  "version": "#88-Ubuntu SMP PREEMPT_DYNAMIC Sat Oct 11 09:28:41 UTC 2025", "machine": "x86_64"},
        "identity": {"uid": 1000, "gid": 1000, "groups": [44, 992, 1000]},
        "libraries": {"nvml": {"error": "libnvidia-ml.so.1: cannot open shared object file: No such file or directory"},
                      "cuda": {"error": "libcuda.so.1: cannot open shared object file: No such file or directory"}},
        "files": files,
    }


ALL = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"]
mi = machine("constructed: a bare-metal Ubuntu 24.04 server with 2 AMD Instinct MI300X (gfx942) on "
             "AMD's amdgpu-dkms of ROCm 6.2, ROCm 6.2.0 in /opt, PyTorch 2.5.1+rocm6.2 in /opt/venv; "
             "no NVIDIA GPU (NVML and libcuda absent); tests/scenarios/amd/make-amd.py writes it",
             [("0000:75:00.0", 0x74a1), ("0000:f5:00.0", 0x74a1)], 90402, "6.8.5-2009582.22.04",
             ["gfx908", "gfx90a", "gfx942", "gfx1100"], ALL)
rx = machine("constructed: an Ubuntu 24.04 workstation with an AMD Radeon RX 7900 XTX (gfx1100) on the "
             "kernel's own amdgpu, ROCm 6.2.0 in /opt, PyTorch 2.5.1+rocm6.2 in /opt/venv; no NVIDIA GPU; "
             "tests/scenarios/amd/make-amd.py writes it",
             [("0000:03:00.0", 0x744c)], 110000, None,
             ["gfx908", "gfx90a", "gfx942", "gfx1100"], ALL)
for name, doc in (("mi300x-rocm.json", mi), ("radeon-rx7900.json", rx)):
    with open(name, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
