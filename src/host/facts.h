/*
 * facts.h: what doctor learns about the machine from files alone, before any library call.
 *
 * NVML and libcuda can load kernel modules, create device nodes and wake a suspended GPU
 * (catalog lesson 17), so every collector here reads files through host.h and is run before
 * the vendor probe. Each collector fills its own part and never fails as a whole: a value it
 * cannot read keeps its "unknown" marker (-1, "" or false with the matching *_read flag).
 *
 * The collectors live in host/<part>.c: platform.c, pci.c, module.c, devnodes.c, kmsg.c,
 * libs.c, toolkit.c, python.c, procs.c; stalls.c lists the reads that did not answer.
 */
#ifndef GPUVET_FACTS_H
#define GPUVET_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"

#define FACTS_MAX_PCI 64
#define FACTS_MAX_KERNELS 16
#define FACTS_MAX_NODES 48
#define FACTS_MAX_XIDS 64
#define FACTS_MAX_LIBS 16
#define FACTS_MAX_TOOLKITS 16
#define FACTS_MAX_ENVS 16
#define FACTS_MAX_FW 6
#define FACTS_MAX_PROCS 16
#define FACTS_MAX_BADVARS 16

/* ---- platform: OS, container, WSL, VM (platform.c) ---- */

enum pkg_mgr { PKG_UNKNOWN = 0, PKG_APT, PKG_DNF, PKG_YUM, PKG_ZYPPER, PKG_PACMAN };

struct platform_facts {
	struct host_uname un;
	char os_id[32];	      /* os-release ID: "ubuntu" */
	char os_id_like[64];  /* ID_LIKE: "debian" */
	char os_version_id[32];
	char os_pretty[128];  /* PRETTY_NAME */
	enum pkg_mgr pkg;
	bool container;
	char container_kind[32]; /* "docker", "podman", "kubernetes", "containerd", "lxc", ... */
	bool wsl;		 /* osrelease mentions microsoft, or /dev/dxg exists */
	bool vm;
	char hypervisor[64];	 /* DMI sys_vendor/product name when a VM is recognised */
	bool is_root;		 /* effective uid 0 */
	char cmdline[2048];	 /* /proc/cmdline */
};

/* ---- PCI devices of vendor 0x10de, and other vendors' GPUs (pci.c) ---- */

struct pci_dev {
	char bdf[16]; /* "0000:00:06.0" */
	unsigned vendor, device, subsys_vendor, subsys_device;
	unsigned class_code; /* 0x030200 */
	bool is_gpu;	     /* class 0x0300xx or 0x0302xx */
	bool is_nvswitch;    /* class 0x0680xx */
	char driver[32];     /* basename of the driver link; "" when no driver is bound */
	int cur_gen, max_gen, cur_width, max_width; /* -1 when unreadable */
	char up_bdf[16];			     /* the upstream port, "" when none */
	int up_max_gen, up_max_width;		     /* its capability, -1 unknown */
	int numa_node;				     /* -1 none */
	char local_cpulist[128];
	char runtime_status[16]; /* power/runtime_status: "active", "suspended", "" */
	int64_t aer_fatal, aer_nonfatal, aer_correctable; /* totals, -1 unreadable */
	bool config_read;
	bool config_all_ff; /* the first 4 config bytes read ff ff ff ff: not answering */
	int iommu_group;    /* -1 none */
	/* /proc/driver/nvidia/gpus/<bdf>/information, present once the module probed it */
	bool nv_info;
	char nv_model[96], nv_uuid[64], nv_firmware[32];
	bool nv_excluded;
	int nv_minor; /* -1 unknown */
};

/* A GPU or accelerator of another vendor (AMD 0x1002, Intel 0x8086, Huawei 0x19e5): display
 * (class 0x03), processing accelerator (0x12) or co-processor (0x0b40) functions. */
#define FACTS_MAX_ACCEL 32
enum { ACCEL_AMD = 1, ACCEL_INTEL, ACCEL_HUAWEI };
struct accel_dev {
	char bdf[16];
	int kind; /* ACCEL_* */
	unsigned vendor, device, subsys_vendor, subsys_device, revision;
	unsigned class_code;
	char driver[32]; /* "amdgpu", "radeon", "i915", "xe", "vfio-pci", "" none */
	char card[16];	 /* its DRM card, "card1", "" none */
	char render[16]; /* its render node, "renderD129", "" none */
	int numa_node;	 /* -1 none */
};

