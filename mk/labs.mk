# The labs (docs/lab-replacement.md, docs/lab-arbiter.md): their simulators, the recorded traces,
# the grader and the students' tree. Included by the Makefile, whose variables it uses.

# The trace simulator (tools/lab/tracesim/) runs the same policy files on recorded traces.
TRACESIM_SRC := $(wildcard tools/lab/tracesim/*.c) tools/lab/tracefile.c tools/lab/callwatch.c $(wildcard vm/policy*.c)
$(B)/tracesim: $(TRACESIM_SRC) $(wildcard tools/lab/tracesim/*.h) tools/lab/tracefile.h tools/lab/callwatch.h vm/policy.h | $(TOOLS_OK)
	@mkdir -p $(B)
	$(msg) HOSTCC $@
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -o $@ $(TRACESIM_SRC)
tracesim: $(B)/tracesim $(PY_OK)
	$(PY) tools/lab/tracesim.py
# The arbiter lab's simulator (tools/lab/arbitersim/) replays recorded negotiations through the
# very arbiter files the kernel compiles (kernel/arbiter_*.c).
ARBITERSIM_SRC := $(wildcard tools/lab/arbitersim/*.c) tools/lab/tracefile.c tools/lab/callwatch.c $(wildcard kernel/arbiter_*.c) kernel/mem/negotiate_rule.c
$(B)/arbitersim: $(ARBITERSIM_SRC) $(wildcard tools/lab/arbitersim/*.h) tools/lab/tracefile.h tools/lab/callwatch.h kernel/arbiter.h kernel/mem/negotiate_rule.h | $(TOOLS_OK)
	@mkdir -p $(B)
	$(msg) HOSTCC $@
	$(Q)$(HOSTCC) $(HOSTCFLAGS) -o $@ $(ARBITERSIM_SRC)
arbitersim: $(B)/arbitersim
	$(B)/arbitersim traces/negotiation/*.negtrace.gz
# Records traces/negotiation/ again in the kernel (tools/lab/record_negtraces.py: minutes).
negtraces: $(B)/kernel.elf $(PRISTINE) $(B)/arbitersim $(PY_OK)
	$(PY) tools/lab/record_negtraces.py
	$(B)/arbitersim traces/negotiation/*.negtrace.gz
# Records traces/*.trace again in the kernel (tools/lab/record_traces.py), then replays them.
traces: $(B)/kernel.elf $(PRISTINE) $(B)/fsck $(B)/tracesim $(PY_OK)
	$(PY) tools/lab/record_traces.py
	$(PY) tools/lab/tracesim.py

# The replacement lab (docs/lab-replacement.md): make grade POLICY=NAME [POLICYFILE=vm/policy_NAME.c],
# or a class: make grade DIR=submissions [LAB=replacement] [GRADE_ARGS='--call-limit 1000 --kernel']
# (one directory per student; build/grade/DIR/scores.csv and a report each).
# The arbiter lab (docs/lab-arbiter.md): make grade ARBITER=NAME (kernel/arbiter_NAME.c; the replay
# and the kernel pass), or a class: make grade DIR=submissions LAB=arbiter.
POLICY ?=
POLICYFILE ?=
DIR ?=
LAB ?= replacement
GRADE_ARGS ?=
ARBITER ?=
grade: $(B)/kernel.elf $(PRISTINE) $(B)/fsck $(B)/tracesim $(B)/arbitersim $(PY_OK)
	@test -n "$(POLICY)$(DIR)$(ARBITER)" || { echo 'make grade needs POLICY=NAME (e.g. make grade POLICY=lru), ARBITER=NAME or DIR=SUBMISSIONS'; exit 2; }
	$(PY) $(if $(DIR),tools/lab/grade.py --dir $(DIR) --lab $(LAB),$(if $(ARBITER),tools/lab/arbiter_grade.py $(ARBITER),tools/lab/grade.py $(POLICY) $(if $(POLICYFILE),--file $(POLICYFILE)))) $(GRADE_ARGS)
# The replacement lab's kernel passes beside the simulator, recorded for test_lab_compare to replay
# (traces/compare/: the session at a tenth of its length, two runs a policy; a few minutes).
compare-record: $(B)/kernel.elf $(PRISTINE) $(B)/tracesim $(PY_OK)
	$(PY) tools/lab/grade.py clock --compare --compare-scale 10 --compare-runs 2 --traces traces/session.trace.gz --compare-record traces/compare
# The students' tree, without the labs' solutions or a word naming them, built and the lab's tests run (tools/lab/release.py).
lab-release: $(PY_OK)
	$(PY) tools/lab/release.py --lab $(LAB)
# What the sampled and the ordered trace cost the traced programs (guest time; build/bench/trace-cost.*).
trace-cost: $(B)/kernel.elf $(PRISTINE) $(PY_OK)
	$(PY) tools/lab/trace_cost.py
