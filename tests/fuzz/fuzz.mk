# libFuzzer targets for the parsers of untrusted input (tests/fuzz/fuzz_*.c), and the host unit
# tests built with the sanitizers. Included by the top-level Makefile after agent/krsi.mk and
# oci-hooks/hook.mk, whose flags it reuses.
#
# `make fuzz`: replay tests/fuzz/regress/<target>/, then fuzz each target for FUZZ_SECONDS
# (tests/fuzz/run.sh); TAP in $(RESULTS)/fuzz.tap. `make unit-asan`: tests/unit under ASan,
# UBSan and LeakSanitizer (tests/unit/run.sh --asan); TAP in $(RESULTS)/unit-asan.tap.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= profile protocol jsonr oci_state oci_inject identity metrics_http runc_args kubearmor
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
export FUZZ_SECONDS FUZZ_TARGETS

# The modules each target links: the real parsers, compiled with the fuzzer's flags.
FUZZ_OBJ_profile := agent/policy/profile agent/policy/compile agent/policy/names agent/lib/request
FUZZ_OBJ_protocol := agent/lib/protocol agent/lib/proto_connect agent/lib/request
FUZZ_OBJ_jsonr := agent/lib/jsonr
FUZZ_OBJ_oci_state := oci-hooks/oci_state agent/lib/jsonr
FUZZ_OBJ_oci_inject := agent/lib/oci_inject
FUZZ_OBJ_identity := agent/policy/identity agent/lib/cgroup agent/lib/jsonr
FUZZ_OBJ_metrics_http := agent/policy/metrics
FUZZ_OBJ_runc_args := agent/lib/runc_args agent/lib/request
FUZZ_OBJ_kubearmor := agent/policy/kubearmor agent/policy/profile agent/policy/compile \
	agent/policy/names agent/lib/request

$(FUZZ_DIR)/obj:
	@mkdir -p $@

$(FUZZ_DIR)/obj/%.o: %.c $(KRSI_HDR) oci-hooks/oci_state.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(KRSI_CFLAGS) -c $< -o $@

define fuzz_target
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_OBJ_$(1):%=$(FUZZ_DIR)/obj/%.o)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(KRSI_CFLAGS) -o $$@ $$^ -ljson-c -lyaml
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target,$(t))))

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# tests/fuzz/run.sh builds the targets itself, so that a build failure is a TAP line too.
fuzz:
	@mkdir -p $(RESULTS)
	@tests/fuzz/run.sh --tap $(RESULTS)/fuzz.tap

unit-asan:
	@mkdir -p $(RESULTS)
	@tests/unit/run.sh --asan >$(RESULTS)/unit-asan.tap; rc=$$?; cat $(RESULTS)/unit-asan.tap; exit $$rc

.PHONY: fuzz fuzz-build unit-asan
