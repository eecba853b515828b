/*
 * fixes.h: fix commands that follow the distribution (catalog lesson 13): apt or dnf,
 * update-initramfs or dracut, dkms or akmods, linux-headers or kernel-devel.
 */
#ifndef GPUVET_FIXES_H
#define GPUVET_FIXES_H

#include "../host/facts.h"

/* The Debian-family text or the Red Hat-family text, by the machine's package manager
 * (Debian's when unknown). */
const char *fix_pick(const struct platform_facts *p, const char *apt, const char *dnf);
/* "sudo update-initramfs -u", "sudo dracut -f" (Red Hat family, SUSE) or "sudo mkinitcpio -P"
 * (Arch). */
const char *fix_initramfs(const struct platform_facts *p);
/* "sudo apt install X" / "sudo dnf install Y" with the right verb. X and Y are pasted as shell
 * text: a package name built from a machine value must come quoted (util/quote.h). */
const char *fix_install(const struct platform_facts *p, const char *apt_pkg, const char *dnf_pkg,
			char *buf, size_t n);

#endif
