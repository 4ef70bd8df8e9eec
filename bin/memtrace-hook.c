/*
 * memtrace's hook forwarder, native: what bin/memtrace-hook runs when `memtrace install` could
 * build it with the machine's C compiler (it then lives in DATA_DIR/bin/). Two modes, one program:
 *
 *   hook-<hash> <data dir> <host> <event> <via> [<bin> [<program> <args>...]]
 * Same contract as memtrace-hook.pl, for the one path an agent waits on every firing: stream the
 * event (stdin) to this data dir's worker over DATA_DIR/worker.sock and print the worker's answer.
 * <bin> is the folder of the forwarder that ran it, sent as `x-memtrace-bin`: a worker older than
 * that install hands over to it (bytes only; the worker reads the version there).
 * When nothing was sent (no socket, a data dir that is not ours, nothing listening), stdin is
 * unread: it becomes <program> (the shell forwarder again, told to go on to the Perl or shell
 * path, which handle the cold path), or with no program exits 75. The shell forwarder execs this
 * program rather than waiting on it: the agent waits on one process less at every firing. Any
 * other ending is 0: once the worker took the event, the worker answers for it.
 *
 *   hook --direct <data dir> <host> <event> <via> <bin> <node>
 * The same, run by the host's hook command itself (`[ -x ... ] && exec ...`, docs/install.md):
 * no shell script between the host and the worker. `hook` is the data dir's link to the current
 * build, so a command written once keeps this contract across upgrades. It first checks what the
 * script would have: the observer's own session (MEMTRACE_OBSERVER_SESSION) fires nothing, and a
 * MEMTRACE_DATA_DIR naming another data dir than the command's hands over to the script
 * (`sh <bin>/memtrace-hook <host> <event> <via> <node>`), which resolves it. When nothing was
 * sent, it goes on as the script would after this program: `sh <bin>/memtrace-hook after-native …`.
 *
 *   hook-<hash> --mcp-bridge <data dir> [<program> <args>...]
 * The MCP server an agent host starts: carries newline-delimited JSON-RPC between stdin/stdout and
 * the MCP server inside the worker (`GET /mcp`, upgraded, on the same socket). Where there is no
 * worker to carry it to, it becomes <program> (the Node stdio server, `memtrace mcp`) before it
 * has read a byte; with no program it exits 75. See bridge() below.
 *
 * Plain POSIX, libc only: a process that starts in about a millisecond.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
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
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      /* A descriptor a parent left non-blocking (Gemini CLI's pipes): wait until it takes more. */
      struct pollfd out = {fd, POLLOUT, 0};
      poll(&out, 1, -1);
      continue;
    }
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

/* Appends one chunk of chunked transfer coding (size line, data, CRLF) at `out`; its length. */
static size_t put_chunk(char *out, const char *data, size_t length) {
  size_t at = (size_t)sprintf(out, "%zx\r\n", length);
  memcpy(out + at, data, length);
  memcpy(out + at + length, "\r\n", 2);
  return at + length + 2;
}

