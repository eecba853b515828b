/*
 * busid.c: PCI addresses parsed and compared (see busid.h).
 */
#include "busid.h"

#include <stdio.h>

bool pci_addr_parse(const char *s, struct pci_addr *a)
{
	unsigned fn;
	int used = 0;

	if (!s || sscanf(s, "%x:%x:%x%n", &a->dom, &a->bus, &a->dev, &used) != 3)
		return false;
	a->fn = -1;
	if (s[used] == '.' && sscanf(s + used + 1, "%x", &fn) == 1)
		a->fn = (int)fn;
	return true;
}

bool pci_addr_same(const struct pci_addr *a, const struct pci_addr *b)
{
	return a->dom == b->dom && a->bus == b->bus && a->dev == b->dev &&
	       (a->fn < 0 || b->fn < 0 || a->fn == b->fn);
}

bool bus_id_same(const char *a, const char *b)
{
	struct pci_addr pa, pb;

	return pci_addr_parse(a, &pa) && pci_addr_parse(b, &pb) && pci_addr_same(&pa, &pb);
}

const struct gpu *gpu_at_bus(const struct gpu_system *sys, const char *bus_id)
{
	struct pci_addr want, have;
	unsigned i;

	if (!pci_addr_parse(bus_id, &want))
		return NULL;
	for (i = 0; i < sys->ngpus; i++)
		if (text_ok(&sys->gpus[i].st.bus_id) &&
		    pci_addr_parse(sys->gpus[i].st.bus_id.s, &have) && pci_addr_same(&want, &have))
			return &sys->gpus[i];
	return NULL;
}
