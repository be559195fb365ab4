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
/* io_uring loops' NAPI busy polling: io_uring_register(2), which glibc does not wrap, through syscall(2) */
#include <sys/syscall.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#include <linux/io_uring.h>
#else
/*
 * Linux 6.13's IORING_REGISTER_NAPI argument, for build machines whose kernel headers are older (Debian 12's are
 * 6.1; 6.9 to 6.12 have the struct without opcode and op_param, where 6.13 has pad[0] and resv). The layout and
 * numbers are the kernel's ABI; <linux/io_uring.h> is left out here so that the two never meet.
 */
enum io_uring_register_op {
    IORING_REGISTER_NAPI = 27,
    IORING_UNREGISTER_NAPI = 28,
};
enum io_uring_napi_op {
    IO_URING_NAPI_REGISTER_OP = 0,
    IO_URING_NAPI_STATIC_ADD_ID = 1,
    IO_URING_NAPI_STATIC_DEL_ID = 2
};
enum io_uring_napi_tracking_strategy {
    IO_URING_NAPI_TRACKING_DYNAMIC = 0,
    IO_URING_NAPI_TRACKING_STATIC = 1,
    IO_URING_NAPI_TRACKING_INACTIVE = 255
};
struct io_uring_napi {
    __u32 busy_poll_to;
    __u8 prefer_busy_poll;
    __u8 opcode;
    __u8 pad[2];
    __u32 op_param;
    __u32 resv;
};
#endif
