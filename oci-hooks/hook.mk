# Build rules for krsi-oci-hook and its hooks.d file. Included by the top-level Makefile after
# agent/krsi.mk, whose flags and common objects it reuses. The hook links the control protocol
# and the cgroup lookups, never libbpf.

HOOK_OBJ := $(BUILD)/obj/krsi-oci-hook.o $(BUILD)/obj/oci_state.o $(BUILD)/obj/protocol.o \
	$(BUILD)/obj/cgroup.o

$(BUILD)/obj/krsi-oci-hook.o $(BUILD)/obj/oci_state.o: $(BUILD)/obj/%.o: oci-hooks/%.c \
		oci-hooks/oci_state.h $(KRSI_HDR) | $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -c $< -o $@

# Linked statically: a runtime starts the hook twice per container, and the dynamic loader's
# relocation of libc and libjson-c was a large part of each start (tests/bench/results.md).
$(BUILD)/krsi-oci-hook: $(HOOK_OBJ)
	$(CC) $(CFLAGS) -static -o $@ $^ -ljson-c

# The unit runner (agent/krsi.mk) compiles $(UNIT_SRC) into one program: the state parser and
# krsictl's oci-inject logic join it, tested by tests/unit/test_hook.c. Its prerequisites were
# expanded when agent/krsi.mk was read, hence the extra rule.
UNIT_SRC += oci-hooks/oci_state.c agent/oci_inject.c
$(BUILD)/krsi-unit: oci-hooks/oci_state.c oci-hooks/oci_state.h agent/oci_inject.c \
	agent/oci_inject.h

all: $(BUILD)/krsi-oci-hook

hook-install: $(BUILD)/krsi-oci-hook
	install -D -m 0755 $(BUILD)/krsi-oci-hook $(DESTDIR)/usr/libexec/krsi/krsi-oci-hook
	install -D -m 0644 oci-hooks/krsi.json \
		$(DESTDIR)/usr/share/containers/oci/hooks.d/krsi.json

install: hook-install

.PHONY: hook-install
