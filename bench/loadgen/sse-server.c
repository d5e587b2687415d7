/*
 * A zero-latency streaming server for bench/loadgen: answers every POST with the same static SSE body (the file
 * given), like nginx does in the same bench, and in addition timestamps each request on CLOCK_MONOTONIC (the clock
 * of Java's System.nanoTime on Linux) so that the bench can split a request's TTFT into the client's part and the
 * server's part:
 *   rx_ns    - when the kernel received the request's first bytes on the server's socket (SO_TIMESTAMPING software
 *              receive stamp, CLOCK_REALTIME, converted to CLOCK_MONOTONIC at read time); on loopback that is the
 *              moment the client's send() delivered them,
 *   read_ns  - when the server had read the whole request,
 *   sent_ns  - when the server's send() of the whole response (headers + body, first token included) returned;
 *              on loopback the bytes are then in the client's socket.
 * The request is identified by the first integer of its JSON "prompt" array (the bench puts the request index
 * there). GET /stamps returns and clears the log as lines "index rx_ns read_ns sent_ns" (rx_ns -1 when the
 * kernel gave no stamp).
 * Single-threaded, epoll, keep-alive, HTTP/1.1 with Content-Length requests only: enough for a load generator
 * on loopback, nothing more.
 * Usage: sse-server PORT BODY_FILE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/net_tstamp.h>
#include <linux/errqueue.h>

#define MAX_EVENTS 256
#define REQ_CAP 65536

struct conn {
    char req[REQ_CAP];
    size_t len;
    long long rx_ns;  /* kernel receive stamp of the first bytes of the request being read */
    const char *out; /* pending response bytes (partial write) */
    size_t out_len;
    char *owned;     /* heap copy to free once written, or NULL */
};

struct stamp { long long index, rx_ns, read_ns, sent_ns; };

static char *response;
static size_t response_len;
static struct stamp *stamps;
static size_t stamp_count, stamp_cap;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long realtime_to_monotonic(const struct timespec *rt) {
    struct timespec now_rt, now_mono;
    clock_gettime(CLOCK_REALTIME, &now_rt);
    clock_gettime(CLOCK_MONOTONIC, &now_mono);
    long long offset = ((long long) now_rt.tv_sec - now_mono.tv_sec) * 1000000000LL + (now_rt.tv_nsec - now_mono.tv_nsec);
    return (long long) rt->tv_sec * 1000000000LL + rt->tv_nsec - offset;
}

static void record(long long index, long long rx_ns, long long read_ns, long long sent_ns) {
    if (stamp_count == stamp_cap) {
        stamp_cap = stamp_cap ? stamp_cap * 2 : 1 << 16;
        stamps = realloc(stamps, stamp_cap * sizeof *stamps);
        if (!stamps) { perror("realloc"); exit(1); }
    }
    stamps[stamp_count++] = (struct stamp) {index, rx_ns, read_ns, sent_ns};
}

/* Writes what it can; returns 0 when all written, 1 when the rest waits for EPOLLOUT, -1 on error. */
static int flush_out(int fd, struct conn *c) {
    while (c->out_len > 0) {
        ssize_t n = send(fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 1;
            if (errno == EINTR) continue;
            return -1;
        }
        c->out += n;
        c->out_len -= (size_t) n;
    }
    free(c->owned);
    c->owned = NULL;
    return 0;
}

