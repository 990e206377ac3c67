/* A log of every large allocation and its callers, for finding native memory a process keeps
 * (docs/notes/soak.md, "The sampler chains"). Not part of the app; a diagnostic.
 *
 *   gcc -O2 -shared -fPIC -o /tmp/malloc-log.so docs/notes/soak-malloc-log.c -ldl -lpthread
 *   mkdir -p /tmp/mlog && MEMSHIM_DIR=/tmp/mlog LD_PRELOAD=/tmp/malloc-log.so \
 *       .venv/bin/desktop-agent bench soak --turns 60 --load 1 --json
 *
 * Each process writes MEMSHIM_DIR/<pid>.log: "A <ptr> <size> <seconds> <thread> <lib+offset>..."
 * for every block of MIN_SIZE or more (its callers resolved with dladdr; `addr2line -f -C -e
 * <lib> 0x<offset>` names the function), "F <ptr> <seconds>" when such a block is freed.
 * The blocks allocated after the warm-up and not freed by some late time, grouped by their
 * first callers, are what the process holds.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

#define MIN_SIZE (64 * 1024)
#define TABLE_BITS 21
#define TABLE (1 << TABLE_BITS)
#define TOMBSTONE ((void *)1)

static void *table[TABLE]; /* the logged blocks still held: only their frees are logged */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1, disabled;
static __thread int inside; /* backtrace() and dladdr() may allocate: never log those */

static size_t slot(void *p) {
    return (((uintptr_t)p >> 4) * 11400714819323198485ull) >> (64 - TABLE_BITS);
}
static void remember(void *p) {
    size_t i = slot(p);
    while (table[i] && table[i] != TOMBSTONE) i = (i + 1) & (TABLE - 1);
    table[i] = p;
}
static int forget(void *p) {
    for (size_t i = slot(p); table[i]; i = (i + 1) & (TABLE - 1))
        if (table[i] == p) { table[i] = TOMBSTONE; return 1; }
    return 0;
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static void open_log(void) {
    if (fd >= 0 || disabled) return;
    const char *dir = getenv("MEMSHIM_DIR");
    char path[512];
    if (!dir) { disabled = 1; return; }
    snprintf(path, sizeof path, "%s/%d.log", dir, getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) disabled = 1;
}
static void logged_alloc(void *p, size_t n) {
    if (!p || n < MIN_SIZE || inside) return;
    inside = 1;
    void *frames[24];
    int k = backtrace(frames, 24);
    char line[8192];
    int len = snprintf(line, sizeof line, "A %p %zu %.3f %ld", p, n, now(),
                       (long)syscall(SYS_gettid));
    for (int i = 1; i < k && len < (int)sizeof line - 300; i++) {
        Dl_info info;
        if (dladdr(frames[i], &info) && info.dli_fname) {
            const char *base = strrchr(info.dli_fname, '/');
            len += snprintf(line + len, sizeof line - len, " %s+%lx",
                            base ? base + 1 : info.dli_fname,
                            (unsigned long)((char *)frames[i] - (char *)info.dli_fbase));
        } else {
            len += snprintf(line + len, sizeof line - len, " ?%p", frames[i]);
        }
    }
    line[len++] = '\n';
    pthread_mutex_lock(&lock);
    open_log();
    if (fd >= 0) { remember(p); if (write(fd, line, len) < 0) disabled = 1; }
    pthread_mutex_unlock(&lock);
    inside = 0;
}
static void logged_free(void *p) {
    if (!p || inside || fd < 0) return;
    inside = 1;
    pthread_mutex_lock(&lock);
    if (forget(p)) {
        char line[96];
        int len = snprintf(line, sizeof line, "F %p %.3f\n", p, now());
        if (write(fd, line, len) < 0) disabled = 1;
    }
    pthread_mutex_unlock(&lock);
    inside = 0;
}

void *malloc(size_t n) { void *p = __libc_malloc(n); logged_alloc(p, n); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); logged_alloc(p, a * b); return p; }
void free(void *p) { logged_free(p); __libc_free(p); }
void *realloc(void *q, size_t n) {
    logged_free(q);
    void *p = __libc_realloc(q, n);
    logged_alloc(p, n);
    return p;
}
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = __libc_memalign(a, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    logged_alloc(p, n);
    return 0;
}
void *aligned_alloc(size_t a, size_t n) { void *p = __libc_memalign(a, n); logged_alloc(p, n); return p; }
void *memalign(size_t a, size_t n) { void *p = __libc_memalign(a, n); logged_alloc(p, n); return p; }

__attribute__((constructor)) static void warm(void) {
    void *frames[4];
    inside = 1; /* the first backtrace() loads libgcc_s, which allocates */
    backtrace(frames, 4);
    inside = 0;
}
