/* fixes.c: distribution-specific fix commands (see fixes.h). */
#include "fixes.h"

#include "../util/util.h"

static bool redhat_like(const struct platform_facts *p)
{
	return p->pkg == PKG_DNF || p->pkg == PKG_YUM;
}

const char *fix_pick(const struct platform_facts *p, const char *apt, const char *dnf)
{
	return redhat_like(p) ? dnf : apt;
}

const char *fix_initramfs(const struct platform_facts *p)
{
	if (p->pkg == PKG_PACMAN)
		return "sudo mkinitcpio -P";
	if (redhat_like(p) || p->pkg == PKG_ZYPPER)
		return "sudo dracut -f";
	return "sudo update-initramfs -u";
}

const char *fix_install(const struct platform_facts *p, const char *apt_pkg, const char *dnf_pkg,
			char *buf, size_t n)
{
	if (p->pkg == PKG_DNF)
		str_fmt(buf, n, "sudo dnf install %s", dnf_pkg);
	else if (p->pkg == PKG_YUM)
		str_fmt(buf, n, "sudo yum install %s", dnf_pkg);
	else if (p->pkg == PKG_ZYPPER)
		str_fmt(buf, n, "sudo zypper install %s", dnf_pkg);
	else if (p->pkg == PKG_PACMAN)
		str_fmt(buf, n, "sudo pacman -S %s", apt_pkg);
	else
		str_fmt(buf, n, "sudo apt install %s", apt_pkg);
	return buf;
}
