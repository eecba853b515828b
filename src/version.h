/* version.h: gpuvet's version, shown by --version and written into recordings and JSON. */
#ifndef GPUVET_VERSION_H
#define GPUVET_VERSION_H

#define GPUVET_VERSION "0.1.0"

#endif