struct pci_facts {
	bool sysfs_read; /* /sys/bus/pci/devices could be listed */
	struct pci_dev devs[FACTS_MAX_PCI];
	int n;
	int ngpus, nswitches;
	struct accel_dev accel[FACTS_MAX_ACCEL]; /* other vendors' GPUs, in bus order */
	int naccel;
};

/* ---- kernel module, its files, Secure Boot, blacklists (module.c) ---- */

struct kernel_modfile {
	char release[65];
	bool has_nvidia; /* an nvidia.ko* for this kernel */
	char path[256];	 /* where, relative to /lib/modules/<release> */
	bool has_build;	 /* /lib/modules/<release>/build exists (headers for DKMS) */
	/* added by the doctor-host work: /boot/vmlinuz-<release> or /lib/modules/<release>/vmlinuz
	 * exists, so this is an installed kernel and not a folder left behind by a removed one */
	bool has_image;
};

struct module_facts {
	bool proc_version; /* /proc/driver/nvidia/version exists */
	char version[64];  /* kernel module version ("580.159.04") */
	bool open_flavour; /* "Open Kernel Module" */
	char version_line[256];
	bool loaded_nvidia, loaded_uvm, loaded_modeset, loaded_drm, loaded_peermem, loaded_nouveau;
	bool modules_read; /* /proc/modules was readable */
	/* module files, per installed kernel; [0] is the running kernel when present */
	struct kernel_modfile kernels[FACTS_MAX_KERNELS];
	int nkernels;
	bool running_has_module;
	bool running_has_headers;
	int module_signed; /* 1 signed, 0 unsigned, -1 unknown (compressed or unreadable) */
	/* DKMS: versions under /var/lib/dkms/nvidia* and the kernels each was built for */
	char dkms_versions[8][32];
	int ndkms;
	char dkms_kernels[8][256]; /* space-separated releases per version */
	/* Secure Boot and lockdown */
	bool efi;	  /* /sys/firmware/efi exists */
	int secure_boot;  /* 1 on, 0 off, -1 unknown or legacy BIOS */
	char lockdown[32]; /* "none", "integrity", "confidentiality", "" unknown */
	/* blacklists */
	bool nouveau_blacklisted;
	char nouveau_blacklist_src[256]; /* file or "kernel command line" */
	bool nvidia_blacklisted;
	char nvidia_blacklist_src[256];
	bool amdgpu_blacklisted; /* the same lists, read for checks/amd.c */
	char amdgpu_blacklist_src[256];
	bool uvm_in_proc_devices; /* "nvidia-uvm" in /proc/devices */
	bool firmware_dir;	  /* /lib/firmware/nvidia/<version> exists */
	/* /proc/driver/nvidia/params */
	int64_t param_dev_uid, param_dev_gid, param_dev_mode, param_modify_dev_files; /* -1 unknown */
	/* package manager history: the last NVIDIA package change seen in apt or dnf logs */
	char last_pkg_change[256];
};

/* ---- device nodes (devnodes.c) ---- */

struct devnode {
	char path[64];
	bool exists;
	struct host_stat st;
	int access_rc; /* host_access(R_OK|W_OK): 0 or -errno */
	/* added by the doctor-host work: the name of st.gid from /etc/group, "" unknown, so a
	 * fix can say "usermod -aG video" */
	char group[32];
};

struct devnode_facts {
	struct devnode nodes[FACTS_MAX_NODES]; /* /dev/nvidiactl, /dev/nvidiaN, uvm, caps */
	int n;
	int ngpu_nodes; /* /dev/nvidia[0-9]+ */
	bool dxg;	/* /dev/dxg (WSL2) */
	struct host_identity id;
};

/* ---- kernel log (kmsg.c) ---- */

struct xid_event {
	char bdf[32];	/* as printed: "PCI:0000:10:1c" normalised to "0000:10:1c" */
	int xid;
	char text[200]; /* the message after the code */
	int64_t usec;	/* kernel timestamp */
	int64_t seq;	/* the record's sequence number: what came after a given moment */
};

