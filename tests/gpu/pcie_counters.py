"""pcie_counters.py: how NVML's PCIe byte counters behave on this GPU (the lead runs it on the
H200 while a job copies to the GPU): the value type NVML returns for fields 197/198
(NVML_FI_DEV_PCIE_COUNT_TX/RX_BYTES), their readings every 20 ms for 2 s, the rate between
readings, every time the counter went backwards (a wrap), and nvmlDeviceGetPcieThroughput
(KB/s over a 20 ms window) beside them. collector_slow.c counts a backwards step under 2^32 as
one wrap; this script is the evidence for that rule.

    python3 pcie_counters.py [GPU index]
"""
import ctypes
import sys
import time


class Value(ctypes.Union):
    _fields_ = [("d", ctypes.c_double), ("ui", ctypes.c_uint), ("ul", ctypes.c_ulong),
                ("ull", ctypes.c_ulonglong), ("sll", ctypes.c_longlong)]


class Field(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint),
                ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong),
                ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int), ("value", Value)]


TYPES = {0: "double", 1: "unsigned int", 2: "unsigned long", 3: "unsigned long long",
         4: "signed long long", 5: "signed int", 6: "unsigned short"}


def main():
    gpu = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    nv = ctypes.CDLL("libnvidia-ml.so.1")
    assert nv.nvmlInit_v2() == 0
    h = ctypes.c_void_p()
    assert nv.nvmlDeviceGetHandleByIndex_v2(gpu, ctypes.byref(h)) == 0
    f = (Field * 2)()
    f[0].fieldId, f[1].fieldId = 197, 198
    rows = []
    t_end = time.monotonic() + 2
    while time.monotonic() < t_end:
        rc = nv.nvmlDeviceGetFieldValues(h, 2, f)
        rows.append((time.monotonic(), rc, f[0].valueType, f[0].nvmlReturn, f[0].value.ull,
                     f[1].value.ull))
        time.sleep(0.02)
    print("value type: %s (%d), returns %d/%d" % (TYPES.get(rows[0][2], "?"), rows[0][2],
                                                 rows[0][1], rows[0][3]))
    print("max tx %d rx %d (2^32 = %d)" % (max(r[4] for r in rows), max(r[5] for r in rows),
                                           2 ** 32))
    wraps = 0
    rates = []
    for a, b in zip(rows, rows[1:]):
        d = b[5] - a[5]
        if d < 0:
            wraps += 1
            d += 2 ** 32
        rates.append(d / (b[0] - a[0]))
    rates.sort()
    print("rx readings %d, went backwards %d times; rate between 20 ms readings (wrap "
          "counted once): median %.2f GB/s, max %.2f GB/s" %
          (len(rows), wraps, rates[len(rates) // 2] / 1e9, rates[-1] / 1e9))
    kb = ctypes.c_uint()
    for counter, name in ((0, "tx"), (1, "rx")):
        rc = nv.nvmlDeviceGetPcieThroughput(h, counter, ctypes.byref(kb))
        print("nvmlDeviceGetPcieThroughput %s: rc %d, %.2f GB/s" % (name, rc, kb.value * 1024 / 1e9))


if __name__ == "__main__":
    main()
