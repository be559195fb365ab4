/*
 * The one header jextract reads for numaspread's FFM bindings (scripts/generate-bindings). Each argfile
 * beside it (libc.txt, libnuma.txt) picks the symbols of one library from it.
 */
#define _GNU_SOURCE
#include <numa.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>
/* watch's netlink sockets */
#include <linux/netlink.h>
#include <poll.h>
