# gpuvet: plain GNU make. `make` builds ./gpuvet and the fake vendor libraries used by replays;
# `make test` runs every test and ends with "N passed, N failed"; `make deps` installs what the
# build needs on Debian/Ubuntu (dnf on Fedora/RHEL). See README.md.

CC      ?= gcc
O       ?= build
WERROR  ?= 0
SANITIZE ?=

CSTD     = -std=c11
WARN     = -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN    += -Werror
endif
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -fno-strict-aliasing
LDLIBS  += -ldl -lpthread -lm
# monitor: `gpuvet top` (src/tui/tui.c) uses ncursesw, linked dynamically (the H200 machines
# have libncursesw.so.6 but no headers; build deps: libncurses-dev on Debian/Ubuntu)
LDLIBS  += -lncursesw
# history: `gpuvet history` and --history (src/history/) keep their database with SQLite, linked
# dynamically (GPU machines have libsqlite3.so.0 but no headers; build deps: libsqlite3-dev)
LDLIBS  += -lsqlite3

# A sanitizer report stops the program (UBSan would print and carry on), so it fails the test or
# fuzz run that hit it.
ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

# jansson: linked statically when the archive exists, so the binary runs where only the
# NVIDIA driver is installed (the H200 machines have no libjansson).
JANSSON_A := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libjansson.a /usr/lib64/libjansson.a /usr/lib/libjansson.a /usr/lib/aarch64-linux-gnu/libjansson.a))
ifneq ($(JANSSON_A),)
JANSSON_LIB = $(JANSSON_A)
else
JANSSON_LIB = -ljansson
endif

# serve (issue 13): libmicrohttpd and libyaml linked statically when their archives exist, like
# jansson, so the binary needs only libgnutls (libmicrohttpd's TLS) and libcrypt (bcrypt of the
# web config's users) besides what it needed before
MHD_A  := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libmicrohttpd.a /usr/lib64/libmicrohttpd.a /usr/lib/libmicrohttpd.a /usr/lib/aarch64-linux-gnu/libmicrohttpd.a))
YAML_A := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libyaml.a /usr/lib64/libyaml.a /usr/lib/libyaml.a /usr/lib/aarch64-linux-gnu/libyaml.a))
SERVE_LIBS = $(if $(MHD_A),$(MHD_A),-lmicrohttpd) $(if $(YAML_A),$(YAML_A),-lyaml) -lgnutls -lcrypt

