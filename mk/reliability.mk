# Reliability: planted bugs, power cuts, a long soak and corrupted images (docs/reliability.md,
# docs/testing.md). Included by the Makefile, whose variables it uses.

# Planted bugs, one at a time, each against the whole suite (tools/fuzz/mutants.py):
# make mutants MUTANTS_ARGS='--area cache -j 2'. Results in build/mutants.csv.
MUTANTS_ARGS ?=
mutants: $(PY_OK)
	$(PY) tools/fuzz/mutants.py $(MUTANTS_ARGS)

# Power cuts on a logging disk: thousands of crash states checked (tools/crash/crashtest.py).
crashtest: all $(UBINS) $(B)/tests/kfs $(PY_OK)
	$(PY) tools/crash/crashtest.py --jobs $(JOBS)

# A long run of every workload at once, then the checks (tools/fuzz/soak.py):
# make soak DURATION=SECONDS (default 600). The console goes to build/soak.log.
DURATION ?= 600
.PHONY: soak
soak: $(B)/kernel.elf $(PRISTINE) $(B)/fsck $(PY_OK)
	$(PY) tools/fuzz/soak.py --duration $(DURATION)

# Corrupted images: N damaged images booted and checked against fsck (tools/fuzz/imgfuzz.py).
N ?= 300
SEED ?= 1
.PHONY: imgfuzz
imgfuzz: all $(UBINS) $(PY_OK)
	$(PY) tools/fuzz/imgfuzz.py -n $(N) --seed $(SEED) --jobs $(JOBS)
