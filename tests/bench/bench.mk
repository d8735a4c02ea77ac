# Build rules for the benchmark's guest programs (tests/bench/). Included by the top-level
# Makefile after agent/krsi.mk, whose flags it reuses. `make bench` stages them privately;
# nothing here is part of `make install` or `make check`.

BENCH_ALL := $(BUILD)/krsi-bench $(BUILD)/krsi-true $(BUILD)/krsi-floor $(BUILD)/floor.bpf.o

# Registers containers through agent/lib/request.c and protocol.c, like krsictl.
$(BUILD)/krsi-bench: tests/bench/krsi-bench.c $(BUILD)/obj/agent/lib/protocol.o \
		$(BUILD)/obj/agent/lib/proto_connect.o $(BUILD)/obj/agent/lib/request.o \
		| $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -o $@ $^ -ljson-c

$(BUILD)/krsi-true: tests/bench/krsi-true.c | $(BUILD)/obj
	$(CC) -O2 -static -nostdlib -fno-stack-protector -fcf-protection=none -o $@ $<

# The empty LSM programs of the floor column, and the loader that attaches them around a loop.
$(BUILD)/floor.bpf.o: tests/bench/floor.bpf.c bpf/vmlinux.h | $(BUILD)/obj
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/krsi-floor: tests/bench/krsi-floor.c | $(BUILD)/obj
	$(CC) $(CFLAGS) $(KRSI_CFLAGS) -o $@ $< -lbpf -lelf -lz

bench-programs: $(BENCH_ALL)

bench-install: $(BENCH_ALL)
	install -D -m 0755 $(BUILD)/krsi-bench $(DESTDIR)/usr/lib/krsi/bench/krsi-bench
	install -D -m 0755 $(BUILD)/krsi-true $(DESTDIR)/usr/lib/krsi/bench/krsi-true
	install -D -m 0755 $(BUILD)/krsi-floor $(DESTDIR)/usr/lib/krsi/bench/krsi-floor
	install -D -m 0644 $(BUILD)/floor.bpf.o $(DESTDIR)/usr/lib/krsi/bench/floor.bpf.o
	install -D -m 0755 tests/bench/guest.sh $(DESTDIR)/usr/lib/krsi/bench/guest.sh
	install -D -m 0755 tests/bench/workload.sh $(DESTDIR)/usr/lib/krsi/bench/workload.sh

.PHONY: bench-programs bench-install