struct kmsg_facts {
	int read_rc;	   /* 0, or -errno from /dev/kmsg */
	bool restricted;   /* dmesg_restrict is 1 and we could not read it */
	int dmesg_restrict; /* -1 unknown */
	struct xid_event xids[FACTS_MAX_XIDS];
	int nxids;
	int nxids_dropped; /* more than FACTS_MAX_XIDS */
	int64_t last_seq;  /* sequence number of the last record kept, -1 none (burn: what is new) */
	char rm_init_line[256];	   /* last "RmInitAdapter failed" line, "" none */
	char fallen_line[256];	   /* "fallen off the bus" */
	char key_rejected_line[256]; /* module signature rejected */
	char uvm_hmm_line[256];	   /* nvidia-uvm request_free_mem_region err -34 */
	char probe_not_called_line[256]; /* "NVIDIA probe routine was not called" */
	char gsp_line[256];	   /* GSP firmware boot failure */
	/* added by the doctor-host work: "... is not supported by the NVIDIA <ver> driver
	 * release" (catalog row 9: a GPU too new or too old for the installed branch) */
	char unsupported_line[256];
	/* added by the Intel doctor work: i915's or xe's "Your graphics device 56a0 is not
	 * properly supported by i915 in this kernel version. To force driver probe anyway, use
	 * i915.force_probe=56a0 ...": a GPU newer than the kernel's driver */
	char force_probe_line[256];
};

/* ---- libraries the loader would pick (libs.c) ---- */

enum lib_source { LIBSRC_LD_LIBRARY_PATH = 1, LIBSRC_LDCACHE, LIBSRC_DEFAULT_DIR };

struct lib_candidate {
	char name[64];	 /* the file name found: "libcuda.so.1" */
	char path[512];	 /* where */
	char real[512];	 /* resolved */
	char version[64]; /* from the resolved name: "580.159.04"; "" unknown */
	bool stub;	 /* under a .../stubs/ folder */
	bool compat;	 /* under a .../compat/ folder or a cuda-compat package */
	bool wsl;	 /* /usr/lib/wsl/lib */
	enum lib_source src;
	int64_t size;
};

struct lib_list {
	struct lib_candidate v[FACTS_MAX_LIBS];
	int n;
};

struct lib_facts {
	bool ldcache_read;
	char ld_library_path[2048];
	struct lib_list libcuda, libnvml, libcudart, libcudnn;
};

/* ---- CUDA toolkits (toolkit.c) ---- */

struct toolkit {
	char path[256];	  /* /usr/local/cuda-13.0 */
	char version[32]; /* from version.json / version.txt */
	bool is_default;  /* /usr/local/cuda points here */
};

struct toolkit_facts {
	struct toolkit v[FACTS_MAX_TOOLKITS];
	int n;
	char nvcc_path[256];	/* first nvcc on PATH, resolved */
	char nvcc_version[32];	/* the toolkit it belongs to */
	char cuda_home[256];	/* CUDA_HOME or CUDA_PATH */
	/* added by the doctor-userspace work: the toolkit CUDA_HOME names, so checks can compare
	 * it with nvcc's and the framework's without reading files */
	char cuda_home_real[256];    /* resolved; "" when it is not an existing folder */
	char cuda_home_version[32];  /* its version, "" unknown */
};

/* ---- Python environments and frameworks (python.c) ---- */

enum fw_kind { FW_TORCH = 1, FW_TENSORFLOW, FW_JAX };

struct framework {
	enum fw_kind kind;
	char version[64];   /* "2.11.0+cu130" */
	char cuda[16];	    /* CUDA it was built for: "13.0"; "" for CPU or ROCm builds */
	bool cpu_only;
	bool rocm;
	char archs[160];    /* "sm_75 sm_80 sm_90 ..." where known, "" unknown */
	char cudnn_pin[32]; /* from METADATA Requires-Dist */
	char path[512];	    /* the package folder */
};

struct python_env {
	char prefix[512];
	char kind[16];	  /* "venv", "conda", "system", "user" */
	bool active;	  /* $VIRTUAL_ENV or $CONDA_PREFIX */
	bool on_path;	  /* the python3 on PATH belongs to it */
	char site[512];	  /* site-packages folder */
	char py_version[16];
	struct framework fw[FACTS_MAX_FW];
	int nfw;
	char nvidia_libdir[512]; /* site-packages/nvidia/.../lib with libcublasLt / libnccl */
	/* added by the doctor-userspace work: libnccl sits in its own wheel folder
	 * (nvidia/nccl/lib) in both the CUDA 12 and the CUDA 13 layouts, apart from libcublasLt
	 * (nvidia/cublas/lib or nvidia/cu13/lib), so nvidia_libdir holds libcublasLt's folder
	 * and this one libnccl's; "" when absent */
	char nvidia_nccl_dir[512];
};

