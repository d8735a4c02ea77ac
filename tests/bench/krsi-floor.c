// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-floor CMD [ARG...]: attach the empty LSM programs of floor.bpf.c, run CMD, detach them
 * (they go with this process). For `make bench` only: the floor column of its table, measured
 * in the same boot as krsi. Loads into the guest's kernel, never the build machine's.
 *
 * For experiments: KRSI_FLOOR_OBJ=FILE loads another object, and KRSI_FLOOR_PROG=NAME loads and
 * attaches only that program of it (krsi.bpf.o's file_open alone, with its maps fresh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: krsi-floor CMD [ARG...]\n");
		return 2;
	}
	const char *file = getenv("KRSI_FLOOR_OBJ"), *only = getenv("KRSI_FLOOR_PROG");

	obj = bpf_object__open_file(file ? file : "/usr/lib/krsi/bench/floor.bpf.o", NULL);
	if (obj && only)
		bpf_object__for_each_program(prog, obj)
			bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), only));
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "krsi-floor: load floor.bpf.o: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "krsi-floor: attach %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			return 1;
		}
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "krsi-floor: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "krsi-floor: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
