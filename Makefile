# Sprite-memory teaching kernel. `make qemu` boots it, `make test` tests it, `make help` lists
# the targets. Variables: MEM (MB of guest memory), CMDLINE (extra kernel words), FSIMG (another
# disk image), FILES (host files and folders to put at the root of the image), ACCEL (tcg, or
# kvm on hosts with real hardware virtualisation).
#
# What is given on a command line is what boots, whatever earlier runs gave: the command line
# lives in the ISO's grub.cfg, so the ISO is remade whenever CMDLINE differs from the one it was
# made with (build/cmdline.txt keeps that one); a FILES image is made afresh on every run; MEM
# and FSIMG go straight to QEMU. Nothing given means the defaults, never an earlier run's value.

MEM     ?= 64
CMDLINE ?=
ACCEL   ?= tcg
FILES   ?=
FSSIZE  ?= 128
JOBS    ?= 2

CROSS   ?= i686-linux-gnu-
CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJCOPY := $(CROSS)objcopy
STRIP   := $(CROSS)strip
HOSTCC  ?= cc
PYTHON  ?= python3

B := build

# Debug info and frame pointers always on, so gdb can break anywhere and walk the stack.
COMMON_CFLAGS := -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
  -fno-omit-frame-pointer -mgeneral-regs-only -fno-strict-aliasing -g -O2 \
  -Wall -Wextra -Wno-unused-parameter -nostdinc -MMD -MP
GCCINC = $(shell $(CC) -print-file-name=include 2>/dev/null)
KCFLAGS = $(COMMON_CFLAGS) -isystem $(GCCINC) -I. -Ikernel -DKERNEL
UCFLAGS = $(COMMON_CFLAGS) -isystem $(GCCINC) -Iuser/include -Ikernel
HOSTCFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -I.

