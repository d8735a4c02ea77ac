# Build rules for krsi-oci-hook and its hooks.d file. Included by the top-level Makefile after
# agent/krsi.mk, whose flags and common objects it reuses. The hook links the control protocol
# and the cgroup lookups, never libbpf.

# The hook is built with musl (Debian's musl-tools), statically and without json-c: a runtime
# starts it for every container, and a static glibc program spends about 0.25 M instructions
# in its own start-up (IRELATIVE relocations, /proc/self/exe, malloc's arena) before main()
# (make bench). It reads JSON with agent/lib/jsonr.c and writes its requests with
# agent/lib/request.c, neither of which needs a JSON library. musl's headers leave out the
# kernel's uapi ones (<linux/magic.h>, and <linux/types.h> for bpf/krsi.h): $(HOOK_INC) points
# at Debian's.
MUSL_CC ?= musl-gcc
HOOK_DIR := $(BUILD)/hook
HOOK_INC := $(HOOK_DIR)/include
HOOK_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
HOOK_SRC := oci-hooks/krsi-oci-hook.c oci-hooks/oci_state.c agent/lib/jsonr.c agent/lib/cgroup.c \
	agent/lib/proto_connect.c agent/lib/request.c
HOOK_OBJ := $(addprefix $(HOOK_DIR)/,$(notdir $(HOOK_SRC:.c=.o)))
HOOK_CFLAGS := $(filter-out -I$(BUILD),$(KRSI_CFLAGS)) -isystem $(HOOK_INC)

$(HOOK_INC)/.stamp:
	@command -v $(MUSL_CC) >/dev/null || { echo "krsi-oci-hook: $(MUSL_CC) not found:" \
		"apt-get install musl-tools (scripts/deps.sh installs what the build needs)" >&2; \
		exit 1; }
	@mkdir -p $(HOOK_INC)
	ln -sfn /usr/include/linux $(HOOK_INC)/linux
	ln -sfn /usr/include/asm-generic $(HOOK_INC)/asm-generic
	ln -sfn /usr/include/$(HOOK_MULTIARCH)/asm $(HOOK_INC)/asm
	@touch $@

$(HOOK_DIR)/%.o: oci-hooks/%.c oci-hooks/oci_state.h $(KRSI_HDR) \
		$(HOOK_INC)/.stamp
	$(MUSL_CC) $(CFLAGS) $(HOOK_CFLAGS) -c $< -o $@

$(HOOK_DIR)/%.o: agent/lib/%.c $(KRSI_HDR) $(HOOK_INC)/.stamp
	$(MUSL_CC) $(CFLAGS) $(HOOK_CFLAGS) -c $< -o $@

$(BUILD)/krsi-oci-hook: $(HOOK_OBJ)
	$(MUSL_CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $^

# The unit runner (agent/krsi.mk) compiles $(UNIT_SRC) into one program: the state parser and
# krsictl's oci-inject logic join it, tested by tests/unit/test_hook.c. Its prerequisites were
# expanded when agent/krsi.mk was read, hence the extra rule.
UNIT_SRC += oci-hooks/oci_state.c
$(BUILD)/krsi-unit: oci-hooks/oci_state.c oci-hooks/oci_state.h

# krsi-runc, the runc wrapper for Docker and containerd (oci-hooks/krsi-runc.c): it edits
# config.json with krsictl's oci-inject code, so it links json-c, dynamically like runc.
RUNC_OBJ := $(call obj,oci-hooks/krsi-runc.c agent/lib/oci_inject.c agent/lib/runc_args.c \
	agent/lib/request.c)
$(BUILD)/krsi-runc: $(RUNC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ljson-c

all: $(BUILD)/krsi-oci-hook $(BUILD)/krsi-runc

hook-install: $(BUILD)/krsi-oci-hook $(BUILD)/krsi-runc
	install -D -m 0755 $(BUILD)/krsi-oci-hook $(DESTDIR)/usr/libexec/krsi/krsi-oci-hook
	install -D -m 0755 $(BUILD)/krsi-runc $(DESTDIR)/usr/libexec/krsi/krsi-runc
	install -D -m 0644 oci-hooks/krsi.json \
		$(DESTDIR)/usr/share/containers/oci/hooks.d/krsi.json

install: hook-install

.PHONY: hook-install
