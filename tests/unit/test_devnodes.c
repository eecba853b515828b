/* test_devnodes.c: devnodes_collect on fake /dev trees: which nodes, their metadata, whether
 * this user may open them, group names, /dev/dxg (host/devnodes.c). */
#include <errno.h>
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"

static struct devnode_facts df;

static const struct devnode *node(const char *path)
{
	int i;

	for (i = 0; i < df.n; i++)
		if (strcmp(df.nodes[i].path, path) == 0)
			return &df.nodes[i];
	return NULL;
}

static void h200_sample_as_root(void)
{
	char *root = fr_new();
	const char *files[] = {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia-uvm",
			       "/dev/nvidia-uvm-tools", "/dev/nvidia-caps/nvidia-cap1",
			       "/dev/nvidia-caps/nvidia-cap2"};
	const struct devnode *n;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fr_file(root, files[i], "");
	fr_facts(root, "id 0 0 0\n"
		       "node /dev/nvidiactl c 0666 0 0 195 255\n"
		       "node /dev/nvidia0 c 0666 0 0 195 0\n"
		       "node /dev/nvidia1 c 0666 0 0 195 1\n"
		       "node /dev/nvidia-uvm c 0666 0 0 238 0\n"
		       "node /dev/nvidia-uvm-tools c 0666 0 0 238 1\n"
		       "node /dev/nvidia-caps/nvidia-cap1 c 0400 0 0 241 1\n"
		       "node /dev/nvidia-caps/nvidia-cap2 c 0444 0 0 241 2\n");
	fr_use(root);
	devnodes_collect(&df);
	CHECK(df.n == 7);
	CHECK(df.ngpu_nodes == 2);
	CHECK(!df.dxg);
	CHECK(df.id.uid == 0);
	n = node("/dev/nvidiactl");
	CHECK(n && n->exists && n->st.type == 'c' && n->st.major == 195 && n->st.minor == 255);
	CHECK(n->access_rc == 0);
	n = node("/dev/nvidia1");
	CHECK(n && n->exists && n->st.minor == 1 && n->access_rc == 0);
	/* root passes read/write even on a 0400 node */
	n = node("/dev/nvidia-caps/nvidia-cap1");
	CHECK(n && n->exists && n->st.mode == 0400 && n->access_rc == 0);
	fr_free(root);
}

static void user_without_the_group(void)
{
	char *root = fr_new();
	const struct devnode *n;

	fr_file(root, "/dev/nvidiactl", "");
	fr_file(root, "/dev/nvidia0", "");
	fr_file(root, "/dev/nvidia2", "");
	fr_file(root, "/dev/nvidia10", "");
	fr_file(root, "/dev/nvidia-modeset", "");
	fr_file(root, "/dev/nvidia-caps/nvidia-cap1", "");
	fr_file(root, "/etc/group", "root:x:0:\nvideo:x:44:alice\nrender:x:109:\n");
	fr_facts(root, "id 1000 1000 27\n"
		       "node /dev/nvidiactl c 0666 0 0 195 255\n"
		       "node /dev/nvidia0 c 0660 0 44 195 0\n"
		       "node /dev/nvidia2 c 0660 0 44 195 2\n"
		       "node /dev/nvidia10 c 0660 0 44 195 10\n"
		       "node /dev/nvidia-caps/nvidia-cap1 c 0400 0 0 241 1\n");
	fr_use(root);
	devnodes_collect(&df);
	/* nvidiactl, uvm, uvm-tools (absent), 3 GPU nodes in numeric order, 1 cap */
	CHECK(df.n == 7);
	CHECK(df.ngpu_nodes == 3);
	CHECK_STR(df.nodes[3].path, "/dev/nvidia0");
	CHECK_STR(df.nodes[4].path, "/dev/nvidia2");
	CHECK_STR(df.nodes[5].path, "/dev/nvidia10");
	CHECK(node("/dev/nvidia-modeset") == NULL);
	n = node("/dev/nvidiactl");
	CHECK(n && n->access_rc == 0);
	CHECK_STR(n->group, "root");
	n = node("/dev/nvidia0");
	CHECK(n && n->access_rc == -EACCES);
	CHECK_STR(n->group, "video");
	n = node("/dev/nvidia-uvm");
	CHECK(n && !n->exists && n->access_rc == -ENOENT);
	n = node("/dev/nvidia-caps/nvidia-cap1");
	CHECK(n && n->access_rc == -EACCES);
	CHECK(df.id.uid == 1000 && df.id.ngroups == 1 && df.id.groups[0] == 27);
	fr_free(root);
}

static void in_the_group(void)
{
	char *root = fr_new();

	fr_file(root, "/dev/nvidia0", "");
	fr_facts(root, "id 1000 1000 44\nnode /dev/nvidia0 c 0660 0 44 195 0\n");
	fr_use(root);
	devnodes_collect(&df);
	CHECK(node("/dev/nvidia0") && node("/dev/nvidia0")->access_rc == 0);
	CHECK_STR(node("/dev/nvidia0")->group, ""); /* no /etc/group */
	fr_free(root);
}

static void wsl_and_nothing(void)
{
	char *root = fr_new();

	fr_file(root, "/dev/dxg", "");
	fr_facts(root, "id 1000 1000\n");
	fr_use(root);
	devnodes_collect(&df);
	CHECK(df.dxg);
	CHECK(df.ngpu_nodes == 0);
	CHECK(df.n == 3);
	CHECK(!node("/dev/nvidiactl")->exists);
	fr_free(root);
}

int main(void)
{
	RUN(h200_sample_as_root);
	RUN(user_without_the_group);
	RUN(in_the_group);
	RUN(wsl_and_nothing);
	return TEST_DONE();
}
