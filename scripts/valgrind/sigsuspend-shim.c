/*
 * sigsuspend for programs run under valgrind 3.19 (LD_PRELOAD this, built by
 * scripts/bench-instructions.sh with `cc -shared -fPIC`).
 *
 * Why: libdispatch calls sigsuspend with a pointer to a `static const sigset_t`, which lives in
 * read-only memory, and valgrind's syscall wrapper writes into the mask it is given, so the
 * process dies with SIGSEGV under valgrind (never natively). This version copies the mask to the
 * stack first and makes the raw rt_sigsuspend call on the copy.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy;
    memcpy(&copy, mask, sizeof copy);
    /* The kernel's sigset is _NSIG bits, not glibc's 1,024-bit sigset_t. */
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