static int send_event(int sock, const char *host, const char *event, const char *via, const char *bin) {
  char uptime[64];
  static char head[6144];
  static char input[CHUNK];
  /* The head, a chunk of input and the last chunk, as one write: the worker wakes once for it. */
  static char out[sizeof head + CHUNK + 32];
  read_uptime(uptime, sizeof uptime);
  /* A folder name that would break the header (or not fit) is left out, never the event. */
  if (!bin || strlen(bin) > 4096 || strpbrk(bin, "\r\n")) bin = "";
  int length = snprintf(head, sizeof head,
                        "POST /hook/%s/%s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                        "x-memtrace-hook-via: %s\r\nx-memtrace-hook-uptime: %s\r\n%s%s%s\r\n",
                        host, event, via, uptime, *bin ? "x-memtrace-bin: " : "", bin, *bin ? "\r\n" : "");
  if (length <= 0 || length >= (int)sizeof head) return 0;
  memcpy(out, head, (size_t)length);
  size_t pending = (size_t)length;
  /* The input is gathered up to CHUNK before anything is sent (a host's event is one small write,
   * then end of input), so most events go in one write; a larger one streams on, CHUNK at a time. */
  for (int ended = 0; !ended;) {
    size_t got = 0;
    while (got < CHUNK) {
      ssize_t n = read(0, input + got, CHUNK - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        /* A pipe its parent left non-blocking (Gemini CLI's), empty while the host still writes. */
        struct pollfd in = {0, POLLIN, 0};
        poll(&in, 1, -1);
        continue;
      }
      if (n <= 0) { /* end of input, or a host that closed it early: send what came */
        ended = 1;
        break;
      }
      got += (size_t)n;
    }
    if (got > 0) pending += put_chunk(out + pending, input, got);
    if (ended) {
      memcpy(out + pending, "0\r\n\r\n", 5);
      pending += 5;
    }
    if (!write_all(sock, out, pending)) return 0;
    pending = 0;
  }
  return 1;
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

/* ---- The MCP bridge ------------------------------------------------------------------------
 * An agent host waits for its MCP servers before the session's first model request; a Node
 * process costs it 190-340 ms, a server that is already running one round trip. So the server
 * runs in the worker, and this program is what the host starts: it carries bytes and interprets
 * nothing of the protocol. It reads only the top-level "id" of each message, so that when the
 * worker stops answering (wedged, or gone) every request still waiting gets a JSON-RPC error
 * inside the host's timeout; the Node stdio server then takes the rest of the session. */

#define BRIDGE_CHUNK 65536
#define MAX_IN_FLIGHT 64
#define ID_MAX 128
/* The worker answers the upgrade in a few milliseconds (its first session loads the SDK). Past
 * this the Node stdio server answers sooner than a worker that has not. */
#define UPGRADE_WAIT_MS 1000
#define DEFAULT_TIMEOUT_MS 5000

static const char UPGRADE[] = "GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: memtrace-mcp\r\n\r\n";

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Where one direction of newline-delimited JSON-RPC is, byte by byte: enough to know each
 * message's top-level "id", whether it has a "method" (a request or a notification) or not (a
 * response), and the "requestId" a cancellation names in its "params". Holds nothing of a message
 * but a short member name and those ids, so a message of any size streams through. */
enum wanted { OTHER, ID, METHOD, PARAMS, REQUEST_ID };

struct capture {
  int state; /* 0 not seen, 1 in a string, 2 in a bare token, 3 done, -1 not usable */
  char text[ID_MAX];
  int length;
};

/* The members of one object: the message itself, or its "params". */
struct members {
  int expect_key, reading_key, key_length; /* key_length -1: longer than any name we look for */
  char key[12];
  enum wanted wanted;
};

struct scan {
  int depth, in_string, escape, started;
  int object;        /* the message is a JSON object */
  int params_object; /* inside the message's "params" object, at depth 2 */
  int has_method;
  struct members top, params;
  struct capture id, request_id;
};

static void scan_reset(struct scan *s) { memset(s, 0, sizeof *s); }

static void capture_add(struct capture *c, char byte) {
  if (c->length < ID_MAX) c->text[c->length++] = byte;
  else c->state = -1;
}

static enum wanted wanted_of(const struct members *m, int top) {
  if (m->key_length <= 0) return OTHER;
  if (top) return strcmp(m->key, "id") == 0 ? ID : strcmp(m->key, "method") == 0 ? METHOD : strcmp(m->key, "params") == 0 ? PARAMS : OTHER;
  return strcmp(m->key, "requestId") == 0 ? REQUEST_ID : OTHER;
}