struct python_facts {
	struct python_env v[FACTS_MAX_ENVS];
	int n;
};

/* ---- processes (procs.c) ---- */

struct proc_facts {
	bool scanned;
	int persistenced_pid; /* 0 none */
	int fabricmanager_pid;
	int xorg_pid;
	bool fm_log_present; /* /var/log/fabricmanager.log */
};

/* ---- environment variables (platform.c) ---- */

struct env_facts {
	char cuda_visible_devices[256];
	bool cuda_visible_set;
	char nvidia_visible_devices[256];
	bool nvidia_visible_set;
	char cuda_device_order[32];
	char bad_vars[FACTS_MAX_BADVARS][160]; /* "CUDA_LAUNCH_BLOCKING=1" */
	int nbad;
	char path[4096];
	char virtual_env[512], conda_prefix[512], home[512];
};

/* ---- AMD GPUs: KFD, device nodes, amdgpu, ROCm, HIP builds of PyTorch (amd.c) ---- */

#define AMD_MAX_GPUS 16
#define AMD_MAX_ROCM 8
#define AMD_MAX_DKMS 4

struct amd_kfd_gpu {
	int node;		/* /sys/class/kfd/kfd/topology/nodes/<node> */
	unsigned gfx_version;	/* gfx_target_version: 90402 */
	char gfx[16];		/* "gfx942" */
	int render_minor;	/* drm_render_minor, -1 unknown */
	char bdf[16];		/* from domain and location_id, "" unknown */
};

struct amd_rocm_install {
	char path[256];	  /* /opt/rocm-6.2.0 */
	char version[32]; /* .info/version: "6.2.0-66"; "" unreadable */
	bool is_default;  /* /opt/rocm resolves here */
};

struct amd_torch {
	int env, fw;	    /* python_facts.v[env].fw[fw] */
	char hip[32];	    /* torch/version.py hip = '6.2.41133-dd7f95766'; "" None */
	char archs[256];    /* "gfx90a;gfx942" from libtorch_hip.so; "" cannot tell */
	char archs_note[96]; /* why not, when archs is "" */
};

struct amd_facts {
	int ngpus;			/* pci_facts.accel[] entries of kind ACCEL_AMD */
	bool kfd_sysfs;			/* /sys/class/kfd/kfd exists */
	struct amd_kfd_gpu kfd[AMD_MAX_GPUS]; /* GPU nodes (gfx_target_version != 0) */
	int nkfd;
	struct devnode dev_kfd;		       /* /dev/kfd */
	struct devnode render[AMD_MAX_GPUS];   /* /dev/dri/renderD* of the AMD GPUs */
	int nrender;
	bool amdgpu_loaded, radeon_loaded;     /* /proc/modules or /sys/module/<name> */
	char module_version[32];	       /* /sys/module/amdgpu/version (DKMS), "" */
	char dkms[AMD_MAX_DKMS][48];	       /* /var/lib/dkms/amdgpu/<version> */
	int ndkms;
	bool firmware_dir;		       /* /lib/firmware/amdgpu */
	struct amd_rocm_install rocm[AMD_MAX_ROCM];
	int nrocm;
	bool rocm_link;			       /* /opt/rocm exists */
	char rocm_default[256];		       /* where /opt/rocm resolves, "" none */
	char rocblas_targets[256];	       /* "gfx908 gfx90a gfx942": rocBLAS's kernel files */
	bool rocblas_read;		       /* its library folder could be listed */
	struct amd_torch torch[FACTS_MAX_ENVS];
	int ntorch;
	char hsa_override[64], hip_visible[256], rocr_visible[256];
	bool hsa_override_set, hip_visible_set, rocr_visible_set;
};

/* ---- Intel GPUs: driver, render nodes, Level Zero, oneAPI, PyTorch XPU (oneapi.c) ---- */

#define FACTS_MAX_ONEAPI 8

