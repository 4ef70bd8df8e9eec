/*
 * memtrace's hook forwarder, native: what bin/memtrace-hook runs when `memtrace install` could
 * build it with the machine's C compiler (it then lives in DATA_DIR/bin/). Same contract as
 * memtrace-hook.pl, for the one path an agent waits on every firing: stream the event (stdin)
 * to this data dir's worker over DATA_DIR/worker.sock and print the worker's answer.
 *   hook-<hash> <data dir> <host> <event> <via>
 * Exit 75 when nothing was sent (no socket, a data dir that is not ours, nothing listening):
 * stdin is then unread and the caller goes on to the Perl or shell forwarder, which handle the
 * cold path. Any other ending is 0: once the worker took the event, the worker answers for it.
 * Plain POSIX, libc only: a process that starts in about a millisecond.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define NOTHING_SENT 75
#define CHUNK 65536

static void on_alarm(int sig) {
  (void)sig;
  _exit(0); /* a wedged worker must not hold the agent */
}

static int write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    data += n;
    length -= (size_t)n;
  }
  return 1;
}

/* The socket, connected; -1 when nothing is listening. A socket address has room for about 100
 * bytes of path: a longer one is reached from inside the data dir. */
static int connect_worker(const char *dir) {
  struct sockaddr_un address;
  char path[4096];
  if (snprintf(path, sizeof path, "%s/worker.sock", dir) >= (int)sizeof path) return -1;
  int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  if (sock < 0) return -1;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  if (strlen(path) < sizeof address.sun_path) {
    memcpy(address.sun_path, path, strlen(path));
    if (connect(sock, (struct sockaddr *)&address, sizeof address) == 0) return sock;
  } else {
    int here = open(".", O_RDONLY | O_DIRECTORY);
    if (here >= 0 && chdir(dir) == 0) {
      memcpy(address.sun_path, "worker.sock", sizeof "worker.sock");
      int connected = connect(sock, (struct sockaddr *)&address, sizeof address) == 0;
      if (fchdir(here) != 0) _exit(NOTHING_SENT);
      close(here);
      if (connected) return sock;
    }
  }
  close(sock);
  return -1;
}

static void read_uptime(char *out, size_t size) {
  out[0] = '\0';
  int fd = open("/proc/uptime", O_RDONLY);
  if (fd < 0) return;
  ssize_t n = read(fd, out, size - 1);
  close(fd);
  out[n > 0 ? n : 0] = '\0';
  out[strcspn(out, " \n")] = '\0';
}

static int send_event(int sock, const char *host, const char *event, const char *via) {
  char uptime[64];
  char head[1024];
  read_uptime(uptime, sizeof uptime);
  int length = snprintf(head, sizeof head,
                        "POST /hook/%s/%s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                        "x-memtrace-hook-via: %s\r\nx-memtrace-hook-uptime: %s\r\n\r\n",
                        host, event, via, uptime);
  if (length <= 0 || length >= (int)sizeof head) return 0;
  if (!write_all(sock, head, (size_t)length)) return 0;
  static char buffer[CHUNK + 32];
  for (;;) {
    ssize_t got = read(0, buffer + 16, CHUNK);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break; /* end of input, or a host that closed it early: send what came */
    int prefix = snprintf(buffer, 16, "%zx\r\n", (size_t)got);
    memmove(buffer + 16 - prefix, buffer, (size_t)prefix);
    memcpy(buffer + 16 + got, "\r\n", 2);
    if (!write_all(sock, buffer + 16 - prefix, (size_t)prefix + (size_t)got + 2)) return 0;
  }
  return write_all(sock, "0\r\n\r\n", 5);
}

static char *read_reply(int sock, size_t *length) {
  size_t size = 16384;
  char *reply = malloc(size + 1);
  *length = 0;
  while (reply) {
    if (*length == size) {
      char *grown = realloc(reply, size * 2 + 1);
      if (!grown) break;
      reply = grown;
      size *= 2;
    }
    ssize_t n = read(sock, reply + *length, size - *length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    *length += (size_t)n;
  }
  if (reply) reply[*length] = '\0';
  return reply;
}

static int chunked(const char *headers, const char *end) {
  for (const char *line = headers; line && line < end; line = strchr(line, '\n')) {
    if (*line == '\n') line++;
    if (strncasecmp(line, "transfer-encoding:", 18) != 0) continue;
    line += 18;
    while (*line == ' ' || *line == '\t') line++;
    return strncasecmp(line, "chunked", 7) == 0;
  }
  return 0;
}

static void print_body(const char *body, size_t length, int is_chunked) {
  if (!is_chunked) {
    write_all(1, body, length);
    return;
  }
  const char *at = body;
  const char *end = body + length;
  while (at < end) {
    char *after;
    unsigned long size = strtoul(at, &after, 16);
    const char *data = memchr(after, '\n', (size_t)(end - after));
    if (size == 0 || !data || ++data + size > end) return;
    write_all(1, data, size);
    at = data + size;
    if (at < end && *at == '\r') at++;
    if (at < end && *at == '\n') at++;
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s <data dir> <host> <event> <via>\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  struct stat info;
  if (stat(dir, &info) != 0 || info.st_uid != geteuid()) return NOTHING_SENT;
  int sock = connect_worker(dir);
  if (sock < 0) return NOTHING_SENT;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGALRM, on_alarm);
  const char *timeout = getenv("MEMTRACE_HOOK_TIMEOUT_S");
  alarm(timeout && atoi(timeout) > 0 ? (unsigned)atoi(timeout) : 10);
  if (!send_event(sock, argv[2], argv[3], argv[4])) return 0;
  size_t length;
  char *reply = read_reply(sock, &length);
  if (!reply || length < 12 || strncmp(reply, "HTTP/1.", 7) != 0 || reply[9] != '2') return 0;
  char *blank = strstr(reply, "\r\n\r\n");
  size_t gap = 4;
  if (!blank) {
    blank = strstr(reply, "\n\n");
    gap = 2;
  }
  if (!blank) return 0;
  print_body(blank + gap, length - (size_t)(blank + gap - reply), chunked(reply, blank));
  return 0;
}
