# krsi: per-container BPF LSM policy. `make demo` shows it, `make check` tests it.
#
# Caches live outside the checkout in $(KRSI_CACHE) (kernel tree and builds, guest image);
# build outputs of this checkout live in build/.

KRSI_CACHE ?= $(HOME)/.cache/krsi
export KRSI_CACHE

BUILD := build
RESULTS := $(BUILD)/results
GUEST := $(BUILD)/guest

# Guest suites run by `make check`, each in its own boot (tests/integration/<name>.sh).
GUEST_SUITES ?= smoke kernel kernel-nobpf core allow learn hooks fleet kube faults docker containerd systemd deb

.PHONY: all deps kernel kernel-patches selftests image stage deb deb-stage unit check-walls check-man install vm-selftest guest-check guest-repeat check demo bench clean clean-cache help

all: krsi-all

include agent/krsi.mk
include oci-hooks/hook.mk
include agent/k8s/k8s.mk
include tests/bench/bench.mk
include tests/fuzz/fuzz.mk

# Installs what `make all` built under $(DESTDIR) (image/stage.sh: DESTDIR=build/guest), with
# the guest suites' tools; `make deb` packages krsi-install and hook-install alone.
install: krsi-install tools-install

help:
	@echo "make demo         boot the guest and show containers allowed and denied"
	@echo "make check        the walls, host unit tests (also under ASan/UBSan), fuzzing, then the guest suites ($(GUEST_SUITES))"
	@echo "make check-walls  what each folder may include, no daemon statics, files <= 900 and functions <= 120 lines"
	@echo "make deb          the Debian package, build/krsi_VERSION_amd64.deb, checked by lintian"
	@echo "make check-man    the man pages against --help and the profile parser, bash completion against --help"
	@echo "make fuzz         replay tests/fuzz/regress, then fuzz each parser for FUZZ_SECONDS (30)"
	@echo "make unit-asan    host unit tests built with ASan, UBSan and LeakSanitizer"
	@echo "make krsid-image  the krsid container image, an OCI archive: $(BUILD)/krsid-image.tar"
	@echo "make guest-repeat N=5 [J=2]  every guest suite N times from fresh boots (J guests at once): runs passed per suite"
	@echo "make bench        measure what krsi costs (guest instructions per operation), write tests/bench/results.md"
	@echo "make deps         install the Debian packages everything needs"
	@echo "make kernel       build the patched kernel (cached in $(KRSI_CACHE)/kernel)"
	@echo "make image        build the guest root file system (cached in $(KRSI_CACHE)/image)"
	@echo "make selftests    build the kernel's BPF selftests (cached in $(KRSI_CACHE)/selftests)"
	@echo "make kernel-patches  regenerate kernel/patches from the kernel git tree"
	@echo "make clean-cache  remove $(KRSI_CACHE)"

deps:
	@scripts/deps.sh

kernel:
	@scripts/kernel-build.sh

kernel-patches:
	@scripts/kernel-patches.sh

image:
	@image/build.sh

# The project's files as they are installed in the guest; the guest's init copies this tree
# over / at boot, so a code change never rebuilds the image.
stage: all
	@rm -rf $(GUEST)
	@image/stage.sh $(GUEST)

# The Debian package, build/krsi_VERSION_amd64.deb, checked by lintian (packaging/deb.sh).
deb: all
	@packaging/deb.sh

# The deb suite's guest files: the package and the suites under /opt/krsi-tests, no krsi.
deb-stage: deb
	@rm -rf $(BUILD)/guest-deb
	@mkdir -p $(BUILD)/guest-deb/opt/krsi-tests/lib
	@cp -R tests/integration/. $(BUILD)/guest-deb/opt/krsi-tests/
	@cp -R tests/lib/. $(BUILD)/guest-deb/opt/krsi-tests/lib/
	@cp $(BUILD)/krsi_*_*.deb $(BUILD)/guest-deb/opt/krsi-tests/

# The walls between the folders, and the size of files and functions (scripts/check-walls.sh).
check-walls:
	@mkdir -p $(RESULTS)
	@scripts/check-walls.sh >$(RESULTS)/walls.tap; rc=$$?; cat $(RESULTS)/walls.tap; exit $$rc