struct oneapi_facts {
	bool present;	       /* an Intel GPU is on the bus: nothing else is read otherwise */
	bool modules_read;     /* /proc/modules was readable */
	bool i915_loaded, xe_loaded;
	/* each Intel GPU's render node, in pci_facts.accel order ("" path: none) */
	struct devnode render[FACTS_MAX_ACCEL];
	/* the loader's candidates (libs.c's search): the Level Zero loader, the GPU's Level Zero
	 * driver (libze_intel_gpu.so.1) and the OpenCL driver (libigdrcl.so) */
	struct lib_list ze_loader, ze_gpu, igdrcl;
	char icd_path[128];    /* /etc/OpenCL/vendors/intel.icd, "" absent */
	char icd_lib[256];     /* what it names: a path the ICD loader opens as it is, or a name */
	bool icd_lib_exists;   /* that path exists (a bare name: found by the search) */
	bool oneapi_dir;       /* /opt/intel/oneapi exists */
	char oneapi_versions[256]; /* "compiler 2025.0 mkl 2025.0": each component's latest */
	/* PyTorch builds for XPU and Intel's extension, per Python environment */
	struct {
		char prefix[256];
		char torch_version[64]; /* "" no torch */
		char torch_xpu[32];	/* version.py's xpu, "" none */
		bool torch_cuda_or_rocm;
		char ipex_version[64];	/* intel_extension_for_pytorch, "" none */
	} py[FACTS_MAX_ONEAPI];
	int npy;
	char ze_affinity_mask[256];
	bool ze_affinity_set;
	char oneapi_device_selector[256];
	bool selector_set;
};

/* ---- Huawei Ascend NPUs: driver, modules, /dev/davinci*, npu-smi, CANN (ascend.c) ---- */

#define FACTS_MAX_ASCEND_NODES 24

struct ascend_facts {
	bool present;		/* an Ascend NPU is on the bus */
	bool driver_dir;	/* /usr/local/Ascend/driver exists */
	char driver_version[64]; /* version.info's Version=, "" unknown */
	bool modules_read;
	char modules[256];	/* the Ascend modules loaded: "drv_davinci_intf_host drv_devmng_host" */
	int nmodules;
	/* /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc (kept when absent), then
	 * /dev/davinciN */
	struct devnode nodes[FACTS_MAX_ASCEND_NODES];
	int nnodes;
	int ndavinci;
	char npu_smi[256];	/* where npu-smi is, "" not found */
	bool toolkit_dir;	/* /usr/local/Ascend/ascend-toolkit exists */
	char cann_version[64];	/* the toolkit's latest, "" unknown */
	char cann_path[256];	/* the file it came from */
	char torch_npu[FACTS_MAX_ONEAPI][64]; /* "prefix: version" of each env with torch_npu */
	int ntorch_npu;
	bool torch_present;	/* some environment has torch */
};

/* ---- reads that did not answer, files that were not files (stalls.c) ---- */

#define FACTS_MAX_STALLS 16

struct stalled_path {
	char path[512];
	char kind;   /* not-a-file list: 'p' FIFO, 's' socket, 'c', 'b' device, 'o' other */
	bool driver; /* /proc/driver/nvidia, or a /sys path of the nvidia driver or an NVIDIA GPU */
};

struct stall_facts {
	struct stalled_path stalled[FACTS_MAX_STALLS]; /* oldest first */
	int nstalled, stalled_total;
	struct stalled_path not_files[FACTS_MAX_STALLS];
	int nnot_files, not_files_total;
	int timeout_ms; /* the deadline the stalled reads missed */
};

struct host_facts {
	struct platform_facts platform;
	struct env_facts env;
	struct pci_facts pci;
	struct module_facts module;
	struct devnode_facts devnodes;
	struct kmsg_facts kmsg;
	struct lib_facts libs;
	struct toolkit_facts toolkit;
	struct python_facts python;
	struct proc_facts procs;
	struct amd_facts amd;	   /* all zero on a machine without an AMD GPU */
	struct oneapi_facts oneapi; /* Intel GPUs' stack; empty without an Intel GPU */
	struct ascend_facts ascend; /* Huawei Ascend's; empty without an Ascend NPU */
	struct stall_facts stalls; /* collected last, and again after the vendor probe */
};

/* Filled part by part by the *_collect functions below; checks/doctor.c's facts_collect calls
 * them all, in the order above. */

void platform_collect(struct platform_facts *p, struct env_facts *env);
void pci_collect(struct pci_facts *p);
/* NVIDIA GPUs bound to vfio-pci (kept for a VM on purpose): the nvidia driver is not meant to
 * take them, so they count neither for the module nor for NVML's GPU count. */