KSRC := $(wildcard kernel/*.S) $(wildcard kernel/*.c drivers/*.c fs/*.c vm/*.c)
KOBJ := $(patsubst %,$(B)/k/%.o,$(KSRC))
ULIBSRC := $(wildcard user/lib/*.c user/lib/*.S)
ULIBOBJ := $(patsubst %,$(B)/u/%.o,$(filter-out user/lib/crt0.S,$(ULIBSRC)))
UPROGS := $(patsubst user/%.c,%,$(wildcard user/*.c))
UBINS := $(addprefix $(B)/user/bin/,$(UPROGS))

HOSTTESTS := $(patsubst tests/host/%.c,$(B)/tests/%,$(wildcard tests/host/test_*.c))

TOOLS_OK := $(B)/.tools-ok
# matplotlib, for the benchmarks' figures (and the test of their tables and figures)
BENCH_OK := $(B)/.bench-tools-ok

# Where `make qemu` puts what it boots (the ISO with the command line, the FILES image). Tests
# give each run a folder of its own so that runs with different variables never share one.
BOOTDIR ?= $(B)
ISO := $(BOOTDIR)/os.iso
export CMDLINE

.PHONY: all tracesim traces grade qemu qemu-gdb gdb gdb-walkthrough debug-kernel test crashtest clean tools iso fsimg programs help compile_commands.json FORCE
all: $(B)/kernel.elf $(ISO) $(B)/fs.img $(B)/mkfs $(B)/fsck $(B)/tracesim compile_commands.json

# --- host tools: installed if missing (see tools/check-tools.sh) ----------------------------
$(TOOLS_OK): tools/check-tools.sh
	@bash tools/check-tools.sh
	@mkdir -p $(B) && touch $@
tools:
	@bash tools/check-tools.sh
	@mkdir -p $(B) && touch $(TOOLS_OK)

# --- kernel ------------------------------------------------------------------------------
$(B)/k/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@
$(B)/k/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@

LIBGCC = $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)
# Linked twice: the first link (kernel0.elf, an empty symbol table) gives the addresses from
# which tools/ksyms.py makes the table a panic names its backtrace with (kernel/ksyms.c); the
# second links that in, after the code, which therefore does not move (ksyms.py --check).
KSYMS = CROSS=$(CROSS) $(PYTHON) tools/ksyms.py
$(B)/ksyms0.o: tools/ksyms.py | $(TOOLS_OK)
	@mkdir -p $(@D)
	$(KSYMS) --stub $(@:.o=.S)
	$(CC) $(KCFLAGS) -c $(@:.o=.S) -o $@
$(B)/kernel0.elf: $(KOBJ) $(B)/ksyms0.o linker.ld
	$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $@ $(KOBJ) $(B)/ksyms0.o $(LIBGCC)
$(B)/ksyms.o: $(B)/kernel0.elf tools/ksyms.py
	$(KSYMS) $< $(@:.o=.S)
	$(CC) $(KCFLAGS) -c $(@:.o=.S) -o $@
$(B)/kernel.elf: $(KOBJ) $(B)/ksyms.o linker.ld
	$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $@.tmp $(KOBJ) $(B)/ksyms.o $(LIBGCC)
	$(KSYMS) --check $(B)/kernel0.elf $@.tmp
	mv $@.tmp $@

# The kernel for stepping in gdb (make qemu-gdb): the same sources at -Og in a folder of their
# own, so that `info locals` and `next` work in exec, vm_fault or trap, while make qemu, the
# tests and the benchmarks keep the optimised kernel. Same layout of every structure.
DB := $(B)/debug
DKCFLAGS = $(patsubst -O2,-Og,$(KCFLAGS))
DKOBJ := $(patsubst %,$(DB)/k/%.o,$(KSRC))
$(DB)/k/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DKCFLAGS) -c $< -o $@
$(DB)/k/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DKCFLAGS) -c $< -o $@
$(DB)/ksyms0.o: tools/ksyms.py | $(TOOLS_OK)
	@mkdir -p $(@D)
	$(KSYMS) --stub $(@:.o=.S)
	$(CC) $(DKCFLAGS) -c $(@:.o=.S) -o $@
$(DB)/kernel0.elf: $(DKOBJ) $(DB)/ksyms0.o linker.ld
	$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $@ $(DKOBJ) $(DB)/ksyms0.o $(LIBGCC)
$(DB)/ksyms.o: $(DB)/kernel0.elf tools/ksyms.py
	$(KSYMS) $< $(@:.o=.S)
	$(CC) $(DKCFLAGS) -c $(@:.o=.S) -o $@
$(DB)/kernel.elf: $(DKOBJ) $(DB)/ksyms.o linker.ld
	$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $@.tmp $(DKOBJ) $(DB)/ksyms.o $(LIBGCC)
	$(KSYMS) --check $(DB)/kernel0.elf $@.tmp
	mv $@.tmp $@
debug-kernel: $(DB)/kernel.elf

# The ISO holds a stripped kernel; the one with symbols stays in build/ for gdb. cmdline.txt
# is rewritten only when CMDLINE differs from what it holds, and its date remakes the ISO.
# (FORCE must stay phony: .SECONDARY below would otherwise let make skip a missing FORCE.)
$(BOOTDIR)/cmdline.txt: FORCE
	@mkdir -p $(@D); printf '%s\n' "$$CMDLINE" | cmp -s - $@ || printf '%s\n' "$$CMDLINE" > $@
$(ISO): $(B)/kernel.elf $(BOOTDIR)/cmdline.txt tools/grub.cfg.in
	@rm -rf $(BOOTDIR)/iso && mkdir -p $(BOOTDIR)/iso/boot/grub
	$(STRIP) -o $(BOOTDIR)/iso/boot/kernel.elf $(B)/kernel.elf
	@$(PYTHON) -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().replace("@CMDLINE@", open(sys.argv[2]).read().strip()))' \
	  tools/grub.cfg.in $(BOOTDIR)/cmdline.txt > $(BOOTDIR)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BOOTDIR)/iso 2> $(BOOTDIR)/grub-mkrescue.log || { cat $(BOOTDIR)/grub-mkrescue.log; exit 1; }
iso: $(ISO)

# --- user programs -------------------------------------------------------------------------
$(B)/u/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@
$(B)/u/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@
programs: $(UBINS)
$(B)/user/libc.a: $(ULIBOBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(CROSS)ar rcs $@ $^
$(B)/user/bin/%: $(B)/u/user/%.c.o $(B)/u/user/lib/crt0.S.o $(B)/user/libc.a user/user.ld
	@mkdir -p $(dir $@)
	$(LD) -m elf_i386 -z noexecstack -T user/user.ld -nostdlib -o $@ $(B)/u/user/lib/crt0.S.o $< $(B)/user/libc.a $(LIBGCC)
.SECONDARY:

# --- host tools: mkfs and fsck share the on-disk layout with the kernel -----------------------
$(B)/mkfs: mkfs/mkfs.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h) | $(TOOLS_OK)
	@mkdir -p $(B)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/mkfs.c mkfs/image.c fs/layout.c
$(B)/fsck: mkfs/fsck.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h) | $(TOOLS_OK)
	@mkdir -p $(B)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/fsck.c mkfs/image.c fs/layout.c
$(B)/tests/%: tests/host/%.c fs/layout.c fs/layout.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< fs/layout.c

# Replacement policies are pure C: the host tests compile the very same files.
$(B)/tests/test_policy: tests/host/test_policy.c $(wildcard vm/policy*.c) vm/policy.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tests/host/test_policy.c $(wildcard vm/policy*.c)

# The trace simulator (tools/tracesim/) runs the same policy files on recorded traces.
TRACESIM_SRC := $(wildcard tools/tracesim/*.c) $(wildcard vm/policy*.c)
$(B)/tracesim: $(TRACESIM_SRC) $(wildcard tools/tracesim/*.h) vm/policy.h | $(TOOLS_OK)
	@mkdir -p $(B)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(TRACESIM_SRC)
tracesim: $(B)/tracesim $(BENCH_OK)
	$(PYTHON) tools/tracesim.py
# Records traces/*.trace again in the kernel (tools/record_traces.py), then replays them.
traces: $(B)/kernel.elf $(B)/fs.img $(B)/fsck $(B)/tracesim $(BENCH_OK)
	$(PYTHON) tools/record_traces.py
	$(PYTHON) tools/tracesim.py

# The replacement lab (docs/lab-replacement.md): make grade POLICY=NAME [POLICYFILE=vm/policy_NAME.c]
POLICY ?=
POLICYFILE ?=
grade: $(B)/kernel.elf $(B)/fs.img $(B)/fsck $(B)/tracesim
	@test -n "$(POLICY)" || { echo 'make grade needs POLICY=NAME (e.g. make grade POLICY=aging)'; exit 2; }
	$(PYTHON) tools/grade.py $(POLICY) $(if $(POLICYFILE),--file $(POLICYFILE))

# The negotiation's decision is pure C too (vm/negotiate_rule.c).
$(B)/tests/test_negotiate: tests/host/test_negotiate.c vm/negotiate_rule.c vm/negotiate_rule.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tests/host/test_negotiate.c vm/negotiate_rule.c

# sort's order is pure C too (user/lib/linecmp.c): the host sorts with the very same file.
$(B)/tests/test_linecmp: tests/host/test_linecmp.c user/lib/linecmp.c user/include/linecmp.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -iquote user/include -o $@ tests/host/test_linecmp.c user/lib/linecmp.c

# The kernel's own file-system code, run on the host against mkfs images (tests/host/test_kfs.py).
KFSSRC := $(wildcard tests/host/kfs/*.c) $(wildcard fs/*.c) kernel/pipe.c kernel/cmdline.c kernel/sysctl.c
$(B)/tests/kfs: $(KFSSRC) $(wildcard tests/host/kfs/*.h fs/*.h kernel/*.h kernel/uapi/*.h) vm/coremap.h drivers/disk.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(CC) -static -O1 -g -Wall -Wextra -Wno-unused-parameter -I. -Itests/host/kfs -o $@ $(KFSSRC)
HOSTTESTS += $(B)/tests/kfs

# The default image: sparse, FSSIZE MB, programs in /bin.
$(B)/fs.img: $(B)/mkfs $(UBINS)
	$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin
fsimg: $(B)/fs.img
# make qemu FILES='a.txt dir' makes, on every run, a fresh image that also holds those at its
# root: the guest sees the files as they are now (what it wrote there the run before is gone).
ifneq ($(FILES),)
ifneq ($(FSIMG),)
$(error FILES and FSIMG together: FILES makes an image of its own; leave one of them out)
endif
override FSIMG := $(BOOTDIR)/fs-files.img
$(FSIMG): $(B)/mkfs $(UBINS) FORCE
	@mkdir -p $(@D)
	$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin $(FILES)
else ifeq ($(FSIMG),)
override FSIMG := $(B)/fs.img
endif

# --- running ------------------------------------------------------------------------------
# Checked before anything is built: a bad MEM or a missing FSIMG gives one line, not a hung
# GRUB or make's "No rule to make target".
MEM_MIN := $(shell sed -n 's/^\#define MEM_MIN_MB *\([0-9][0-9]*\).*/\1/p' kernel/memlayout.h)
ifneq ($(filter qemu qemu-gdb,$(MAKECMDGOALS)),)
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

qemu: $(ISO) $(RUNIMG)
	@$(RUNQEMU) --iso $(ISO)

# make qemu-gdb boots the -Og kernel ($(DB)/kernel.elf) and waits on a free port of its own
# (printed; tools/runqemu.py --gdb auto), named in $(DB)/gdb.port for make gdb to find.
qemu-gdb: $(DB)/kernel.elf $(RUNIMG)
	@$(RUNQEMU) --kernel $(DB)/kernel.elf --append "$$CMDLINE" --gdb auto --gdb-file $(DB)/gdb.port
gdb: | $(TOOLS_OK)
	@$(PYTHON) tools/rungdb.py $(DB)/gdb.port
# docs/gdb.md's transcripts, made again by running them (a minute or so)
gdb-walkthrough: $(DB)/kernel.elf $(B)/mkfs $(UBINS)
	$(PYTHON) tools/gdb_walkthrough.py

# --- tests --------------------------------------------------------------------------------
test: test-build
	$(PYTHON) -m pytest -q -n $(JOBS) tests

# Everything the tests use, built and installed, without running them.
.PHONY: test-build mutants
test-build: all $(UBINS) $(HOSTTESTS) $(BENCH_OK) $(DB)/kernel.elf
	@$(PYTHON) tools/pytest-deps.py

# Planted bugs, one at a time, each against the whole suite (tools/mutants.py, issue 11):
# make mutants MUTANTS_ARGS='--area cache -j 2'. Results in build/mutants.csv.
MUTANTS_ARGS ?=
mutants:
	@$(PYTHON) tools/pytest-deps.py
	$(PYTHON) tools/mutants.py $(MUTANTS_ARGS)

# Power cuts on a logging disk: thousands of crash states checked (tools/crashtest.py, issue 10).
crashtest: all $(UBINS) $(B)/tests/kfs
	$(PYTHON) tools/crashtest.py --jobs $(JOBS)

# A long run of every workload at once, then the checks (tools/soak.py, issue 15):
# make soak DURATION=SECONDS (default 600). The console goes to build/soak.log.
DURATION ?= 600
.PHONY: soak
soak: $(B)/kernel.elf $(B)/fs.img $(B)/fsck
	$(PYTHON) tools/soak.py --duration $(DURATION)

# Corrupted images: N damaged images booted and checked against fsck (tools/imgfuzz.py, issue 15).
N ?= 300
SEED ?= 1
.PHONY: imgfuzz
imgfuzz: all $(UBINS)
	$(PYTHON) tools/imgfuzz.py -n $(N) --seed $(SEED) --jobs $(JOBS)

# --- benchmarks: figures printed, written under build/bench (CSV and PNG), then the README's
# tables regenerated from the CSVs (tools/readme_tables.py) ------------------------------------
.PHONY: bench bench-boot bench-fork bench-vm bench-fs bench-ifs
$(BENCH_OK): tools/bench-deps.py
	@$(PYTHON) tools/bench-deps.py
	@mkdir -p $(B) && touch $@
bench: bench-boot bench-fs bench-vm bench-fork bench-ifs
bench-boot: $(ISO) $(B)/fs.img $(BENCH_OK)
	$(PYTHON) tools/bench_boot.py
	$(PYTHON) tools/readme_tables.py
bench-fork: $(B)/kernel.elf $(B)/fs.img $(BENCH_OK)
	$(PYTHON) tools/bench_fork.py
	$(PYTHON) tools/readme_tables.py
bench-vm: $(B)/kernel.elf $(B)/fs.img $(BENCH_OK)
	$(PYTHON) tools/bench_vm.py
	$(PYTHON) tools/readme_tables.py
bench-fs: $(B)/kernel.elf $(B)/fs.img $(BENCH_OK)
	$(PYTHON) tools/bench_fs.py
	$(PYTHON) tools/readme_tables.py
# WRL 90/4's IFS benchmark (tools/bench_ifs.py -h): IFS_ARGS='--preset paper --runs 1 --intervals 1,30 -j 2'.
IFS_ARGS ?=
bench-ifs: $(B)/kernel.elf $(B)/fs.img $(BENCH_OK)
	$(PYTHON) tools/bench_ifs.py $(IFS_ARGS)
	$(PYTHON) tools/readme_tables.py

help:
	@echo 'make                 build everything (kernel, ISO, disk image, programs, host tools)'
	@echo 'make qemu            build, then boot the ISO in QEMU with the shell on this terminal'
	@echo 'make test            host unit tests, then the tests that boot the kernel (JOBS=2 at a time)'
	@echo 'make qemu-gdb        boot the -Og kernel (build/debug), QEMU waiting for a debugger on a free port'
	@echo 'make gdb             in another terminal: gdb attached to make qemu-gdb, with the kernel commands'
	@echo '                     (frames, lru, ps, seg, pt, cowlists, negs, negbreak, counters, usym; docs/gdb.md)'
	@echo 'make debug-kernel    only the -Og kernel for gdb (build/debug/kernel.elf)'
	@echo 'make gdb-walkthrough run the gdb sessions of docs/gdb.md again and put their transcripts in it'
	@echo 'make iso             only the GRUB ISO (build/os.iso, with CMDLINE in its grub.cfg)'
	@echo 'make fsimg           only the default disk image (build/fs.img)'
	@echo 'make programs        only the user programs (build/user/bin)'
	@echo 'make tools           check the host tools and install what is missing'
	@echo 'make test-build      build everything the tests use, without running them'
	@echo 'make traces          record traces/*.trace in the kernel (sort, toucher, ifs, forktree, vmtest), then replay'
	@echo 'make grade POLICY=N  the replacement lab'"'"'s grader: policy N on the traces and in the kernel, a score'
	@echo 'make tracesim        replay traces/*.trace through every policy and MIN (table, build/traces CSV, PNG)'
	@echo 'make crashtest       power cuts: thousands of crash states from recorded workloads, checked'
	@echo 'make soak            sort, toucher, sysfuzz, forktree and fsstress at once for DURATION s (600),'
	@echo '                     then no panic, audit and fsck clean, frames and disk blocks back (build/soak.log)'
	@echo 'make imgfuzz         corrupted images: N=300 damaged images (SEED=1) booted, checked against fsck;'
	@echo '                     outcomes by kind, build/imgfuzz/imgfuzz.csv, failing images in build/imgfuzz/failed'
	@echo 'make mutants         plant each bug of tests/mutants/catalog.txt alone, run the suite against it'
	@echo '                     (MUTANTS_ARGS='"'"'--area cache -j 2'"'"'; build/mutants.csv; hours for all)'
	@echo 'make bench           every benchmark below; figures printed and written to build/bench'
	@echo 'make bench-boot      boot time: ISO and -kernel, to the first prompt'
	@echo 'make bench-fs        file cache: throughput by transfer size, write policies'
	@echo 'make bench-vm        VM: fault costs, page-in, Irlam'"'"'s table'
	@echo 'make bench-fork      fork time against resident size (Sprite'"'"'s Table 7-1)'
	@echo 'make bench-ifs       WRL 90/4'"'"'s IFS benchmark (Tables 3, 4): toucher beside sort, penalty 0 and 120 s'
	@echo '                     (IFS_ARGS='"'"'--preset paper --runs 1 --intervals 1,30 -j 2'"'"'; both presets: an hour or more)'
	@echo 'make compile_commands.json   the compiler flags for editors (clangd)'
	@echo 'make clean           remove build/'
	@echo 'make help            this list'
	@echo
	@echo 'Variables (each run uses what its command line gives, else the default):'
	@echo '  MEM=64  CMDLINE='"'"'key=value ...'"'"'  FILES='"'"'file dir ...'"'"'  FSIMG=IMAGE  ACCEL=tcg|kvm'
	@echo '  e.g. make qemu MEM=16 CMDLINE=vm.policy=fifo FILES=notes.txt'

compile_commands.json: $(TOOLS_OK)
	@$(PYTHON) tools/compile_commands.py "$(CC) $(KCFLAGS)" "$(CC) $(UCFLAGS)" "$(HOSTCC) $(HOSTCFLAGS)" > $@

clean:
	rm -rf $(B) compile_commands.json

FORCE:
-include $(shell find $(B)/k $(B)/u $(DB)/k -name '*.d' 2>/dev/null)