/* One byte; returns 1 when it ended a message (the caller reads s, then resets it). */
static int scan_byte(struct scan *s, char c) {
  if (c == '\n') return 1; /* the SDK frames messages by newline, whatever came before it */
  struct capture *bare = s->id.state == 2 ? &s->id : s->request_id.state == 2 ? &s->request_id : NULL;
  if (bare) {
    if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r') bare->state = 3;
    else {
      capture_add(bare, c);
      return 0;
    }
  }
  struct members *level = s->depth == 1 ? &s->top : s->depth == 2 && s->params_object ? &s->params : NULL;
  if (s->in_string) {
    if (level && level->reading_key && !s->escape && c != '"') {
      if (level->key_length >= 0 && level->key_length < (int)sizeof level->key - 1) level->key[level->key_length++] = c;
      else level->key_length = -1;
    }
    struct capture *open = s->id.state == 1 ? &s->id : s->request_id.state == 1 ? &s->request_id : NULL;
    if (open) capture_add(open, c);
    if (s->escape) s->escape = 0;
    else if (c == '\\') s->escape = 1;
    else if (c == '"') {
      s->in_string = 0;
      if (level) level->reading_key = 0;
      if (open && open->state == 1) open->state = 3;
    }
    return 0;
  }
  if (c == ' ' || c == '\t' || c == '\r') return 0;
  struct capture *target = NULL;
  if (level && !level->expect_key) {
    if (level == &s->top && level->wanted == ID) target = &s->id;
    if (level == &s->params && level->wanted == REQUEST_ID) target = &s->request_id;
  }
  int first_of_value = target && target->state == 0;
  switch (c) {
    case '"':
      s->in_string = 1;
      if (level && level->expect_key) {
        level->reading_key = 1;
        level->key_length = 0;
      } else if (first_of_value) {
        target->state = 1;
        capture_add(target, c);
      }
      break;
    case '{':
    case '[':
      if (s->depth == 0 && !s->started) {
        s->object = c == '{';
        s->top.expect_key = 1;
      } else if (level == &s->top && !level->expect_key && level->wanted == PARAMS && c == '{') {
        s->params_object = 1;
        memset(&s->params, 0, sizeof s->params);
        s->params.expect_key = 1;
      } else if (first_of_value) target->state = -1;
      s->depth++;
      break;
    case '}':
    case ']':
      s->depth--;
      if (s->depth <= 1) s->params_object = 0;
      break;
    case ':':
      if (level && level->expect_key) {
        level->expect_key = 0;
        level->key[level->key_length > 0 ? level->key_length : 0] = '\0';
        level->wanted = wanted_of(level, level == &s->top);
        if (level->wanted == METHOD) s->has_method = 1;
      }
      break;
    case ',':
      if (level) {
        level->expect_key = 1;
        level->wanted = OTHER;
      }
      break;
    default:
      if (first_of_value) {
        target->state = 2;
        capture_add(target, c);
      }
  }
  s->started = 1;
  return 0;
}

struct request {
  char id[ID_MAX];
  int length;
  long long sent_ms;
};
static struct request in_flight[MAX_IN_FLIGHT];
static int in_flight_count;

static void forget(const struct capture *id) {
  for (int i = 0; i < in_flight_count; i++) {
    if (in_flight[i].length == id->length && memcmp(in_flight[i].id, id->text, (size_t)id->length) == 0) {
      memmove(in_flight + i, in_flight + i + 1, sizeof in_flight[0] * (size_t)(in_flight_count - i - 1));
      in_flight_count--;
      return;
    }
  }
}

/* A message from the host: a request is owed an answer; a cancellation (a notification naming a
 * requestId) releases the worker from one, since the SDK sends nothing for a cancelled request. */
static void track(const struct scan *s, long long at) {
  if (!s->object || !s->has_method) return;
  if (s->id.state != 3) {
    if (s->request_id.state == 3) forget(&s->request_id);
    return;
  }
  if (in_flight_count == MAX_IN_FLIGHT) {
    memmove(in_flight, in_flight + 1, sizeof in_flight[0] * (MAX_IN_FLIGHT - 1));
    in_flight_count--;
  }
  struct request *r = &in_flight[in_flight_count++];
  memcpy(r->id, s->id.text, (size_t)s->id.length);
  r->length = s->id.length;
  r->sent_ms = at;
}

static void answered(const struct scan *s) {
  if (s->object && s->id.state == 3 && !s->has_method) forget(&s->id);
}

static struct scan from_host, from_worker;
static int stdout_mid_line;        /* the worker's last message to the host is not finished */
static long long heard_from_worker; /* a worker streaming a long answer is not a wedged one */

static void scan_host(const char *data, size_t length, long long at) {
  for (size_t i = 0; i < length; i++) {
    if (scan_byte(&from_host, data[i])) {
      track(&from_host, at);
      scan_reset(&from_host);
    }
  }
}

static void to_host(const char *data, size_t length) {
  for (size_t i = 0; i < length; i++) {
    if (scan_byte(&from_worker, data[i])) {
      answered(&from_worker);
      scan_reset(&from_worker);
    }
  }
  if (length > 0) stdout_mid_line = data[length - 1] != '\n';
  if (!write_all(1, data, length)) _exit(0); /* the host is gone */
}

/* Becomes the fallback (the Node stdio server, or the shell forwarder's cold path) with stdin as
 * it is; without one, exits 75. */
static int hand_over(char **fallback) {
  if (!fallback || !fallback[0]) return NOTHING_SENT;
  signal(SIGPIPE, SIG_DFL);
  execvp(fallback[0], fallback);
  fprintf(stderr, "memtrace: cannot start %s: %s\n", fallback[0], strerror(errno));
  return 1;
}

/* The worker stopped answering or went away: every request it still owed gets a JSON-RPC error
 * now, and the fallback serves what the host sends next (it opens the same store). */