int pci_gpus_reserved(const struct pci_facts *p);
void module_collect(struct module_facts *m, const struct platform_facts *p);
/* Is module name a line of /proc/modules' text ("i915 4194304 12 - Live 0x...")? */
bool proc_modules_lists(const char *text, const char *name);
void devnodes_collect(struct devnode_facts *d);
/* Fill nd for the node at path: its metadata, this user's access and its group's name from
 * group_file (/etc/group's text, may be NULL). True when it exists. */
bool devnode_read(struct devnode *nd, const char *path, const char *group_file);
/* The node collected at path ("/dev/nvidiactl"), or NULL. */
const struct devnode *devnodes_find(const struct devnode_facts *d, const char *path);
void kmsg_collect(struct kmsg_facts *k);
/* kmsg_collect's parser: add what the log text says (NUL-terminated "prio,seq,usec,flags;msg"
 * lines, cut in place) to k, whose other members the caller has set. For the fuzzer. */
void kmsg_parse(struct kmsg_facts *k, char *text);
void libs_collect(struct lib_facts *l, const struct env_facts *env);
/* libs_collect's /etc/ld.so.cache parser (exported for the fuzzer): adds the entries of the
 * cache in buf (len bytes, untrusted) whose flags are want_flags (0: any libc6 entry) to l's
 * lists, each as host_realpath resolves it; seen[f] is set when the cache names family f
 * (libcuda, libnvml, libcudart, libcudnn in that order) at all. False when buf is no cache. */
#define LIBS_FAMILIES 4
bool libs_parse_ldcache(struct lib_facts *l, const unsigned char *buf, size_t len,
			uint32_t want_flags, bool seen[LIBS_FAMILIES]);
/* The loader's candidates for each of n library names ("libze_loader.so"), searched like
 * libs_collect's (LD_LIBRARY_PATH, /etc/ld.so.cache, the default folders), into lists[i]. */
void libs_search(const char *const *names, struct lib_list *lists, size_t n);
void toolkit_collect(struct toolkit_facts *t, const struct env_facts *env);
void python_collect(struct python_facts *py, const struct env_facts *env);
/* python_collect's scanner of version.py and build_info.py (exported for the fuzzer): the
 * literal assigned to key in the NUL-terminated Python source text, copied into out (n > 0
 * bytes). Returns 1 for a string or a list's insides, 2 for True/False, 0 for None, -1 when
 * key is not assigned. */
int python_value(const char *text, const char *key, char *out, size_t n);
/* A TensorFlow arch list's insides ("'sm_60', 'compute_90'" or "'3.5', '7.0'") as
 * "sm_60 compute_90" or "sm_35 sm_70 compute_70", into out (n > 0 bytes). */
void python_tf_archs(const char *list, char *out, size_t n);
void procs_collect(struct proc_facts *p);
/* AMD's stack, read only when pci lists an AMD GPU; py gives the torch installs. */
void amd_collect(struct amd_facts *a, const struct pci_facts *pci, const struct python_facts *py);
/* The ";"-separated gfx target list ("gfx90a;gfx942") compiled into the ELF shared object at
 * path, found in its .rodata section (at most AMD_RODATA_SCAN_MAX bytes of it are read). Returns
 * 1 with the list in out (n > 0 bytes), 0 when no list was found (note says why), or -errno. */
#define AMD_RODATA_SCAN_MAX (64u << 20)
int amd_elf_arch_list(const char *path, char *out, size_t n, char *note, size_t note_n);
/* "gfx942" for gfx_target_version 90402 (the step is a hex digit: 90010 is gfx90a); false
 * for 0 or a value out of range. */
bool amd_gfx_name(unsigned version, char *out, size_t n);
/* The number after key in a KFD properties file's "key value" lines; false when key is absent
 * or its value is not a number. */
bool amd_kfd_prop(const char *text, const char *key, uint64_t *v);
/* Intel's and Huawei's stacks, only when pci lists such a device (facts.h's oneapi, ascend) */
void oneapi_collect(struct oneapi_facts *o, const struct pci_facts *pci,
		    const struct python_facts *py);
void ascend_collect(struct ascend_facts *a, const struct pci_facts *pci,
		    const struct python_facts *py);
/* Every read so far that stalled or met a node that is not a file; pci tells which paths
 * belong to an NVIDIA GPU. Replaces what s held. */
void stalls_collect(struct stall_facts *s, const struct pci_facts *pci);

/* PCIe generation from a sysfs link speed ("32.0 GT/s PCIe" -> 5); -1 when unknown. */
int pci_gen_from_speed(const char *speed);

#endif
