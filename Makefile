# Sprite-memory teaching kernel. `make qemu` boots it, `make test` tests it, `make help` lists
# the targets and the variables (MEM, CMDLINE, FILES, FSIMG, ACCEL, TESTS, V, ...); a variable
# given on the command line that is not one of them is named in a warning.
#
# What is given on a command line is what boots, whatever earlier runs gave: the command line
# lives in the ISO's grub.cfg, so the ISO is remade whenever CMDLINE differs from the one it was
# made with (build/cmdline.txt keeps that one); a FILES image is made afresh on every run; MEM
# and FSIMG go straight to QEMU. Nothing given means the defaults, never an earlier run's value.
#
# Host tools are installed when missing (tools/setup/check-tools.sh); the tests and benchmarks run on
# a Python environment of the project's own, build/py (tools/setup/pydeps.py).

MEM     ?= 64
CMDLINE ?=
ACCEL   ?= tcg
FILES   ?=
FSSIZE  ?= 128
JOBS    ?= 2
# make test runs one test worker more than JOBS: a boot test spends a third of its time
# waiting (its throttled disk, its guest's sleeps), and a third worker fills it (on 2 cores:
# 128 % CPU and 8:06 with two workers, 166 % and 7:07 with three). pytest-xdist deals the
# tests one at a time (--maxschedchunk=1), so the long ones started first land on every
# worker rather than all in the first worker's first batch.
TEST_WORKERS ?= $(shell echo $$(($(JOBS) + 1)))
# make test builds on JOBS cores too (on a fresh clone 21 s instead of 42); its tests run with
# MAKEFLAGS cleared, so that a make they start does not look for this one's job slots.
ifneq ($(filter test,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(JOBS)
endif

CROSS   ?= i686-linux-gnu-
CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJCOPY := $(CROSS)objcopy
STRIP   := $(CROSS)strip
HOSTCC  ?= cc
PYTHON  ?= python3

B := build
# The image the tests and benchmarks copy; never booted itself (below, with build/fs.img).
PRISTINE := $(B)/fs-pristine.img

# One short line a step (CC kernel/proc.c), as Linux prints; V=1 prints the full commands.
V ?= 0
ifeq ($(V),1)
Q :=
msg := @true
else
Q := @
msg := @printf '  %-6s %s\n'
endif

# A variable given on the command line that is not one of ours is named, with the one it looks
# like: `make qemu mem=16` or `MEMS=16` would otherwise boot the default memory silently.
OUR_VARS := MEM CMDLINE ACCEL FILES FSIMG FSSIZE JOBS CROSS HOSTCC PYTHON V TESTS BOOTDIR \
  POLICY POLICYFILE MUTANTS_ARGS DURATION N SEED IFS_ARGS ECD_ARGS LINUX_ARGS PAPER_ARGS RESULTS_ARGS \
  DIR LAB GRADE_ARGS ARBITER
GIVEN := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
UNKNOWN_VARS := $(filter-out $(OUR_VARS),$(GIVEN))
looks_like = $(shell u=$$(printf %s '$(1)' | tr a-z A-Z); for k in $(OUR_VARS); do \
  case $$u in ($$k|$$k?|$$k??) echo " (did you mean $$k?)"; break;; esac; \
  case $$k in ($$u?|$$u??) echo " (did you mean $$k?)"; break;; esac; done)
$(foreach v,$(UNKNOWN_VARS),$(warning $(v)=$($(v)) is not a variable of this Makefile$(call looks_like,$(v)); \
  it is ignored (make help lists the variables)))

# Debug info and frame pointers always on, so gdb can break anywhere and walk the stack. A
# table's entry may give only its first fields (the rest are 0, as C says): no warning for it.
COMMON_CFLAGS := -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
  -fno-omit-frame-pointer -mgeneral-regs-only -fno-strict-aliasing -g -O2 \
  -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -nostdinc -MMD -MP
GCCINC = $(shell $(CC) -print-file-name=include 2>/dev/null)
KCFLAGS = $(COMMON_CFLAGS) -isystem $(GCCINC) -I. -Ikernel -DKERNEL
UCFLAGS = $(COMMON_CFLAGS) -isystem $(GCCINC) -Iuser/include -Ikernel
HOSTCFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I.

# scaffold/ is what serves only the tests, the benchmarks and the labs (damage for the audits'
# tests, views, the disk's self-test and ceiling): built into the same kernel, kept off the path
# a reader follows through kernel/, drivers/, fs/ and vm/.
KSRC := $(wildcard kernel/*.S) $(wildcard kernel/*.c kernel/mem/*.c drivers/*.c fs/*.c vm/*.c scaffold/*.c)
KOBJ := $(patsubst %,$(B)/k/%.o,$(KSRC))
ULIBSRC := $(wildcard user/lib/*.c user/lib/*.S)
ULIBOBJ := $(patsubst %,$(B)/u/%.o,$(filter-out user/lib/crt0.S,$(ULIBSRC)))
UPROGS := $(patsubst user/%.c,%,$(wildcard user/*.c))
UBINS := $(addprefix $(B)/user/bin/,$(UPROGS))

HOSTTESTS := $(patsubst tests/host/%.c,$(B)/tests/%,$(wildcard tests/host/test_*.c))

TOOLS_OK := $(B)/.tools-ok
# The project's own Python for the tests and benchmarks (tools/setup/pydeps.py): a virtual environment
# in build/py with pytest, pytest-xdist and matplotlib, whatever python3 the machine has.
PY := $(B)/py/bin/python3
PY_OK := $(B)/py/.ok

# Where `make qemu` puts what it boots (the ISO with the command line, the FILES image). Tests
# give each run a folder of its own so that runs with different variables never share one.
BOOTDIR ?= $(B)
ISO := $(BOOTDIR)/os.iso
export CMDLINE

.PHONY: linux-programs all tracesim traces arbitersim negtraces grade compare-record lab-release trace-cost qemu qemu-gdb gdb gdb-walkthrough debug-kernel test crashtest clean tools iso fsimg programs help compile_commands.json FORCE
all: $(B)/kernel.elf $(ISO) $(B)/fs.img $(PRISTINE) $(B)/mkfs $(B)/fsck $(B)/tracesim $(B)/arbitersim compile_commands.json

# --- host tools: installed if missing (see tools/setup/check-tools.sh) -------------------
$(TOOLS_OK): tools/setup/check-tools.sh
	@bash tools/setup/check-tools.sh
	@mkdir -p $(B) && touch $@
tools:
	@bash tools/setup/check-tools.sh
	@mkdir -p $(B) && touch $(TOOLS_OK)

# --- kernel ------------------------------------------------------------------------------
LIBGCC = $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)
KSYMS = CROSS=$(CROSS) $(PYTHON) tools/setup/ksyms.py

# One kernel's rules: $(1) its folder, $(2) the compiler's flags, $(3) the word make prints,
# $(4) its objects (KSRC's, in $(1)/k).
# Linked twice: the first link (kernel0.elf, an empty symbol table) gives the addresses from
# which tools/setup/ksyms.py makes the table a panic names its backtrace with (kernel/ksyms.c);
# the second links that in, after the code, which therefore does not move (ksyms.py --check).
define KERNEL_RULES
$(1)/k/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $$(dir $$@)
	$$(msg) $(3) $$<
	$$(Q)$$(CC) $(2) -c $$< -o $$@
$(1)/k/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $$(dir $$@)
	$$(msg) $(3) $$<
	$$(Q)$$(CC) $(2) -c $$< -o $$@
$(1)/ksyms0.o: tools/setup/ksyms.py | $(TOOLS_OK)
	@mkdir -p $$(@D)
	$$(msg) KSYMS $$@
	$$(Q)$$(KSYMS) --stub $$(@:.o=.S)
	$$(Q)$$(CC) $(2) -c $$(@:.o=.S) -o $$@
$(1)/kernel0.elf: $(4) $(1)/ksyms0.o linker.ld
	$$(msg) LD $$@
	$$(Q)$$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $$@ $(4) $(1)/ksyms0.o $$(LIBGCC)
$(1)/ksyms.o: $(1)/kernel0.elf tools/setup/ksyms.py
	$$(msg) KSYMS $$@
	$$(Q)$$(KSYMS) $$< $$(@:.o=.S)
	$$(Q)$$(CC) $(2) -c $$(@:.o=.S) -o $$@
$(1)/kernel.elf: $(4) $(1)/ksyms.o linker.ld
	$$(msg) LD $$@
	$$(Q)$$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $$@.tmp $(4) $(1)/ksyms.o $$(LIBGCC)
	$$(msg) CHECK $$@
	$$(Q)$$(KSYMS) --check $(1)/kernel0.elf $$@.tmp
	$$(Q)mv $$@.tmp $$@
endef

$(eval $(call KERNEL_RULES,$(B),$(KCFLAGS),CC,$(KOBJ)))

# The kernel for stepping in gdb (make qemu-gdb): the same sources at -Og in a folder of their
# own, so that `info locals` and `next` work in exec, vm_fault or trap, while make qemu, the
# tests and the benchmarks keep the optimised kernel. Same layout of every structure.
DB := $(B)/debug
DKCFLAGS = $(patsubst -O2,-Og,$(KCFLAGS))
DKOBJ := $(patsubst %,$(DB)/k/%.o,$(KSRC))
$(eval $(call KERNEL_RULES,$(DB),$(DKCFLAGS),CC-Og,$(DKOBJ)))
debug-kernel: $(DB)/kernel.elf

# The ISO holds a stripped kernel; the one with symbols stays in build/ for gdb. cmdline.txt
# is rewritten only when CMDLINE differs from what it holds, and its date remakes the ISO.
# (FORCE must stay phony: .SECONDARY below would otherwise let make skip a missing FORCE.)
$(BOOTDIR)/cmdline.txt: FORCE
	@mkdir -p $(@D); printf '%s\n' "$$CMDLINE" | cmp -s - $@ || printf '%s\n' "$$CMDLINE" > $@
$(ISO): $(B)/kernel.elf $(BOOTDIR)/cmdline.txt tools/setup/grub.cfg.in
	@rm -rf $(BOOTDIR)/iso && mkdir -p $(BOOTDIR)/iso/boot/grub
	$(msg) STRIP $(BOOTDIR)/iso/boot/kernel.elf
	$(Q)$(STRIP) -o $(BOOTDIR)/iso/boot/kernel.elf $(B)/kernel.elf
	@$(PYTHON) -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().replace("@CMDLINE@", open(sys.argv[2]).read().strip()))' \
	  tools/setup/grub.cfg.in $(BOOTDIR)/cmdline.txt > $(BOOTDIR)/iso/boot/grub/grub.cfg
	$(msg) GRUB $@
	$(Q)grub-mkrescue -o $@ $(BOOTDIR)/iso 2> $(BOOTDIR)/grub-mkrescue.log || { cat $(BOOTDIR)/grub-mkrescue.log; exit 1; }
iso: $(ISO)

# --- user programs -------------------------------------------------------------------------
$(B)/u/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(msg) CC $<
	$(Q)$(CC) $(UCFLAGS) -c $< -o $@
$(B)/u/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(msg) CC $<
	$(Q)$(CC) $(UCFLAGS) -c $< -o $@
programs: $(UBINS)
$(B)/user/libc.a: $(ULIBOBJ)
	@mkdir -p $(dir $@)
	$(msg) AR $@
	$(Q)rm -f $@ && $(CROSS)ar rcs $@ $^
$(B)/user/bin/%: $(B)/u/user/%.c.o $(B)/u/user/lib/crt0.S.o $(B)/user/libc.a user/user.ld
	@mkdir -p $(dir $@)
	$(msg) LD $@
	$(Q)$(LD) -m elf_i386 -z noexecstack -T user/user.ld -nostdlib -o $@ $(B)/u/user/lib/crt0.S.o $< $(B)/user/libc.a $(LIBGCC)
.SECONDARY:

# The same programs as 32-bit static Linux programs (user/lib/linux/: Linux's system calls
# under the same library), for the benchmark of Linux beside this kernel (make bench-linux).
# Any user/NAME.c builds as build/linux/bin/NAME; LINUX_PROGS are those the Linux guest's disk
# holds (tools/linux/linuxdisk.py).
LINUX_PROGS := sort toucher mklines cksum wc sampler waitlines memfit $(patsubst user/%.c,%,$(wildcard user/phase.c))
LULIBSRC := $(filter-out user/lib/syscall.c user/lib/vm.c user/lib/crt0.S,$(ULIBSRC)) \
  $(wildcard user/lib/linux/*.c user/lib/linux/*.S)
LULIBOBJ := $(patsubst %,$(B)/lu/%.o,$(filter-out user/lib/linux/crt0.S,$(LULIBSRC)))
LBINS := $(addprefix $(B)/linux/bin/,$(LINUX_PROGS))
$(B)/lu/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(msg) CC-LNX $<
	$(Q)$(CC) $(UCFLAGS) -c $< -o $@
$(B)/lu/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(msg) CC-LNX $<
	$(Q)$(CC) $(UCFLAGS) -c $< -o $@
$(B)/linux/libc.a: $(LULIBOBJ)
	@mkdir -p $(dir $@)
	$(msg) AR $@
	$(Q)rm -f $@ && $(CROSS)ar rcs $@ $^
$(B)/linux/bin/%: $(B)/lu/user/%.c.o $(B)/lu/user/lib/linux/crt0.S.o $(B)/linux/libc.a user/user.ld
	@mkdir -p $(dir $@)
	$(msg) LD-LNX $@
	$(Q)$(LD) -m elf_i386 -z noexecstack -static -T user/user.ld -nostdlib -o $@ $(B)/lu/user/lib/linux/crt0.S.o $< $(B)/linux/libc.a $(LIBGCC)
linux-programs: $(LBINS)

# --- host tools: mkfs and fsck share the on-disk layout with the kernel -----------------------
$(B)/mkfs: mkfs/mkfs.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h) | $(TOOLS_OK)
	@mkdir -p $(B)
	$(msg) HOSTCC $@
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/mkfs.c mkfs/image.c fs/layout.c
$(B)/fsck: mkfs/fsck.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h) | $(TOOLS_OK)
	@mkdir -p $(B)
	$(msg) HOSTCC $@
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/fsck.c mkfs/image.c fs/layout.c
# A host C test is one file, tests/host/test_NAME.c: its line "host-test: FILES" (to the end of
# the line or of the comment) names the pure sources it is compiled with, the very files the
# kernel and the user library compile (globs allowed; user/include is searched as the
# programs' own), and it is rebuilt when they or any header change.
host_test_sources = $(wildcard $(shell sed -n 's/^.*host-test: *//; T; s/ *\*\/.*//; p' tests/host/$(1).c))
.SECONDEXPANSION:
$(B)/tests/test_%: tests/host/test_%.c $$(call host_test_sources,test_$$*) $(wildcard fs/*.h kernel/*.h kernel/mem/*.h vm/*.h user/include/*.h) | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(msg) HOSTCC $@
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -iquote user/include -o $@ $< $(call host_test_sources,test_$*)

include mk/labs.mk

# The kernel's own file-system code, run on the host against mkfs images (tests/host/test_kfs.py).
KFSSRC := $(wildcard tests/host/kfs/*.c) $(wildcard fs/*.c) kernel/pipe.c kernel/cmdline.c kernel/sysctl.c
$(B)/tests/kfs: $(KFSSRC) $(wildcard tests/host/kfs/*.h fs/*.h kernel/*.h kernel/uapi/*.h) kernel/mem/coremap.h drivers/disk.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(msg) CC $@
	$(Q)$(CC) -static -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -I. -Itests/host/kfs -o $@ $(KFSSRC)
HOSTTESTS += $(B)/tests/kfs

# Two images of the same programs. build/fs.img is the disk `make qemu` boots and writes to: what
# a student leaves on it is there at the next boot. $(PRISTINE) is never booted: the tests, the
# benchmarks and the graders each take a private copy of it, so they start from the same disk
# whatever was done at the shell. A changed program remakes both (build/fs.img loses what was
# written on it then); `make fsimg` makes build/fs.img fresh at any time.
$(PRISTINE): $(B)/mkfs $(UBINS)
	$(msg) MKFS $@
	$(Q)$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin
$(B)/fs.img: $(PRISTINE)
	$(Q)cp --sparse=always $< $@
fsimg: $(PRISTINE)
	@cp --sparse=always $(PRISTINE) $(B)/fs.img
	@echo 'fsimg: build/fs.img is a fresh disk (what earlier runs of make qemu wrote on it is gone)'
# make qemu FILES='a.txt dir' makes, on every run, a fresh image that also holds those at its
# root: the guest sees the files as they are now (what it wrote there the run before is gone).
ifneq ($(FILES),)
ifneq ($(FSIMG),)
$(error FILES and FSIMG together: FILES makes an image of its own; leave one of them out)
endif
override FSIMG := $(BOOTDIR)/fs-files.img
$(FSIMG): $(B)/mkfs $(UBINS) FORCE
	@mkdir -p $(@D)
	$(msg) MKFS $@
	$(Q)$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin $(FILES)
else ifeq ($(FSIMG),)
override FSIMG := $(B)/fs.img
endif

# --- running ------------------------------------------------------------------------------
# Checked before anything is built: a bad MEM or a missing FSIMG gives one line, not a hung
# GRUB or make's "No rule to make target".
MEM_MIN := $(shell sed -n 's/^\#define MEM_MIN_MB *\([0-9][0-9]*\).*/\1/p' kernel/memlayout.h)
ifneq ($(filter qemu qemu-gdb,$(MAKECMDGOALS)),)
ifneq ($(shell printf '%s\n' '$(MEM)' | grep -qx '[0-9][0-9]*' && echo ok),ok)
$(error MEM=$(MEM) is not a number: give the guest's memory in MB, e.g. make qemu MEM=16)
endif
ifneq ($(shell [ "$(MEM)" -ge "$(MEM_MIN)" ] 2>/dev/null && echo ok),ok)
$(error MEM=$(MEM): the kernel needs at least $(MEM_MIN) MB of memory; run make qemu MEM=$(MEM_MIN) or more)
endif
ifeq ($(filter $(B)/fs.img $(BOOTDIR)/fs-files.img,$(FSIMG)),)
ifeq ($(wildcard $(FSIMG)),)
$(error FSIMG=$(FSIMG) does not exist: give an image made by $(B)/mkfs (make fsimg makes $(B)/fs.img), or leave FSIMG out)
endif
endif
endif
# A given FSIMG is only used; the default and FILES images are made.
RUNIMG := $(filter $(B)/fs.img $(BOOTDIR)/fs-files.img,$(FSIMG))
RUNQEMU = $(PYTHON) tools/runqemu.py --mem $(MEM) --accel $(ACCEL) --disk $(FSIMG)

# Everything the README's next steps use is built first (the trace simulator of the lab, the
# host tools), so that none of them stops at "missing: run make first".
qemu: all $(ISO) $(RUNIMG)
	@$(RUNQEMU) --iso $(ISO)

# make qemu-gdb boots the -Og kernel ($(DB)/kernel.elf) and waits on a free port of its own
# (printed; tools/runqemu.py --gdb auto), named in $(DB)/gdb.port for make gdb to find.
qemu-gdb: $(DB)/kernel.elf $(RUNIMG)
	@$(RUNQEMU) --kernel $(DB)/kernel.elf --append "$$CMDLINE" --gdb auto --gdb-file $(DB)/gdb.port
gdb: | $(TOOLS_OK)
	@$(PYTHON) tools/gdb/rungdb.py $(DB)/gdb.port
# docs/gdb.md's transcripts, made again by running them (a minute or so)
gdb-walkthrough: $(DB)/kernel.elf $(B)/mkfs $(UBINS) $(PY_OK)
	$(PY) tools/gdb/gdb_walkthrough.py

# --- tests --------------------------------------------------------------------------------
# make test TESTS='tests/qemu/test_gdb.py -k frames' runs some of them, after the same build.
TESTS ?= tests
test: test-build
	MAKEFLAGS= MFLAGS= $(PY) -m pytest -q -n $(TEST_WORKERS) --maxschedchunk=1 --durations=20 $(TESTS)

# Everything the tests use, built and installed, without running them.
.PHONY: test-build mutants results
test-build: all $(UBINS) $(LBINS) $(HOSTTESTS) $(PY_OK) $(DB)/kernel.elf

include mk/reliability.mk

# --- benchmarks: figures printed, written under build/bench (CSV and PNG) and nowhere else.
# The documented tables (docs/results.md) change only through `make results`
# (tools/bench/results.py), which makes them again from those CSVs and refuses a run shorter than
# a table's full one (RESULTS_ARGS=--partial takes it, and the table then says what it lacks). ---
$(PY_OK): tools/setup/pydeps.py
	@$(PYTHON) tools/setup/pydeps.py --dir $(B)/py
	@touch $@
include mk/bench.mk

help:
	@echo 'make                 build everything (kernel, ISO, disk image, programs, host tools)'
	@echo 'make qemu            build, then boot the ISO in QEMU with the shell on this terminal'
	@echo 'make test            host unit tests, then the tests that boot the kernel (JOBS=2 at a time);'
	@echo '                     TESTS='"'"'tests/qemu/test_gdb.py -k frames'"'"' runs some of them after the same build'
	@echo 'make qemu-gdb        boot the -Og kernel (build/debug), QEMU waiting for a debugger on a free port'
	@echo 'make gdb             in another terminal: gdb attached to make qemu-gdb, with the kernel commands'
	@echo '                     (frames, lru, ps, seg, pt, cowlists, negs, negbreak, counters, usym; docs/gdb.md)'
	@echo 'make debug-kernel    only the -Og kernel for gdb (build/debug/kernel.elf)'
	@echo 'make gdb-walkthrough run the gdb sessions of docs/gdb.md again and put their transcripts in it'
	@echo 'make iso             only the GRUB ISO (build/os.iso, with CMDLINE in its grub.cfg)'
	@echo 'make fsimg           a fresh disk for make qemu (build/fs.img made again: what was written on it is gone)'
	@echo 'make programs        only the user programs (build/user/bin)'
	@echo 'make tools           check the host tools and install what is missing'
	@echo 'make test-build      build everything the tests use, without running them'
	@echo 'make traces          record traces/*.trace in the kernel, in the order of use (sort, toucher, ifs, forktree,'
	@echo '                     vmtest, and a session of minutes), then replay'
	@echo 'make grade POLICY=N  the replacement lab'"'"'s grader: policy N on the traces and in the kernel, a score'
	@echo 'make grade DIR=D     grade a class: one directory per student in D (build/grade/D/scores.csv, reports)'
	@echo 'make grade ARBITER=N the arbiter lab'"'"'s grader: kernel/arbiter_N.c replayed on traces/negotiation and in the kernel'
	@echo 'make compare-record  record the kernel passes test_lab_compare replays (traces/compare/; a few minutes)'
	@echo 'make arbitersim      replay traces/negotiation through the reference, global LRU and the 120 s penalty (the proxy, scores)'
	@echo 'make negtraces       record traces/negotiation again in the kernel (IFS and ECD runs with neg.arbiter_record=1)'
	@echo 'make lab-release     the students'"'"' tree (LAB=replacement or arbiter: whose tests) without any solution or word naming one, built and tested'
	@echo 'make trace-cost      what the sampled and the ordered trace cost the traced programs (guest time)'
	@echo 'make tracesim        replay traces/*.trace through every policy and MIN (table, build/traces CSV, PNG)'
	@echo 'make crashtest       power cuts: thousands of crash states from recorded workloads, checked'
	@echo 'make soak            sort, toucher, sysfuzz, forktree and fsstress at once for DURATION s (600),'
	@echo '                     then no panic, audit and fsck clean, frames and disk blocks back (build/soak.log)'
	@echo 'make imgfuzz         corrupted images: N=300 damaged images (SEED=1) booted, checked against fsck;'
	@echo '                     outcomes by kind, build/imgfuzz/imgfuzz.csv, failing images in build/imgfuzz/failed'
	@echo 'make mutants         plant each bug of tests/mutants/catalog.txt alone, run the suite against it'
	@echo '                     (MUTANTS_ARGS='"'"'--area cache -j 2'"'"'; build/mutants.csv; hours for all)'
	@echo 'make bench           every benchmark below; figures printed and written to build/bench, nowhere else'
	@echo 'make bench-boot      boot time: ISO and -kernel, to the first prompt'
	@echo 'make bench-fs        file cache: throughput by transfer size, write policies'
	@echo 'make bench-vm        VM: fault costs, page-in, Irlam'"'"'s table'
	@echo 'make bench-negcost   an untraded negotiation against a cache miss, by penalty mode'
	@echo 'make bench-fork      fork time against resident size (Sprite'"'"'s Table 7-1)'
	@echo 'make bench-ifs       WRL 90/4'"'"'s IFS benchmark (Tables 3, 4): toucher beside sort, penalty 0 and 120 s'
	@echo '                     (IFS_ARGS='"'"'--preset paper --runs 1 --intervals 1,30 -j 2'"'"'; both presets in full: hours)'
	@echo 'make bench-ecd       WRL 90/4'"'"'s edit-compile-debug benchmark (Figures 1-6, Table 2): fixed caches'
	@echo '                     against the variable one, 10-16 MB (the full grid: hours; ECD_ARGS='"'"'--preset short'"'"')'
	@echo 'make bench-linux     the IFS mix under Linux 6.1 (Debian'"'"'s, fetched into build/linux) in the same QEMU, memory'
	@echo '                     free to programs matched to ours (LINUX_ARGS='"'"'--preset short'"'"'; the matched preset: an hour)'
	@echo 'make bench-linux-ecd the ECD benchmark under Linux 6.1 at Sprite'"'"'s 10 and 16 MB, memory matched, its line'
	@echo '                     in the ECD figures and table (LINUX_ECD_ARGS='"'"'--preset short'"'"'; matched: 25 minutes)'
	@echo 'make linux-programs  the programs of user/ built for Linux (build/linux/bin)'
	@echo 'make paper           every table and figure of the seed papers reproduced here, run again, then'
	@echo '                     make results (PAPER_ARGS='"'"'--preset full -j 2'"'"'):' "$$($(PYTHON) tools/bench/paper.py --estimate)"
	@echo 'make results         docs/results.md'"'"'s tables made again from build/bench'"'"'s CSVs; refuses a'
	@echo '                     short run (RESULTS_ARGS=--partial takes it and says so in the table)'
	@echo 'make compile_commands.json   the compiler flags for editors (clangd)'
	@echo 'make clean           remove build/'
	@echo 'make help            this list'
	@echo
	@echo 'Variables (each run uses what its command line gives, else the default):'
	@echo '  MEM=64  CMDLINE='"'"'key=value ...'"'"'  FILES='"'"'file dir ...'"'"'  FSIMG=IMAGE  ACCEL=tcg|kvm'
	@echo '  JOBS=2  TESTS=tests  V=1 (full compiler lines)  FSSIZE=128 (MB of a new image)  PYTHON=python3'
	@echo '  POLICY POLICYFILE ARBITER DIR LAB GRADE_ARGS (make grade)  IFS_ARGS (bench-ifs)  ECD_ARGS (bench-ecd)  LINUX_ARGS (bench-linux)'
	@echo '  LINUX_ECD_ARGS (bench-linux-ecd)'
	@echo '  PAPER_ARGS  RESULTS_ARGS'
	@echo '  MUTANTS_ARGS  DURATION  N SEED'
	@echo '  e.g. make qemu MEM=16 CMDLINE=vm.policy=fifo FILES=notes.txt'

compile_commands.json: $(TOOLS_OK)
	@$(PYTHON) tools/setup/compile_commands.py "$(CC) $(KCFLAGS)" "$(CC) $(UCFLAGS)" "$(HOSTCC) $(HOSTCFLAGS)" > $@

clean:
	rm -rf $(B) compile_commands.json

FORCE:
-include $(shell find $(B)/k $(B)/u $(B)/lu $(DB)/k -name '*.d' 2>/dev/null)
