# Sprite-memory teaching kernel. `make qemu` boots it, `make test` tests it.
# Variables: MEM (MB of guest memory), CMDLINE (extra kernel words), FSIMG (another disk image),
# FILES (host files and folders to put at the root of the image), ACCEL (tcg, or kvm on hosts
# with real hardware virtualisation).

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

.PHONY: all qemu qemu-gdb gdb test crashtest clean tools iso fsimg compile_commands.json
all: $(B)/kernel.elf $(B)/os.iso $(B)/fs.img $(B)/mkfs $(B)/fsck compile_commands.json

# --- host tools: installed if missing (see tools/check-tools.sh) ----------------------------
$(TOOLS_OK): tools/check-tools.sh
	@bash tools/check-tools.sh
	@mkdir -p $(B) && touch $@
tools: $(TOOLS_OK)

# --- kernel ------------------------------------------------------------------------------
$(B)/k/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@
$(B)/k/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c $< -o $@

LIBGCC = $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)
$(B)/kernel.elf: $(KOBJ) linker.ld
	$(LD) -m elf_i386 -z noexecstack -T linker.ld -o $@ $(KOBJ) $(LIBGCC)

# The ISO holds a stripped kernel; the one with symbols stays in build/ for gdb.
$(B)/cmdline.txt: FORCE
	@mkdir -p $(B); echo '$(CMDLINE)' | cmp -s - $@ || echo '$(CMDLINE)' > $@
$(B)/os.iso: $(B)/kernel.elf $(B)/cmdline.txt tools/grub.cfg.in
	@rm -rf $(B)/iso && mkdir -p $(B)/iso/boot/grub
	$(STRIP) -o $(B)/iso/boot/kernel.elf $(B)/kernel.elf
	sed 's|@CMDLINE@|$(CMDLINE)|' tools/grub.cfg.in > $(B)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(B)/iso 2> $(B)/grub-mkrescue.log || { cat $(B)/grub-mkrescue.log; exit 1; }
iso: $(B)/os.iso

# --- user programs -------------------------------------------------------------------------
$(B)/u/%.c.o: %.c | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@
$(B)/u/%.S.o: %.S | $(TOOLS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) -c $< -o $@
$(B)/user/libc.a: $(ULIBOBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(CROSS)ar rcs $@ $^
$(B)/user/bin/%: $(B)/u/user/%.c.o $(B)/u/user/lib/crt0.S.o $(B)/user/libc.a user/user.ld
	@mkdir -p $(dir $@)
	$(LD) -m elf_i386 -z noexecstack -T user/user.ld -nostdlib -o $@ $(B)/u/user/lib/crt0.S.o $< $(B)/user/libc.a $(LIBGCC)
.SECONDARY:

# --- host tools: mkfs and fsck share the on-disk layout with the kernel -----------------------
$(B)/mkfs: mkfs/mkfs.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h)
	@mkdir -p $(B)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/mkfs.c mkfs/image.c fs/layout.c
$(B)/fsck: mkfs/fsck.c mkfs/image.c fs/layout.c $(wildcard mkfs/*.h fs/layout.h)
	@mkdir -p $(B)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ mkfs/fsck.c mkfs/image.c fs/layout.c
$(B)/tests/%: tests/host/%.c fs/layout.c fs/layout.h
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $< fs/layout.c

# Replacement policies are pure C: the host tests compile the very same files.
$(B)/tests/test_policy: tests/host/test_policy.c $(wildcard vm/policy*.c) vm/policy.h
	@mkdir -p $(B)/tests
	$(HOSTCC) $(HOSTCFLAGS) -o $@ tests/host/test_policy.c $(wildcard vm/policy*.c)

# The kernel's own file-system code, run on the host against mkfs images (tests/host/test_kfs.py).
KFSSRC := $(wildcard tests/host/kfs/*.c) $(wildcard fs/*.c) kernel/pipe.c
$(B)/tests/kfs: $(KFSSRC) $(wildcard tests/host/kfs/*.h fs/*.h kernel/*.h kernel/uapi/*.h) vm/coremap.h drivers/disk.h | $(TOOLS_OK)
	@mkdir -p $(B)/tests
	$(CC) -static -O1 -g -Wall -Wextra -Wno-unused-parameter -I. -Itests/host/kfs -o $@ $(KFSSRC)
HOSTTESTS += $(B)/tests/kfs

# The default image: sparse, FSSIZE MB, programs in /bin.
$(B)/fs.img: $(B)/mkfs $(UBINS)
	$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin
fsimg: $(B)/fs.img
# make qemu FILES='a.txt dir' builds an image that also holds those at its root.
ifneq ($(FILES),)
FSIMG ?= $(B)/fs-files.img
$(B)/fs-files.img: $(B)/mkfs $(UBINS) FORCE
	$(B)/mkfs -o $@ -s $(FSSIZE) -b $(B)/user/bin $(FILES)
else
FSIMG ?= $(B)/fs.img
endif

# --- running ------------------------------------------------------------------------------
RUNQEMU = $(PYTHON) tools/runqemu.py --mem $(MEM) --accel $(ACCEL) --disk $(FSIMG)

qemu: $(B)/os.iso $(FSIMG)
	@$(RUNQEMU) --iso $(B)/os.iso

GDBPORT := $(shell expr 26000 + $$(id -u) % 5000)
qemu-gdb: $(B)/os.iso $(FSIMG)
	@echo "*** QEMU waits for gdb on localhost:$(GDBPORT): run 'make gdb' in another terminal"
	@$(RUNQEMU) --iso $(B)/os.iso --gdb $(GDBPORT)
gdb: $(B)/kernel.elf
	@sed 's/@GDBPORT@/$(GDBPORT)/' tools/gdbinit.in > $(B)/gdbinit
	gdb -q -nx -x $(B)/gdbinit

# --- tests --------------------------------------------------------------------------------
test: all $(UBINS) $(HOSTTESTS)
	@$(PYTHON) tools/pytest-deps.py
	$(PYTHON) -m pytest -q -n $(JOBS) tests

# Power cuts on a logging disk: thousands of crash states checked (tools/crashtest.py, issue 10).
crashtest: all $(UBINS) $(B)/tests/kfs
	$(PYTHON) tools/crashtest.py --jobs $(JOBS)

# --- benchmarks: figures printed and written under build/bench ------------------------------
.PHONY: bench bench-boot bench-fork bench-vm bench-fs
bench: bench-boot bench-fs bench-vm bench-fork
bench-boot: $(B)/os.iso $(B)/fs.img
	$(PYTHON) tools/bench_boot.py
bench-fork: $(B)/kernel.elf $(B)/fs.img
	$(PYTHON) tools/bench_fork.py
bench-vm: $(B)/kernel.elf $(B)/fs.img
	$(PYTHON) tools/bench_vm.py
bench-fs: $(B)/kernel.elf $(B)/fs.img
	$(PYTHON) tools/bench_fs.py

compile_commands.json: $(TOOLS_OK)
	@$(PYTHON) tools/compile_commands.py "$(CC) $(KCFLAGS)" "$(CC) $(UCFLAGS)" "$(HOSTCC) $(HOSTCFLAGS)" > $@

clean:
	rm -rf $(B) compile_commands.json

FORCE:
-include $(shell find $(B)/k $(B)/u -name '*.d' 2>/dev/null)