SRC := $(filter-out src/kernels/%,$(wildcard src/*.c src/*/*.c))
OBJ := $(SRC:%.c=$(O)/%.o)
LIB_SRC := $(filter-out src/main.c src/cmd/%,$(SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
# gpuvet-serve: `gpuvet serve` in an executable of its own (src/cmd/serve_exec.c says why): the
# same objects with serve.c, the HTTP server and --web-config instead of the stand-in, linked
# with libmicrohttpd, libyaml, gnutls and libcrypt, which gpuvet itself then does without
SERVE_BIN := $(O)/gpuvet-serve
SERVE_ONLY_OBJ := $(O)/src/cmd/serve.o $(O)/src/serve/http.o $(O)/src/serve/webconfig.o
MAIN_OBJ := $(filter-out $(SERVE_ONLY_OBJ),$(OBJ))
SERVE_OBJ := $(filter-out $(O)/src/cmd/serve_exec.o,$(OBJ))

FAKE_CFLAGS = $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden
REPLAY_LIBS = $(O)/replay/libnvidia-ml.so.1 $(O)/replay/libcuda.so.1

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

BIN = $(O)/gpuvet

.DEFAULT_GOAL := all

# ---- GPU kernels of `gpuvet bench` (src/kernels/*.cu) -----------------------------------------
# With a working nvcc (on PATH, or NVCC=/path/to/nvcc) every .cu file goes into one fatbin with
# machine code for each real architecture `nvcc --list-gpu-code` names plus PTX of the newest,
# embedded in the binary as a byte array; NVCC_ARCHS="90" narrows the list for quick builds.
# Without nvcc (or with NVCC=false) image_stub.c is linked instead and `gpuvet bench` says how to
# get the kernels. The choice is made at link time (src/kernels/image.h).
NVCC ?= nvcc
NVCC_OK := $(shell $(NVCC) --version >/dev/null 2>&1 && echo yes)
KERNEL_SRC := $(sort $(wildcard src/kernels/*.cu))
KERNEL_HDR := $(wildcard src/kernels/*.h)
ifeq ($(NVCC_OK),yes)
NVCC_ARCHS ?= $(shell $(NVCC) --list-gpu-code 2>/dev/null | sed -n 's/^sm_//p' | sort -n | tr '\n' ' ')
NVCC_PTX := $(lastword $(NVCC_ARCHS))
NVCC_GENCODE := $(foreach a,$(NVCC_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(NVCC_PTX),code=compute_$(NVCC_PTX)
NVCC_FLAGS ?= -O3 -std=c++17 -Xfatbin=-compress-all
KERNEL_OBJ := $(O)/kernels/image.o
else
KERNEL_OBJ := $(O)/kernels/image_stub.o
endif

$(O)/kernels/all.cu: $(KERNEL_SRC)
	@mkdir -p $(dir $@)
	@for f in $(KERNEL_SRC); do echo "#include \"$$f\""; done >$@

$(O)/kernels/gpuvet.fatbin: $(O)/kernels/all.cu $(KERNEL_SRC) $(KERNEL_HDR)
	$(NVCC) -fatbin $(NVCC_FLAGS) -I. -Isrc/kernels $(NVCC_GENCODE) -o $@ $<

$(O)/kernels/image.c: $(O)/kernels/gpuvet.fatbin scripts/embed-fatbin.sh
	sh scripts/embed-fatbin.sh $< "$(strip $(NVCC_ARCHS))" "$$($(NVCC) --version | grep -o 'release.*' | head -1)" >$@.tmp
	@mv $@.tmp $@

$(O)/kernels/image.o: $(O)/kernels/image.c src/kernels/image.h
	$(CC) $(CFLAGS) -I. -c $< -o $@

$(O)/kernels/image_stub.o: src/kernels/image_stub.c src/kernels/image.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
# ---- end of the GPU kernels block ----------------------------------------------------------------

.PHONY: all build-only test test-unit test-cli test-gpu asan deps clean format fuzz fuzz-build

# The binary is built in $(O)/; the default build also puts a copy at ./gpuvet.
all: build-only
ifeq ($(O),build)
	@cp -f $(BIN) gpuvet
	@cp -f $(SERVE_BIN) gpuvet-serve
endif

build-only: $(BIN) $(SERVE_BIN) $(REPLAY_LIBS)

$(BIN): $(MAIN_OBJ) $(KERNEL_OBJ)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(MAIN_OBJ) $(KERNEL_OBJ) $(JANSSON_LIB) $(LDLIBS)

$(SERVE_BIN): $(SERVE_OBJ) $(KERNEL_OBJ)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(SERVE_OBJ) $(KERNEL_OBJ) $(JANSSON_LIB) $(SERVE_LIBS) $(LDLIBS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# fit's CPU side is the baseline the GPU is judged against: let the compiler vectorise it
$(O)/src/bench/cpu.o: CFLAGS += -O3

$(O)/replay/libnvidia-ml.so.1: tests/nvml-replay/fake_nvml.c tests/nvml-replay/replay_table.c tests/nvml-replay/replay_table.h src/vendor/nvml.h
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ tests/nvml-replay/fake_nvml.c tests/nvml-replay/replay_table.c

$(O)/replay/libcuda.so.1: tests/nvml-replay/fake_cuda.c tests/nvml-replay/replay_table.c tests/nvml-replay/replay_table.h src/vendor/cuda.h
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libcuda.so.1 -o $@ tests/nvml-replay/fake_cuda.c tests/nvml-replay/replay_table.c

# Each test program is compiled and linked in one step; -MMD writes what it included (test.h,
# fakeroot.h, the headers under src/) to $@.d, read back at the end of this file, so a changed
# header rebuilds the programs that include it.
$(O)/tests/%: tests/unit/%.c tests/unit/test.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D_GNU_SOURCE -Isrc -MMD -MP -MF $@.d -MT $@ -o $@ $< $(UNIT_EXTRA) $(LIB_OBJ) \
		$(LDFLAGS) $(JANSSON_LIB) $(SERVE_LIBS) $(LDLIBS)

# test_burn_html checks a page built in cmd/, which the library objects leave out
BURN_HTML_OBJ = $(O)/src/cmd/burn_html.o $(O)/src/cmd/html.o
$(O)/tests/test_burn_html: $(BURN_HTML_OBJ)
$(O)/tests/test_burn_html: UNIT_EXTRA = $(BURN_HTML_OBJ)

# A CPU-backed libcuda, libnccl and libcublasLt that let bench run end to end in CI
# (tests/bench/fakegpu; tests/cli/bench_fakegpu.sh).
FAKEGPU_DIR = $(O)/fakegpu
FAKEGPU_LIBS = $(FAKEGPU_DIR)/libcuda.so.1 $(FAKEGPU_DIR)/libnccl.so.2 $(FAKEGPU_DIR)/libcublasLt.so.13
FAKEGPU_DEPS = tests/bench/fakegpu/fake_types.c tests/bench/fakegpu/fake_types.h src/kernels/pattern.h \
	src/kernels/memtest_pattern.h

$(FAKEGPU_DIR)/libcuda.so.1: tests/bench/fakegpu/fake_cuda.c $(FAKEGPU_DEPS) src/vendor/cuda.h
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libcuda.so.1 -o $@ $< tests/bench/fakegpu/fake_types.c -lm

$(FAKEGPU_DIR)/libnccl.so.2: tests/bench/fakegpu/fake_nccl.c
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libnccl.so.2 -o $@ $<

$(FAKEGPU_DIR)/libcublasLt.so.13: tests/bench/fakegpu/fake_cublaslt.c $(FAKEGPU_DEPS) src/vendor/cublaslt.h
	@mkdir -p $(dir $@)
	$(CC) $(FAKE_CFLAGS) -shared -Wl,-soname,libcublasLt.so.13 -o $@ $< tests/bench/fakegpu/fake_types.c

test: all $(UNIT_BIN) $(FAKEGPU_LIBS)
	@O=$(O) sh tests/run.sh

test-unit: $(UNIT_BIN)
	@O=$(O) sh tests/run.sh unit

test-cli: all $(FAKEGPU_LIBS)
	@O=$(O) sh tests/run.sh cli

# The tests that need a real NVIDIA GPU; elsewhere they say why they are skipped.
test-gpu: all
	@O=$(O) sh tests/gpu/run.sh

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer, in its own folder. A
# report stops the program with exit code 86, which no gpuvet command uses (the default, 1, is
# also doctor's "warnings"), and is written under build-asan/sanitizer/, where tests/run.sh
# looks after each test: it fails the test it came from, even one that expects a failure. (gcc's
# UBSan ignores log_path and reports on stderr; clang's writes the file too.)
SAN_OPTIONS = log_path=$(CURDIR)/build-asan/sanitizer/report:exitcode=86
asan:
	@rm -rf build-asan/sanitizer && mkdir -p build-asan/sanitizer
	ASAN_OPTIONS=$(SAN_OPTIONS) UBSAN_OPTIONS=$(SAN_OPTIONS):print_stacktrace=1 \
		$(MAKE) O=build-asan SANITIZE=address,undefined OPT="-O1 -g" test

# Fuzz the parsers of untrusted input with libFuzzer (clang needed): the recording loader, the
# facts file, the kernel log, the Python literal scanner, /etc/ld.so.cache and field lists, each
# for FUZZ_SECONDS (FUZZ_JOBS at a time, default: one per CPU). The library objects are built
# with coverage instrumentation so libFuzzer sees into them; tests/fuzz/run.sh cuts the seeds
# from the scenarios, prints each target's coverage and speed, and fails on a crash or on
# coverage below the target's floor (tests/fuzz/floors). Ends with "N passed, M failed".
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := recording facts kmsg pyscan ldcache fields
fuzz:
	$(MAKE) O=build-fuzz CC=clang SANITIZE=fuzzer-no-link,address,undefined OPT="-O1 -g" fuzz-build
	@O=build-fuzz sh tests/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-build: $(FUZZ_TARGETS:%=$(O)/fuzz_%) $(O)/fuzz_seeds

$(O)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJ)
	$(CC) $(CFLAGS) -D_GNU_SOURCE -Isrc -fsanitize=fuzzer -o $@ $< $(LIB_OBJ) $(LDFLAGS) \
		$(JANSSON_LIB) $(SERVE_LIBS) $(LDLIBS)

$(O)/fuzz_seeds: tests/fuzz/seeds.c tests/unit/ldcache_gen.h $(LIB_OBJ)
	$(CC) $(CFLAGS) -D_GNU_SOURCE -Isrc -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(JANSSON_LIB) $(SERVE_LIBS) $(LDLIBS)

# ---- install (issue 10) -------------------------------------------------------------------------
# `make install PREFIX=/usr DESTDIR=/tmp/root`: the binary, the fake NVML/CUDA libraries that
# --replay loads (the binary looks in <its folder>/../lib/gpuvet/replay, so bindir and pkglibdir
# must stay siblings under PREFIX), man pages made from --help by scripts/mkman.sh, completions
# for bash, zsh and fish (one engine, completions/gpuvet-complete.sh), the docs and two example
# recordings. `make
# uninstall` with the same PREFIX and DESTDIR removes them; `make deb` builds a Debian package
# from such a tree (scripts/mkdeb.sh). tests/cli/install.sh runs all three.
PREFIX      ?= /usr/local
bindir      ?= $(PREFIX)/bin
pkglibdir   ?= $(PREFIX)/lib/gpuvet
mandir      ?= $(PREFIX)/share/man
docdir      ?= $(PREFIX)/share/doc/gpuvet
bashcompdir ?= $(PREFIX)/share/bash-completion/completions
zshcompdir  ?= $(PREFIX)/share/zsh/site-functions
fishcompdir ?= $(PREFIX)/share/fish/vendor_completions.d
MAN_DIR      = $(O)/man
INSTALL     ?= install
INSTALL_DOCS = README.md LICENSE $(wildcard docs/*.md)
# two recordings to try gpuvet on without a GPU: gpuvet --replay $(docdir)/examples/h200x2.json top
INSTALL_EXAMPLES = tests/scenarios/h200x1.json tests/scenarios/h200x2.json

.PHONY: man install uninstall deb FORCE
man: $(MAN_DIR)/.stamp

FORCE:

# the pages name the docs folder, so a new PREFIX remakes them
$(MAN_DIR)/.docdir: FORCE
	@mkdir -p $(MAN_DIR)
	@echo '$(docdir)' | cmp -s - $@ || echo '$(docdir)' >$@

$(MAN_DIR)/.stamp: $(BIN) $(SERVE_BIN) scripts/mkman.sh $(wildcard man/*.inc) $(MAN_DIR)/.docdir
	sh scripts/mkman.sh $(BIN) $(MAN_DIR) '$(docdir)'
	@touch $@

install: build-only man
	$(INSTALL) -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(pkglibdir)/replay' '$(DESTDIR)$(mandir)/man1' \
		'$(DESTDIR)$(docdir)/cmd' '$(DESTDIR)$(docdir)/examples' '$(DESTDIR)$(bashcompdir)' \
		'$(DESTDIR)$(zshcompdir)' '$(DESTDIR)$(fishcompdir)'
	$(INSTALL) -m 755 $(BIN) '$(DESTDIR)$(bindir)/gpuvet'
	$(INSTALL) -m 755 $(SERVE_BIN) '$(DESTDIR)$(pkglibdir)/gpuvet-serve'
	$(INSTALL) -m 644 $(REPLAY_LIBS) '$(DESTDIR)$(pkglibdir)/replay/'
	$(INSTALL) -m 644 completions/gpuvet-complete.sh '$(DESTDIR)$(pkglibdir)/complete.sh'
	$(INSTALL) -m 644 $(MAN_DIR)/*.1 '$(DESTDIR)$(mandir)/man1/'
	$(INSTALL) -m 644 $(INSTALL_DOCS) '$(DESTDIR)$(docdir)/'
	$(INSTALL) -m 644 docs/cmd/*.md '$(DESTDIR)$(docdir)/cmd/'
	$(INSTALL) -m 644 $(INSTALL_EXAMPLES) '$(DESTDIR)$(docdir)/examples/'
	$(INSTALL) -m 644 completions/gpuvet.bash '$(DESTDIR)$(bashcompdir)/gpuvet'
	$(INSTALL) -m 644 completions/_gpuvet '$(DESTDIR)$(zshcompdir)/_gpuvet'
	$(INSTALL) -m 644 completions/gpuvet.fish '$(DESTDIR)$(fishcompdir)/gpuvet.fish'

# gpuvet's own folders go whole; in shared ones only gpuvet's files (every gpuvet*.1 page, so a
# page of a command since removed goes too); shared folders stay, even empty
uninstall:
	rm -f '$(DESTDIR)$(bindir)/gpuvet' '$(DESTDIR)$(bashcompdir)/gpuvet' \
		'$(DESTDIR)$(zshcompdir)/_gpuvet' '$(DESTDIR)$(fishcompdir)/gpuvet.fish' \
		'$(DESTDIR)$(mandir)/man1/gpuvet.1' '$(DESTDIR)$(mandir)/man1'/gpuvet-*.1
	rm -rf '$(DESTDIR)$(pkglibdir)' '$(DESTDIR)$(docdir)'

# gpuvet_<version>_<arch>.deb in $(O)/, from an install tree with PREFIX=/usr
deb: build-only
	rm -rf $(O)/deb-root
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR='$(CURDIR)/$(O)/deb-root'
	sh scripts/mkdeb.sh $(O)/deb-root $(O)
# ---- end of the install block --------------------------------------------------------------------

deps:
	sh scripts/install-deps.sh

format:
	clang-format -i $(SRC) $(wildcard src/*/*.h tests/unit/*.c tests/nvml-replay/*.c)

# every build folder: build/ and the build-*/ of asan, fuzz, the clang build of .ci/run, ...
clean:
	rm -rf build $(wildcard build-*) gpuvet

-include $(OBJ:.o=.d) $(UNIT_BIN:=.d)