# The man pages against --help and the parser, bash completion against --help
# (scripts/check-man.sh).
check-man: all
	@mkdir -p $(RESULTS)
	@scripts/check-man.sh $(BUILD) >$(RESULTS)/man.tap; rc=$$?; cat $(RESULTS)/man.tap; exit $$rc

unit:
	@mkdir -p $(RESULTS)
	@tests/unit/run.sh >$(RESULTS)/unit.tap; rc=$$?; cat $(RESULTS)/unit.tap; exit $$rc

# The runner's own checks: a guest's status reaches the host; a failing, panicking or hanging
# guest never passes.
vm-selftest:
	@mkdir -p $(RESULTS)
	@tests/vm/selftest.sh | tee $(RESULTS)/vm-selftest.tap

selftests: kernel
	@scripts/selftests-build.sh

# Each suite boots its own guest, with the selftests shared at /opt/selftests and the runner
# arguments of its "# vm-args:" line. A suite's failure is counted by tests/summary.sh.
guest-check: stage deb-stage
	@for s in $(GUEST_SUITES); do echo "== guest suite $$s"; tests/vm/suite.sh $$s $(RESULTS); done

# Every guest suite N times, each from a fresh boot, no check retried, J guests side by side:
# how many runs of each passed (tests/vm/repeat.sh; the last table is in tests/vm/REPEAT.md).
N ?= 5
J ?= 1
guest-repeat: stage deb-stage selftests image
	@tests/vm/repeat.sh -j $(J) $(N) $(GUEST_SUITES)

check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-walls
	@$(MAKE) --no-print-directory check-man
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory unit-asan
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory kernel
	@$(MAKE) --no-print-directory selftests
	@$(MAKE) --no-print-directory image
	@$(MAKE) --no-print-directory vm-selftest
	@$(MAKE) --no-print-directory guest-check
	@tests/summary.sh $(RESULTS) walls man unit unit-asan fuzz vm-selftest $(GUEST_SUITES)

demo: deps
	@$(MAKE) --no-print-directory all kernel image stage
	@tests/vm/run -- /usr/lib/krsi/demo.sh

# Benchmarks, not tests: one guest boot with -icount (the guest clock counts instructions), staged
# privately in $(BENCH_STAGE); tests/bench/report.py prints the table and writes results.md.
BENCH_STAGE := $(BUILD)/bench-stage
BENCH_RESULTS := $(BUILD)/bench
# BENCH_QUICK=1: a short run (fewer iterations and cgroups) for development, reported in
# $(BENCH_RESULTS)/results.md. KRSI_KERNEL=BZIMAGE: boot that kernel, build none.
BENCH_QUICK ?= 0
BENCH_MD := $(if $(filter 1,$(BENCH_QUICK)),$(BENCH_RESULTS)/results.md,tests/bench/results.md)
bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all bench-programs image $(if $(KRSI_KERNEL),,kernel)
	@rm -rf $(BENCH_STAGE) && image/stage.sh $(BENCH_STAGE) >/dev/null
	@$(MAKE) --no-print-directory bench-install DESTDIR=$(CURDIR)/$(BENCH_STAGE) >/dev/null
	@rm -rf $(BENCH_RESULTS) && mkdir -p $(BENCH_RESULTS)
	@s=$$(date +%s); tests/vm/run --bench --lsm capability,landlock,yama,apparmor,bpf --stage $(BENCH_STAGE) --results $(BENCH_RESULTS) \
		--timeout 3600 -- "KRSI_BENCH_QUICK=$(BENCH_QUICK) /usr/lib/krsi/bench/guest.sh"; \
	rc=$$?; echo "host_wall_s	$$(( $$(date +%s) - s ))" >>$(BENCH_RESULTS)/agent.tsv; exit $$rc
	@tests/bench/report.py $(BENCH_RESULTS) $(BENCH_MD)

clean:
	rm -rf $(BUILD)

clean-cache:
	rm -rf $(KRSI_CACHE)
