# Build rules for the BPF objects, krsid, krsictl, krsi-probe and the unit test runner.
# Included by the top-level Makefile; outputs go to $(BUILD). Needs no kernel build: bpf/vmlinux.h
# is committed, dumped from the patched kernel's BTF (make vmlinux-h regenerates it).

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
KRSI_CFLAGS := -Wall -Werror -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-std=gnu11 -D_GNU_SOURCE -I$(BUILD) -I. -Iagent
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -Ibpf -I$(BUILD)

# The folders (agent/README.md): lib/ is shared by krsid, krsictl, the OCI hook and the test
# tools; policy/ is the policy logic both krsid and krsictl use; daemon/ is krsid; cli/ krsictl.
KRSI_LIB := $(wildcard agent/lib/*.c)
KRSI_POLICY := $(wildcard agent/policy/*.c)
KRSI_DAEMON := $(wildcard agent/daemon/*.c)
KRSI_CLI := $(wildcard agent/cli/*.c)
# An object's path mirrors its source's (agent/cli/events.c: build/obj/agent/cli/events.o).
obj = $(addprefix $(BUILD)/obj/,$(1:.c=.o))
KRSI_COMMON_OBJ := $(call obj,$(KRSI_LIB) $(KRSI_POLICY))
# The KubeArmor importer (libyaml) is krsictl's alone.
KRSID_OBJ := $(call obj,$(KRSI_DAEMON)) $(filter-out %/kubearmor.o,$(KRSI_COMMON_OBJ))
KRSICTL_OBJ := $(call obj,$(KRSI_CLI)) $(KRSI_COMMON_OBJ)
UNIT_SRC := $(wildcard tests/unit/*.c)
KRSI_HDR := $(wildcard agent/*/*.h) bpf/krsi.h

KRSI_ALL := $(BUILD)/krsi.bpf.o $(BUILD)/krsid $(BUILD)/krsictl $(BUILD)/krsi-probe $(BUILD)/krsi-load \
	$(BUILD)/krsi-fault.so

krsi-all: $(KRSI_ALL)

$(BUILD)/obj $(BUILD)/unit:
	@mkdir -p $@

$(BUILD)/krsi.bpf.o: bpf/krsi.bpf.c bpf/vmlinux.h $(wildcard bpf/*.h) | $(BUILD)/obj
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/krsi.skel.h: $(BUILD)/krsi.bpf.o
	$(BPFTOOL) gen skeleton $< name krsi > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(KRSI_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -c $< -o $@

$(BUILD)/obj/agent/daemon/bpfobj.o: $(BUILD)/krsi.skel.h

$(BUILD)/krsid: $(KRSID_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lbpf -lelf -lz -ljson-c

$(BUILD)/krsictl: $(KRSICTL_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ljson-c -lyaml

$(BUILD)/krsi-probe: tests/tools/krsi-probe.c | $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -o $@ $<

# Writes its requests with agent/lib/request.c, which needs no json-c.
$(BUILD)/krsi-load: tests/tools/krsi-load.c $(BUILD)/obj/agent/lib/request.o | $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -o $@ $^

# The faults suite's map-write fault injection (tests/tools/krsi-fault.c).
$(BUILD)/krsi-fault.so: tests/tools/krsi-fault.c | $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -shared -fPIC -o $@ $< -ldl

$(BUILD)/krsi-unit: $(UNIT_SRC) $(wildcard tests/unit/*.h) $(KRSI_COMMON_OBJ) \
		$(BUILD)/obj/agent/daemon/resolve.o bpf/sockaddr.h
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -DKRSI_SRC='"$(CURDIR)"' -o $@ $(UNIT_SRC) $(KRSI_COMMON_OBJ) \
		$(BUILD)/obj/agent/daemon/resolve.o -ljson-c -lyaml

# Regenerate bpf/vmlinux.h from the patched kernel's BTF (never from this machine's kernel): the
# cached vmlinux.btf when bpftool can read it, else the vmlinux of the kernel build tree.
vmlinux-h:
	@d=$$(scripts/kernel-build.sh --print-dir); src=$$d/vmlinux.btf; \
	$(BPFTOOL) btf dump file "$$src" format c >/dev/null 2>&1 || src=$(KRSI_CACHE)/kernel/build/vmlinux; \
	test -f "$$src" || { echo "no BTF of the krsi kernel: run make kernel first" >&2; exit 1; }; \
	$(BPFTOOL) btf dump file "$$src" format c > bpf/vmlinux.h.tmp && \
	mv bpf/vmlinux.h.tmp bpf/vmlinux.h && echo "bpf/vmlinux.h from $$src"

PREFIX ?= /usr
krsi-install: $(KRSI_ALL)
	install -D -m 0755 $(BUILD)/krsid $(DESTDIR)/usr/sbin/krsid
	install -D -m 0755 $(BUILD)/krsictl $(DESTDIR)/usr/bin/krsictl
	install -D -m 0644 $(BUILD)/krsi.bpf.o $(DESTDIR)/usr/lib/krsi/krsi.bpf.o
	install -d $(DESTDIR)/etc/krsi/profiles
	install -m 0644 agent/profiles/*.json $(DESTDIR)/etc/krsi/profiles/
	install -D -m 0644 agent/krsid.service $(DESTDIR)/lib/systemd/system/krsid.service
	install -D -m 0644 agent/cli/krsictl.bash $(DESTDIR)/usr/share/bash-completion/completions/krsictl
	install -d $(DESTDIR)/usr/share/man/man5 $(DESTDIR)/usr/share/man/man8
	install -m 0644 man/*.5 $(DESTDIR)/usr/share/man/man5/
	install -m 0644 man/*.8 $(DESTDIR)/usr/share/man/man8/

# The guest suites' tools, installed beside the product in the test guest, not packaged.
tools-install: $(KRSI_ALL)
	install -D -m 0755 $(BUILD)/krsi-probe $(DESTDIR)/usr/lib/krsi/krsi-probe
	install -D -m 0755 $(BUILD)/krsi-load $(DESTDIR)/usr/lib/krsi/krsi-load
	install -D -m 0644 $(BUILD)/krsi-fault.so $(DESTDIR)/usr/lib/krsi/krsi-fault.so

.PHONY: vmlinux-h krsi-all krsi-install tools-install