static int give_up(int sock, char **fallback, int timeout_ms, const char *why) {
  close(sock);
  /* The rest of a request the host is half-way through writing, read up to its newline (and no
   * further: what follows is the fallback's), so that it is answered too. */
  long long deadline = now_ms() + timeout_ms;
  while (from_host.started) {
    struct pollfd in = {0, POLLIN, 0};
    long long left = deadline - now_ms();
    if (left <= 0 || poll(&in, 1, (int)left) <= 0) break;
    char c;
    ssize_t n = read(0, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) _exit(0);
    if (scan_byte(&from_host, c)) {
      track(&from_host, now_ms());
      scan_reset(&from_host);
    }
  }
  if (stdout_mid_line) write_all(1, "\n", 1);
  char line[ID_MAX + 256];
  for (int i = 0; i < in_flight_count; i++) {
    int n = snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":-32000,\"message\":\"memtrace's worker %s\"}}\n",
                     in_flight[i].length, in_flight[i].id, why);
    if (n > 0 && !write_all(1, line, (size_t)n)) _exit(0);
  }
  in_flight_count = 0;
  return hand_over(fallback);
}

/* The worker's 101, within UPGRADE_WAIT_MS; what came after it goes to the host. 0 when the
 * worker refused (an older worker with no MCP door), closed, or did not answer in time. */
