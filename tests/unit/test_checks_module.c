/*
 * test_checks_module.c: the kernel-module checks (checks/module.c) on hand-built input
 * (hostcheck.h), for what no recording can bring: a module version the collector would not
 * have read. Every catalog row the module layer detects (2, 3, 4, 6, 7, 9, 11) and its
 * negatives are scenarios (tests/scenarios/faults/row0[2-9]-*.json, row11-*.json,
 * module-unknown*.json), run by tests/cli/scenarios.sh.
 */
#include "hostcheck.h"

/* Issue 8: the fix that names the open package is built from the module's version. The
 * collector reads only a well-formed version (src/host/module.c), so a scenario cannot bring
 * "580$(id).1" here (faults/untrusted-module-version.json shows it is not read); the fix must
 * quote it all the same. */
static void module_version_quoted_in_fix(void)
{
	const struct finding *f;

	healthy();
	str_copy(in->facts.module.version, "580$(id).1", sizeof(in->facts.module.version));
	in->facts.module.open_flavour = false;
	in->facts.pci.devs[0].device = in->facts.pci.devs[1].device = 0x2901;
	gpus[0].st.cc_major.v = gpus[1].st.cc_major.v = 10;
	run_checks();
	f = find("module.wrong_flavour");
	CHECK(f);
	CHECK_CONTAINS(f->fix, "`sudo apt install 'nvidia-driver-580$(id)-open'`");
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(module_version_quoted_in_fix);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
