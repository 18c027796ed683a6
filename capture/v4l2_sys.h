/* capture: the system calls of the V4L2 backend as a table, so that tests
 * can put a fake camera behind them (buffer handling, format negotiation,
 * unplugging and reconnecting all run in CI without a webcam). Private to
 * capture/ and its tests. */
#ifndef TEPPICH_CAP_V4L2_SYS_H
#define TEPPICH_CAP_V4L2_SYS_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct cap__v4l2_sys {
  void *ctx; /* handed to every call */
  /* Same contracts as the libc calls: -1 and errno on failure. */
  int (*open)(void *ctx, const char *path, int flags);
  int (*close)(void *ctx, int fd);
  int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
  void *(*mmap)(void *ctx, size_t len, int prot, int flags, int fd,
                off_t offset);
  int (*munmap)(void *ctx, void *addr, size_t len);
  int (*poll)(void *ctx, struct pollfd *fds, nfds_t n, int timeout_ms);
  /* waits between reconnect attempts */
  void (*sleep_ms)(void *ctx, int ms);
} cap__v4l2_sys;

/* The real system calls. */
const cap__v4l2_sys *cap__v4l2_real_sys(void);

#endif