static int upgraded(int sock) {
  char head[4096];
  size_t length = 0;
  long long deadline = now_ms() + UPGRADE_WAIT_MS;
  for (;;) {
    struct pollfd answer = {sock, POLLIN, 0};
    long long left = deadline - now_ms();
    if (left <= 0 || poll(&answer, 1, (int)left) <= 0) return 0;
    ssize_t n = read(sock, head + length, sizeof head - 1 - length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    length += (size_t)n;
    head[length] = '\0';
    char *end = strstr(head, "\r\n\r\n");
    if (!end) {
      if (length == sizeof head - 1) return 0;
      continue;
    }
    if (strncmp(head, "HTTP/1.1 101", 12) != 0) return 0;
    end += 4;
    to_host(end, length - (size_t)(end - head));
    return 1;
  }
}

static int ours(const char *path, int want_socket) {
  struct stat info;
  if (lstat(path, &info) != 0 || info.st_uid != geteuid()) return 0;
  return want_socket ? S_ISSOCK(info.st_mode) : S_ISDIR(info.st_mode);
}

static int bridge(const char *dir, char **fallback) {
  /* A parent may have left these ignored; the host's SIGINT or SIGTERM must end the bridge at once. */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  char socket_path[4096];
  if (snprintf(socket_path, sizeof socket_path, "%s/worker.sock", dir) >= (int)sizeof socket_path) return hand_over(fallback);
  /* Only the user's own worker may see the host's messages: a data dir or a socket someone else
   * owns gets nothing, and the fallback (which refuses that data dir with a reason) takes over. */
  if (!ours(dir, 0) || !ours(socket_path, 1)) return hand_over(fallback);
  int sock = connect_worker(dir);
  if (sock < 0) return hand_over(fallback);
  signal(SIGPIPE, SIG_IGN);
  if (!write_all(sock, UPGRADE, sizeof UPGRADE - 1) || !upgraded(sock)) {
    close(sock);
    return hand_over(fallback); /* nothing of stdin was read: the fallback starts clean */
  }
  const char *setting = getenv("MEMTRACE_MCP_TIMEOUT_MS");
  int timeout_ms = setting && atoi(setting) > 0 ? atoi(setting) : DEFAULT_TIMEOUT_MS;
  /* Never blocked by a worker that stops reading: what the host wrote waits here instead. */
  fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
  static char pending[BRIDGE_CHUNK], back[BRIDGE_CHUNK];
  size_t pending_at = 0, pending_length = 0;
  for (;;) {
    struct pollfd fds[2] = {{pending_length > pending_at ? -1 : 0, POLLIN, 0}, {sock, (short)(POLLIN | (pending_length > pending_at ? POLLOUT : 0)), 0}};
    int wait = -1;
    if (in_flight_count > 0) {
      long long since = in_flight[0].sent_ms > heard_from_worker ? in_flight[0].sent_ms : heard_from_worker;
      long long left = since + timeout_ms - now_ms();
      if (left <= 0) return give_up(sock, fallback, timeout_ms, "did not answer in time");
      wait = (int)left;
    }
    int ready = poll(fds, 2, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return give_up(sock, fallback, timeout_ms, "could not be reached");
    /* The worker first: one that hung up (stopped) says so before the host's next request is read,
     * so that request goes to the fallback unread and whole instead of being owed an error. After
     * an answer, the next poll comes first too: an answer can be the last thing before the hang-up. */
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(sock, back, sizeof back);
      if (n > 0) {
        heard_from_worker = now_ms();
        to_host(back, (size_t)n);
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return give_up(sock, fallback, timeout_ms, "went away");
    }
    if (fds[0].revents) {
      ssize_t n = read(0, pending, sizeof pending);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) _exit(0); /* the host closed stdin: the session is over */
      scan_host(pending, (size_t)n, now_ms());
      pending_at = 0;
      pending_length = (size_t)n;
      fds[1].revents |= POLLOUT;
    }
    if ((fds[1].revents & POLLOUT) && pending_length > pending_at) {
      ssize_t n = write(sock, pending + pending_at, pending_length - pending_at);
      if (n > 0) pending_at += (size_t)n;
      else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return give_up(sock, fallback, timeout_ms, "went away");
    }
  }
}

/* The data dir this environment names, resolved as the shell forwarder resolves it
 * (MEMTRACE_DATA_DIR with a leading ~, else $HOME/.memtrace), is `dir`: the same string, or the
 * same directory by another path. */
static int names_data_dir(const char *dir) {
  const char *set = getenv("MEMTRACE_DATA_DIR");
  const char *home = getenv("HOME");
  if (!home) home = "";
  char resolved[4096];
  int n;
  if (!set || !*set) n = snprintf(resolved, sizeof resolved, "%s/.memtrace", home);
  else if (strcmp(set, "~") == 0) n = snprintf(resolved, sizeof resolved, "%s", home);
  else if (strncmp(set, "~/", 2) == 0) n = snprintf(resolved, sizeof resolved, "%s/%s", home, set + 2);
  else n = snprintf(resolved, sizeof resolved, "%s", set);
  if (n < 0 || n >= (int)sizeof resolved) return 0;
  if (strcmp(resolved, dir) == 0) return 1;
  struct stat named, given;
  return stat(resolved, &named) == 0 && stat(dir, &given) == 0 && named.st_dev == given.st_dev && named.st_ino == given.st_ino;
}

/* Streams the event to the worker and prints its answer; what it cannot send goes to `fallback`. */
static int forward(const char *dir, const char *host, const char *event, const char *via, const char *bin, char **fallback) {
  struct stat info;
  if (stat(dir, &info) != 0 || info.st_uid != geteuid()) return hand_over(fallback);
  int sock = connect_worker(dir);
  if (sock < 0) return hand_over(fallback);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGALRM, on_alarm);
  const char *timeout = getenv("MEMTRACE_HOOK_TIMEOUT_S");
  alarm(timeout && atoi(timeout) > 0 ? (unsigned)atoi(timeout) : 10);
  if (!send_event(sock, host, event, via, bin)) return 0;
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

/* --direct: the host's hook command ran this program itself (see the top of this file). */
static int direct(char **args) {
  const char *dir = args[0], *host = args[1], *event = args[2], *via = args[3], *bin = args[4], *node = args[5];
  if (getenv("MEMTRACE_OBSERVER_SESSION") && *getenv("MEMTRACE_OBSERVER_SESSION")) return 0;
  size_t size = strlen(bin) + sizeof "/memtrace-hook";
  char *script = malloc(size);
  if (!script) return 1;
  snprintf(script, size, "%s/memtrace-hook", bin);
  char *whole[] = {"sh", script, (char *)host, (char *)event, (char *)via, (char *)node, NULL};
  if (!names_data_dir(dir)) return hand_over(whole);
  char *after[] = {"sh", script, "after-native", (char *)host, (char *)event, (char *)via, (char *)node, NULL};
  return forward(dir, host, event, via, bin, after);
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--mcp-bridge") == 0) return bridge(argv[2], argv + 3);
  if (argc == 8 && strcmp(argv[1], "--direct") == 0) return direct(argv + 2);
  if (argc < 5 || strcmp(argv[1], "--direct") == 0) {
    fprintf(stderr,
            "usage: %s <data dir> <host> <event> <via> [<bin> [<program> <args>...]]\n"
            "       %s --direct <data dir> <host> <event> <via> <bin> <node>\n"
            "       %s --mcp-bridge <data dir> [<program> <args>...]\n",
            argv[0], argv[0], argv[0]);
    return 2;
  }
  return forward(argv[1], argv[2], argv[3], argv[4], argc >= 6 ? argv[5] : NULL, argc >= 7 ? argv + 6 : NULL);
}
