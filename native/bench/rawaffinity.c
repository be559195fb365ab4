/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor of the pin-cost benchmark: sched_setaffinity and sched_getaffinity as raw syscalls in a loop,
 * with nothing between them and the kernel. Every setaffinity call alternates between two CPUs, so each one
 * really moves the thread, as the JMH benchmarks do.
 *
 * usage: rawaffinity CPU_A CPU_B ROUNDS ITERATIONS
 * prints one line per round: "round N setaffinity_ns X getaffinity_ns Y"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RAWAFF_POSSIBLE "/sys/devices/system/cpu/possible"

static void rawaff_die(const char *what)
{
	fprintf(stderr, "rawaffinity: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long rawaff_number(const char *text, const char *name)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || value < 0) {
		fprintf(stderr, "rawaffinity: %s \"%s\" is not a non-negative number\n", name, text);
		exit(2);
	}
	return value;
}

/* The mask size the kernel wants: the last possible CPU + 1 bits, in whole longs. */
static size_t rawaff_mask_bytes(void)
{
	FILE *file = fopen(RAWAFF_POSSIBLE, "r");
	char line[256];
	char *last;
	long bits;

	if (file == NULL)
		rawaff_die(RAWAFF_POSSIBLE);
	if (fgets(line, sizeof(line), file) == NULL)
		rawaff_die("reading " RAWAFF_POSSIBLE);
	if (fclose(file) != 0)
		rawaff_die("closing " RAWAFF_POSSIBLE);
	line[strcspn(line, "\n")] = '\0';
	last = strrchr(line, '-');
	last = last == NULL ? strrchr(line, ',') : last;
	bits = rawaff_number(last == NULL ? line : last + 1, RAWAFF_POSSIBLE) + 1;
	return (size_t)((bits + 63) / 64) * sizeof(unsigned long);
}

static double rawaff_now_ns(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		rawaff_die("clock_gettime");
	return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long *masks[2];
	unsigned long *readback;
	size_t bytes;
	long cpus[2], rounds, iterations, round, i;
	int m;

	if (argc != 5) {
		fprintf(stderr, "usage: rawaffinity CPU_A CPU_B ROUNDS ITERATIONS\n");
		return 2;
	}
	cpus[0] = rawaff_number(argv[1], "CPU_A");
	cpus[1] = rawaff_number(argv[2], "CPU_B");
	rounds = rawaff_number(argv[3], "ROUNDS");
	iterations = rawaff_number(argv[4], "ITERATIONS");
	if (iterations == 0) {
		fprintf(stderr, "rawaffinity: ITERATIONS must be at least 1\n");
		return 2;
	}
	bytes = rawaff_mask_bytes();
	readback = calloc(1, bytes);
	if (readback == NULL)
		rawaff_die("calloc");
	for (m = 0; m < 2; m++) {
		if ((size_t)cpus[m] >= bytes * 8) {
			fprintf(stderr, "rawaffinity: CPU %ld is beyond the possible CPUs\n", cpus[m]);
			return 2;
		}
		masks[m] = calloc(1, bytes);
		if (masks[m] == NULL)
			rawaff_die("calloc");
		masks[m][cpus[m] / 64] |= 1UL << (cpus[m] % 64);
	}
	for (round = 0; round < rounds; round++) {
		double start, set_ns, get_ns;

		start = rawaff_now_ns();
		for (i = 0; i < iterations; i++) {
			if (syscall(SYS_sched_setaffinity, 0, bytes, masks[i & 1]) != 0)
				rawaff_die("sched_setaffinity");
		}
		set_ns = (rawaff_now_ns() - start) / (double)iterations;
		start = rawaff_now_ns();
		for (i = 0; i < iterations; i++) {
			if (syscall(SYS_sched_getaffinity, 0, bytes, readback) < 0)
				rawaff_die("sched_getaffinity");
		}
		get_ns = (rawaff_now_ns() - start) / (double)iterations;
		if (printf("round %ld setaffinity_ns %.1f getaffinity_ns %.1f\n", round, set_ns, get_ns) < 0)
			rawaff_die("printf");
	}
	for (m = 0; m < 2; m++)
		free(masks[m]);
	free(readback);
	return fflush(stdout) == 0 ? 0 : 1;
}