static char *stamps_response(size_t *len) {
    size_t cap = 128 + stamp_count * 96;
    char *body = malloc(cap);
    size_t off = 0;
    for (size_t i = 0; i < stamp_count; i++) {
        off += (size_t) snprintf(body + off, cap - off, "%lld %lld %lld %lld\n", stamps[i].index, stamps[i].rx_ns,
                                 stamps[i].read_ns, stamps[i].sent_ns);
    }
    stamp_count = 0;
    char *out = malloc(off + 128);
    int h = snprintf(out, 128, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n", off);
    memcpy(out + h, body, off);
    free(body);
    *len = (size_t) h + off;
    return out;
}

/* Handles every complete request in the buffer; returns -1 to close the connection. */
static int serve(int fd, struct conn *c, int epfd) {
    for (;;) {
        if (c->out_len > 0) return 0; /* one response at a time */
        char *end = memmem(c->req, c->len, "\r\n\r\n", 4);
        if (!end) return c->len == REQ_CAP ? -1 : 0;
        size_t header_len = (size_t) (end - c->req) + 4;
        size_t body_len = 0;
        char *cl = memmem(c->req, header_len, "Content-Length:", 15);
        if (!cl) cl = memmem(c->req, header_len, "content-length:", 15);
        if (cl) body_len = strtoul(cl + 15, NULL, 10);
        if (header_len + body_len > REQ_CAP) return -1;
        if (c->len < header_len + body_len) return 0;
        long long read_ns = now_ns();
        int is_stamps = c->len >= 11 && memcmp(c->req, "GET /stamps", 11) == 0;
        long long index = -1;
        char *prompt = memmem(c->req + header_len, body_len, "\"prompt\":[", 10);
        if (prompt) index = strtoll(prompt + 10, NULL, 10);
        long long rx_ns = c->rx_ns;
        size_t used = header_len + body_len;
        memmove(c->req, c->req + used, c->len - used);
        c->len -= used;
        if (is_stamps) {
            c->owned = stamps_response(&c->out_len);
            c->out = c->owned;
        } else {
            c->out = response;
            c->out_len = response_len;
        }
        int r = flush_out(fd, c);
        if (r < 0) return -1;
        if (!is_stamps) record(index, rx_ns, read_ns, r == 0 ? now_ns() : -1);
        if (r == 1) {
            struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.fd = fd};
            epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
            return 0;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s PORT BODY_FILE\n", argv[0]); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    struct stat st;
    fstat(fileno(f), &st);
    char header[256];
    int h = snprintf(header, sizeof header, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     "Cache-Control: no-cache\r\nContent-Length: %lld\r\n\r\n", (long long) st.st_size);
    response_len = (size_t) h + (size_t) st.st_size;
    response = malloc(response_len);
    memcpy(response, header, (size_t) h);
    if (fread(response + h, 1, (size_t) st.st_size, f) != (size_t) st.st_size) { perror("read body"); return 1; }
    fclose(f);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short) atoi(argv[1])),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(lfd, (struct sockaddr *) &addr, sizeof addr) < 0 || listen(lfd, 4096) < 0) { perror("listen"); return 1; }
    int epfd = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
    epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
    struct conn **conns = calloc(65536, sizeof *conns);
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(epfd, events, MAX_EVENTS, -1);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                int cfd;
                while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (cfd >= 65536) { close(cfd); continue; }
                    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    int ts = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
                    setsockopt(cfd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof ts);
                    conns[cfd] = calloc(1, sizeof(struct conn));
                    struct epoll_event cev = {.events = EPOLLIN, .data.fd = cfd};
                    epoll_ctl(epfd, EPOLL_CTL_ADD, cfd, &cev);
                }
                continue;
            }
            struct conn *c = conns[fd];
            int close_it = 0;
            if (events[i].events & EPOLLOUT) {
                int r = flush_out(fd, c);
                if (r < 0) close_it = 1;
                else if (r == 0) {
                    struct epoll_event cev = {.events = EPOLLIN, .data.fd = fd};
                    epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &cev);
                }
            }
            if (!close_it && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                for (;;) {
                    struct iovec iov = {.iov_base = c->req + c->len, .iov_len = REQ_CAP - c->len};
                    char control[256];
                    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                         .msg_controllen = sizeof control};
                    ssize_t r = recvmsg(fd, &msg, 0);
                    if (r > 0) {
                        if (c->len == 0) { /* the first bytes of a request: keep their receive stamp */
                            c->rx_ns = -1;
                            for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
                                if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING) {
                                    struct scm_timestamping *t = (struct scm_timestamping *) CMSG_DATA(cm);
                                    if (t->ts[0].tv_sec || t->ts[0].tv_nsec) c->rx_ns = realtime_to_monotonic(&t->ts[0]);
                                }
                            }
                        }
                        c->len += (size_t) r;
                        if (c->len == REQ_CAP) break;
                        continue;
                    }
                    if (r == 0) { close_it = 1; }
                    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { close_it = 1; }
                    break;
                }
                if (!close_it && serve(fd, c, epfd) < 0) close_it = 1;
            }
            if (close_it) {
                epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                free(c->owned);
                free(c);
                conns[fd] = NULL;
            }
        }
    }
}
