# gpuctl - control tool for programmable GPU memory and scheduling policy.
# `make help` lists the targets; plain `make` builds gpuctl, its man pages
# and the hint library.
VERSION     := 0.1.0
PREFIX      ?= /usr/local
DESTDIR     ?=
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
COMPLDIR    ?= $(PREFIX)/share/bash-completion/completions
LIBDIR      ?= $(PREFIX)/lib
INCDIR      ?= $(PREFIX)/include

CC          ?= cc
CLANG       ?= clang
BPFTOOL     ?= bpftool
ARCH_INC    := /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)

CFLAGS      ?= -O2 -g
CFLAGS      += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -Icmd -Icmd/lib -Icmd/drv -Ibpf -Ihint -Ibuild -DGPUCTL_VERSION='"$(VERSION)"'
LDLIBS      := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lelf -lcap -lreadline -lmicrohttpd -lpthread -lm
BPF_CFLAGS  := -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(ARCH_INC) -Ikernel-patch/nvidia-uvm -Icmd/drv \
               -Wall -Wextra -Werror -Wno-unused-parameter

BPF_SRCS    := $(wildcard bpf/*.bpf.c)
BPF_OBJS    := $(patsubst bpf/%.bpf.c,build/%.bpf.o,$(BPF_SRCS))
SKELS       := $(patsubst bpf/%.bpf.c,build/%.skel.h,$(BPF_SRCS))
# The engine's built-in policies: only their objects' bytes (bpf/pfengine_abi.h).
SKELS       += $(patsubst bpf/%.bpf.c,build/%.elf.h,$(wildcard bpf/engine_*.bpf.c))
CMD_SRCS    := $(wildcard cmd/*.c cmd/*/*.c cmd/*/*/*.c)
CMD_HDRS    := $(wildcard cmd/*.h cmd/*/*.h cmd/*/*/*.h bpf/*.h hint/*.h)
MAN_SRCS    := $(wildcard man/*.rst)
MANS        := $(patsubst man/%.rst,build/man/%,$(MAN_SRCS))

all: gpuctl man libgpuctl-hint.so

# Every recipe line runs in bash with pipefail: a pipe fails when any of its
# commands does (bpftool's failure is not hidden behind sed's success).
SHELL       := /bin/bash
.SHELLFLAGS := -o pipefail -c

# $(call write,COMMAND): COMMAND's standard output becomes $@ only when the
# command succeeded and wrote something; otherwise no $@ (and no $@.tmp) is
# left behind, so the next make runs the rule again.
comma := ,
write = { $(1); } > $@.tmp || { rm -f $@.tmp; exit 1; }; \
	if [ ! -s $@.tmp ]; then rm -f $@.tmp; echo "Error: $@: $(firstword $(1)) wrote nothing" >&2; exit 1; fi; \
	mv -f $@.tmp $@

# ------------------------------------------------------------ the tools
# Before anything compiles, check-tools names every tool and library the
# goals given need that is missing: one "Error:" line each, with the Debian
# package (`make deps` installs them all).  TOOLS_* list what a goal needs.
GOALS       := $(patsubst check-tools,all,$(or $(MAKECMDGOALS),all))
TOOLS_BPF   := cc clang bpftool pkg-config libbpf libelf libcap readline libmicrohttpd
TOOLS       := $(sort \
	$(if $(filter all gpuctl gpuctl-static static gpuctl-asan asan install image \
		bench/prefetch_engine/decide bench/prefetch_engine/decide-static bench-watch-alt,$(GOALS)),$(TOOLS_BPF)) \
	$(if $(filter all man install,$(GOALS)),rst2man) \
	$(if $(filter all hint libgpuctl-hint.so install,$(GOALS)),cc) \
	$(if $(filter test-policies,$(GOALS)),clang python3))
tool_cmd     = $(or $(if $(filter cc,$(1)),$(firstword $(CC))),$(if $(filter clang,$(1)),$(firstword $(CLANG))),$(if $(filter bpftool,$(1)),$(firstword $(BPFTOOL))),$(1))
tool_pkg_cc            := build-essential
tool_pkg_clang         := clang
tool_pkg_bpftool       := bpftool (bookworm-backports)
tool_pkg_pkg-config    := pkg-config
tool_pkg_rst2man       := python3-docutils
tool_pkg_python3       := python3
tool_pkg_libbpf        := libbpf-dev (bookworm-backports, 1.4 or later)
tool_pkg_libelf        := libelf-dev
tool_pkg_libcap        := libcap-dev
tool_pkg_readline      := libreadline-dev
tool_pkg_libmicrohttpd := libmicrohttpd-dev
TOOL_PROGS  := cc clang bpftool pkg-config rst2man python3
LIBBPF_MIN  := 1.4

check-tools:
	@missing=0; \
	$(foreach t,$(filter $(TOOL_PROGS),$(TOOLS)),\
	command -v '$(call tool_cmd,$(t))' >/dev/null 2>&1 || { missing=1; \
		echo "Error: $(call tool_cmd,$(t)) not found in PATH (Debian: $(tool_pkg_$(t)))" >&2; };) \
	$(if $(filter-out $(TOOL_PROGS),$(TOOLS)),if command -v pkg-config >/dev/null 2>&1; then \
	$(foreach t,$(filter-out $(TOOL_PROGS),$(TOOLS)),\
	pkg-config --exists '$(t)$(if $(filter libbpf,$(t)), >= $(LIBBPF_MIN))' || { missing=1; \
		echo "Error: $(t)$(if $(filter libbpf,$(t)), $(LIBBPF_MIN) or later) not found by pkg-config (Debian: $(tool_pkg_$(t)))" >&2; };) \
	fi;) \
	if [ $$missing = 1 ]; then echo "Error: install the above (all of them: make deps), then run make again" >&2; exit 1; fi

build build/man:
	mkdir -p $@

build/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) cmd/drv/rm.h kernel-patch/nvidia-uvm/uvm_bpf_ext.h | build check-tools
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# bpftool 7.5 emits map->link, which libbpf 1.4 headers lack: drop that line.
build/%.skel.h: build/%.bpf.o
	$(call write,$(BPFTOOL) gen skeleton $< name $* | sed '/map->link = /d')

# (grep .: a skeleton without the function gives no header at all.)
build/engine_%.elf.h: build/engine_%.skel.h
	$(call write,echo '#include <stddef.h>'; sed -n '/^static inline const void \*engine_$*__elf_bytes(size_t \*sz)$$/$(comma)/^}/p' $< | grep .)

gpuctl: $(CMD_SRCS) $(CMD_HDRS) $(SKELS) | check-tools
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(CMD_SRCS) $(LDFLAGS) $(LDLIBS)

# A static gpuctl for any x86-64 Linux (as bpftool's releases are):
# packaging/static/deps.sh builds the two libraries Debian ships unusable
# for static linking; the others are Debian's own .a files.
STATIC_PREFIX := build/static/prefix
STATIC_LIBS := -L$(STATIC_PREFIX)/lib -l:libbpf.a -l:libelf.a -lz -lzstd -lcap -lreadline -ltinfo \
	-l:libmicrohttpd.a -lpthread -lm
# One recipe makes both (a grouped target): make -j2 runs deps.sh once.
$(STATIC_PREFIX)/lib/libmicrohttpd.a $(STATIC_PREFIX)/lib/libelf.a &: packaging/static/deps.sh
	packaging/static/deps.sh

gpuctl-static: $(CMD_SRCS) $(CMD_HDRS) $(SKELS) $(STATIC_PREFIX)/lib/libmicrohttpd.a $(STATIC_PREFIX)/lib/libelf.a
	$(CC) $(CFLAGS) -DGPUCTL_STATIC -I$(STATIC_PREFIX)/include -static -o $@ $(CMD_SRCS) $(LDFLAGS) $(STATIC_LIBS)

# Static sanitizer runtimes: the shared libubsan ignores UBSAN_OPTIONS=log_path
# next to libasan (reports would go to stderr only), and the VM then needs no
# libasan/libubsan.
gpuctl-asan: $(CMD_SRCS) $(CMD_HDRS) $(SKELS) Makefile
	$(CC) $(CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined -static-libasan -static-libubsan \
		-o $@ $(CMD_SRCS) $(LDFLAGS) $(LDLIBS)

asan: gpuctl-asan

# The LC hint library (hint/gpuctl_hint.h): LC processes load it, gpuctl does not.
libgpuctl-hint.so: hint/gpuctl_hint.c hint/gpuctl_hint.h | check-tools
	$(CC) $(CFLAGS) -shared -fPIC -o $@ hint/gpuctl_hint.c -lpthread

hint: libgpuctl-hint.so

man: $(MANS)

build/man/%: man/%.rst | build/man check-tools
	$(call write,rst2man --halt=warning $<)

model:
	$(MAKE) -C tests/model
	$(MAKE) -C tests/tools

# BPF objects the tests load as users' own policies (.elf: the VM copy skips *.o).
TEST_POLICIES := $(patsubst %.bpf.c,%.elf,$(wildcard tests/policies/*.bpf.c))
tests/policies/%.elf: tests/policies/%.bpf.c $(wildcard bpf/*.h) kernel-patch/nvidia-uvm/uvm_bpf_ext.h
	$(CLANG) $(BPF_CFLAGS) -Ibpf -c $< -o $@
# The example as a user built it against ABI 1 before ALLOC/FREE/GAP and PFE_WANTS.
tests/policies/engine_example_v1.elf: tests/policies/engine_example.bpf.c tests/policies/abi_v1/pfengine_abi.h
	$(CLANG) $(BPF_CFLAGS) -Itests/policies/abi_v1 -c $< -o $@
TEST_POLICIES += tests/policies/engine_example_v1.elf
# Users' objects of every odd shape for tests/vm/t_policy_elf*.sh (tests/policies/fuzz.py).
tests/policies/fuzz/MANIFEST: tests/policies/fuzz.py $(wildcard bpf/*.h) kernel-patch/nvidia-uvm/uvm_bpf_ext.h
	rm -rf tests/policies/fuzz
	python3 tests/policies/fuzz.py tests/policies/fuzz $(CLANG) $(BPF_CFLAGS) -Ibpf
test-policies: $(TEST_POLICIES) tests/policies/fuzz/MANIFEST

install: gpuctl man libgpuctl-hint.so
	install -D -m 0755 gpuctl $(DESTDIR)$(SBINDIR)/gpuctl
	install -D -m 0755 libgpuctl-hint.so $(DESTDIR)$(LIBDIR)/gpuctl/libgpuctl-hint.so
	install -D -m 0644 hint/gpuctl_hint.h $(DESTDIR)$(INCDIR)/gpuctl_hint.h
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man8/
	install -D -m 0644 bash-completion/gpuctl $(DESTDIR)$(COMPLDIR)/gpuctl

# What a fresh Debian bookworm machine needs to build, test and demo: apt
# packages, and the VM's kernel + headers unpacked into /var/cache/gpuctl/vm
# (no kernel is installed on the host).  test, demo and bench check first
# (about a second when all is there) and install what is missing; `make deps`
# also runs apt-get update and takes the newest.  NODEPS=1 skips the check.
deps:
	tests/deps.sh --update

need-deps:
	$(if $(filter 1,$(NODEPS)),@:,tests/deps.sh)

# TEST_JOBS lanes at once (tests/run -j): the unit scripts in one, the VM
# scripts split over guests of their own (one host thread and 1-2 GiB each):
# the CPUs, 4 at most.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 4 ] && n=4; echo $$n)
test: need-deps
	$(MAKE) all model test-policies bench-watch-alt
	tests/run -j$(TEST_JOBS)

# The VM tests again with gpuctl-asan (ASan + UBSan) as gpuctl: sanitizer
# reports go to files in the guest's $(SAN_DIR), and tests/vm/all.sh fails the
# test during which one appeared (CI runs this after make test).
SAN_DIR  := /tmp/gpuctl-san
SAN_ENV  := GPUCTL_SAN_DIR=$(SAN_DIR) \
	ASAN_OPTIONS=log_path=$(SAN_DIR)/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=log_path=$(SAN_DIR)/ubsan:print_stacktrace=1:halt_on_error=1
test-asan: need-deps
	$(MAKE) gpuctl-asan model test-policies bench-watch-alt
	GPUCTL_BIN=$(CURDIR)/gpuctl-asan VM_ENV="$(SAN_ENV) $(VM_ENV)" tests/run -j$(TEST_JOBS) --vm-only

demo: need-deps
	$(MAKE) gpuctl model
	tests/vm/run tests/vm/demo.sh

bench: need-deps
	$(MAKE) gpuctl model bench/prefetch_engine/decide
	bench/run

# The engine's decision cost (bench/prefetch_engine/decide.c): root, no GPU.
DECIDE_SRCS := bench/prefetch_engine/decide.c cmd/pfengine/bpfrun.c cmd/pfengine/btfvar.c cmd/pfengine/objcheck.c cmd/pfengine/mapcost.c cmd/drv/uvm_maps.c cmd/drv/uvm.c cmd/lib/output.c cmd/lib/units.c cmd/lib/param.c cmd/lib/json_writer.c cmd/lib/text.c cmd/lib/clock.c cmd/lib/trustfile.c
bench/prefetch_engine/decide: $(DECIDE_SRCS) $(CMD_HDRS) $(SKELS)
	$(CC) $(CFLAGS) -o $@ $(DECIDE_SRCS) $(LDFLAGS) $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
bench/prefetch_engine/decide-static: $(DECIDE_SRCS) $(CMD_HDRS) $(SKELS) $(STATIC_PREFIX)/lib/libelf.a
	$(CC) $(CFLAGS) -static -o $@ $(DECIDE_SRCS) $(LDFLAGS) -L$(STATIC_PREFIX)/lib -l:libbpf.a -l:libelf.a -lz -lzstd

# A same-run A/B of the prefetch engine against git ref REF (bench/ab/README.md):
# builds REF's and the tree's static gpuctl into bench/ab/bin/ and prints the
# command for the GPU machine.  DRY=1: builds nothing, prints the plan and
# checks the scripts (bench/ab/build.sh --dry-run, bench/ab/run.sh --dry-run).
# REF reaches the scripts through the environment, never through the shell's
# parsing of the recipe: a quote in it is a character of the ref, not code.
bench-ab: export GPUCTL_AB_REF := $(value REF)
bench-ab: export GPUCTL_AB_OLD := $(value OLD)
bench-ab:
	@$(if $(value REF),:,echo "Error: give REF=<git ref>, e.g. make bench-ab REF=main" >&2; exit 2)
	$(if $(filter 1,$(DRY)),bench/ab/build.sh --dry-run "$$GPUCTL_AB_REF" $${GPUCTL_AB_OLD:+"$$GPUCTL_AB_OLD"} && bench/ab/run.sh --dry-run $(AB_ARGS),bench/ab/build.sh "$$GPUCTL_AB_REF" $${GPUCTL_AB_OLD:+"$$GPUCTL_AB_OLD"})

# Issue 40's alternatives to the allocation watcher (bench/watch_alt/README.md):
# the preload shim, the resolver of libcuda's offsets, the uprobe counter
# (static, as gpuctl-static: the GPU machine has no libbpf) and the tests'
# fake libcuda.so.1 and its caller, into bench/watch_alt/bin/ (git-ignored:
# carry it).  No CUDA headers: bench/watch_alt/cuda_min.h.
WA_BIN      := bench/watch_alt/bin
WA_CFLAGS   := $(CFLAGS) -Ibench/watch_alt -Ibuild/watch_alt
WA_ALL      := $(WA_BIN)/libwatchalt-shim.so $(WA_BIN)/watch-alt-resolve $(WA_BIN)/watch-alt-uprobe \
               $(WA_BIN)/test/libcuda.so.1 $(WA_BIN)/test/callcuda
bench-watch-alt: $(WA_ALL)
build/watch_alt/uprobe.bpf.o: bench/watch_alt/uprobe.bpf.c bench/watch_alt/uprobe_abi.h | check-tools
	mkdir -p build/watch_alt
	$(CLANG) $(BPF_CFLAGS) -Ibench/watch_alt -c $< -o $@
build/watch_alt/watch_alt_uprobe.skel.h: build/watch_alt/uprobe.bpf.o
	$(call write,$(BPFTOOL) gen skeleton $< name watch_alt_uprobe)
WA_UPROBE   := bench/watch_alt/uprobe.c bench/watch_alt/uprobe_report.c
$(WA_BIN)/watch-alt-uprobe: $(WA_UPROBE) bench/watch_alt/uprobe.h bench/watch_alt/uprobe_abi.h \
		build/watch_alt/watch_alt_uprobe.skel.h $(STATIC_PREFIX)/lib/libelf.a
	mkdir -p $(WA_BIN)
	$(CC) $(WA_CFLAGS) -static -o $@ $(WA_UPROBE) $(LDFLAGS) -L$(STATIC_PREFIX)/lib -l:libbpf.a -l:libelf.a -lz -lzstd
$(WA_BIN)/libwatchalt-shim.so: bench/watch_alt/shim.c bench/watch_alt/cuda_min.h | check-tools
	mkdir -p $(WA_BIN)
	$(CC) $(WA_CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ $< -ldl
$(WA_BIN)/watch-alt-resolve: bench/watch_alt/resolve.c bench/watch_alt/cuda_min.h | check-tools
	mkdir -p $(WA_BIN)
	$(CC) $(WA_CFLAGS) -o $@ $< -ldl
$(WA_BIN)/test/libcuda.so.1: tests/watch_alt/fakecuda.c bench/watch_alt/cuda_min.h | check-tools
	mkdir -p $(WA_BIN)/test
	$(CC) $(WA_CFLAGS) -shared -fPIC -Wl,-soname,libcuda.so.1 -o $@ $<
$(WA_BIN)/test/callcuda: tests/watch_alt/callcuda.c $(WA_BIN)/test/libcuda.so.1
	$(CC) $(WA_CFLAGS) -o $@ $< $(WA_BIN)/test/libcuda.so.1 -ldl

clean:
	rm -rf build gpuctl gpuctl-asan gpuctl-static libgpuctl-hint.so tests/policies/*.elf tests/policies/fuzz \
		bench/prefetch_engine/decide bench/prefetch_engine/decide-static $(WA_BIN)
	$(MAKE) -C tests/model clean
	$(MAKE) -C tests/tools clean

static: gpuctl-static

# The FROM-scratch container image of the static gpuctl (the exporter's
# DaemonSet runs it): an OCI archive built with umoci, no daemon.
image: gpuctl-static
	packaging/container/build.sh

# One line per target a user types (tests/unit/test_build.sh checks that each
# exists and that every `make X` the docs name is here).
help:
	@echo 'Usage: make [TARGET] [VAR=value ...]'
	@echo ''
	@echo 'Build (needs cc, clang, bpftool, pkg-config and libbpf-dev >= $(LIBBPF_MIN),'
	@echo 'libelf-dev, libcap-dev, libreadline-dev, libmicrohttpd-dev, python3-docutils):'
	@echo '  all             (default) gpuctl, the man pages and libgpuctl-hint.so'
	@echo '  gpuctl          the binary only'
	@echo '  man             the man pages (build/man/)'
	@echo '  hint            libgpuctl-hint.so, the LC hint library'
	@echo '  static          gpuctl-static: one static binary for any x86-64 Linux'
	@echo '  asan            gpuctl-asan: gpuctl with ASan and UBSan'
	@echo '  image           the FROM-scratch container image (build/gpuctl-image-$(VERSION).tar)'
	@echo '  install         gpuctl, man pages, hint library, completion (PREFIX=$(PREFIX), DESTDIR=)'
	@echo '  check-tools     name every build tool that is missing, build nothing'
	@echo '  clean           remove what the build made'
	@echo ''
	@echo 'Test and demo (first install what they need, see tests/deps.sh; NODEPS=1 skips that):'
	@echo '  deps            apt-get update, then install the tools and the VM kernel'
	@echo '  test            unit tests on the host and end-to-end tests in a QEMU VM'
	@echo '  test-asan       the VM tests again with gpuctl-asan'
	@echo '  demo            prefetch policies on the UVM model in a VM'
	@echo '  bench           the benchmarks (bench/run)'
	@echo '  bench-ab        REF=<git ref>: an A/B of the prefetch engine (bench/ab/README.md)'
	@echo '  bench-watch-alt the allocation watcher'"'"'s alternatives (bench/watch_alt/README.md)'
	@echo '  model           the UVM model module and test tools'
	@echo '  test-policies   the BPF objects the tests load'

.PHONY: static all hint man model test-policies install deps need-deps test test-asan demo bench bench-ab bench-watch-alt clean asan \
	image help check-tools
.DELETE_ON_ERROR:
.SECONDARY:
