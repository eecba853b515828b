# The forms python.c's scanner reads (python_value), in one file: the plain assignment, the
# annotated one, TensorFlow's dict and pair forms, booleans, None, and old X.Y arch lists.
from typing import Optional

__version__ = '2.5.1+cu124'
cuda: Optional[str] = '12.4'
hip: Optional[str] = None
build_info = {'cuda_version': '12.5.1', 'cudnn_version': "9"}
build_info = collections.OrderedDict([('cuda_compute_capabilities', ['3.5', '7.0']), ('is_cuda_build', True)])
is_rocm_build = False
cuda_version_number = "12.5"
