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
/* SO_INCOMING_NAPI_ID steering and per-epoll busy polling */
#include <sys/ioctl.h>
#include <linux/types.h>
#ifndef EPIOCSPARAMS
/*
 * Linux 6.9's <linux/eventpoll.h> epoll busy-poll parameters, for build machines whose kernel headers are older
 * (Debian 12's are 6.1). The layout and ioctl numbers are the kernel's ABI; a kernel before 6.9 answers ENOTTY.
 */
struct epoll_params {
    __u32 busy_poll_usecs;
    __u16 busy_poll_budget;
    __u8 prefer_busy_poll;
    __u8 __pad;
};
#define EPOLL_IOC_TYPE 0x8A
#define EPIOCSPARAMS _IOW(EPOLL_IOC_TYPE, 0x01, struct epoll_params)
#define EPIOCGPARAMS _IOR(EPOLL_IOC_TYPE, 0x02, struct epoll_params)
#endif
/* watch's netlink sockets */
#include <linux/netlink.h>
#include <poll.h>
