# The benchmarks (docs/results.md says what each reproduces): figures printed, CSV and PNG under
# build/bench. Included by the Makefile, whose variables it uses.

.PHONY: bench bench-boot bench-fork bench-vm bench-negcost bench-fs bench-ifs bench-ecd bench-linux bench-linux-ecd paper
bench: bench-boot bench-fs bench-vm bench-negcost bench-fork bench-ifs bench-ecd
bench-boot: $(ISO) $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_boot.py
bench-fork: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_fork.py
bench-vm: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_vm.py
# An untraded negotiation against a cache miss, by penalty mode (RUNS=3 MODES="fixed adaptive").
bench-negcost: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_negcost.py
bench-fs: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_fs.py
# WRL 90/4's IFS benchmark (tools/bench/bench_ifs.py -h): IFS_ARGS='--preset paper --runs 1 --intervals 1,30 -j 2'.
IFS_ARGS ?=
bench-ifs: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_ifs.py $(IFS_ARGS)
# WRL 90/4's ECD benchmark (tools/bench/bench_ecd.py -h): the full grid, or ECD_ARGS='--preset short'.
ECD_ARGS ?=
bench-ecd: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/bench/bench_ecd.py $(ECD_ARGS)
# The IFS mix under Linux 6.1 beside ours (tools/bench/bench_linux.py -h): Debian's kernel and
# busybox are fetched into build/linux on first use. LINUX_ARGS='--preset short' for a minute's run.
LINUX_ARGS ?=
bench-linux: $(B)/kernel.elf $(PRISTINE) $(LBINS) $(PY_OK)
	$(PY) tools/bench/bench_linux.py $(LINUX_ARGS)
# The ECD benchmark under Linux 6.1, its line in the ECD figures and table (bench_linux_ecd.py -h).
LINUX_ECD_ARGS ?=
bench-linux-ecd: $(B)/kernel.elf $(PRISTINE) $(LBINS) $(PY_OK)
	$(PY) tools/bench/bench_linux_ecd.py $(LINUX_ECD_ARGS)
# Every reproduced table of the seed papers, then the results chapter (tools/bench/paper.py -h).
PAPER_ARGS ?=
paper: $(B)/kernel.elf $(ISO) $(PRISTINE) $(LBINS) $(B)/tracesim $(PY_OK)
	$(PY) tools/bench/paper.py $(PAPER_ARGS)
RESULTS_ARGS ?=
results: $(PY_OK)
	$(PY) tools/bench/results.py $(RESULTS_ARGS)
