/*
 * fuzz_pyscan.c: libFuzzer target for the Python literal scanner (host/python.c) that reads
 * torch/version.py and TensorFlow's build_info.py without running Python: each input is a
 * source file, scanned for every key python_collect asks for, and an arch list found in it is
 * parsed as TensorFlow's. Seeds: the .py files of the scenarios and tests/fuzz/seeds/pyscan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"__version__",	"cuda",		 "hip",		  "cuda_version",
		"cuda_version_number", "cudnn_version", "cudnn_version_number",
		"cuda_compute_capabilities", "is_rocm_build", "is_cuda_build",
	};
	char *text = malloc(size + 1);
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		/* python.c passes 64 (torch), 256 (TensorFlow) and 8 (booleans) */
		char small[8], mid[64], big[256], archs[160];

		python_value(text, keys[i], small, sizeof(small));
		python_value(text, keys[i], mid, sizeof(mid));
		if (python_value(text, keys[i], big, sizeof(big)) == 1)
			python_tf_archs(big, archs, sizeof(archs));
	}
	free(text);
	return 0;
}
