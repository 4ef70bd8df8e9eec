# memtrace's hook forwarder in Perl: what bin/memtrace-hook runs when perl is there (it is on
# Debian, Ubuntu, Fedora and macOS). Same contract as the shell forwarder:
#   perl memtrace-hook.pl <host> <event> <via> <node>
# It streams the event (stdin) to this data dir's worker over the Unix socket inside the data
# dir and prints the worker's answer. It loads no module: perl with built-ins only starts in
# a few milliseconds, where curl spends about thirty linking its libraries (docs/performance.md).
# Whatever it cannot do goes to the Node hook, detached, with stdin still unread: no worker
# behind the socket, a data dir that is not ours.
my ($host, $event, $via, $node) = @ARGV;
$node = 'node' unless defined $node && $node ne '';
my $home = $ENV{HOME} // '';
my $dir = defined $ENV{MEMTRACE_DATA_DIR} && $ENV{MEMTRACE_DATA_DIR} ne '' ? $ENV{MEMTRACE_DATA_DIR} : "$home/.memtrace";
$dir = $home if $dir eq '~';
$dir =~ s{^~/}{$home/};
(my $here = $0) =~ s{/[^/]*$}{};
$here = '.' if $here eq $0;

my $uptime = '';
if (open(my $proc, '<', '/proc/uptime')) {
  ($uptime) = split(' ', scalar(<$proc>) // '');
  close($proc);
}

my $sent = -S "$dir/worker.sock" && -O $dir ? forward() : 0;
if ($sent) {
  take_over_from_old_worker();
  exit 0;
}
fallback();

# 1 when the worker took the event (whatever it answered), 0 when nothing was sent.
sub forward {
  socket(my $sock, 1, 1, 0) or return 0;    # AF_UNIX, SOCK_STREAM: 1 and 1 on Linux and macOS
  # A socket address has room for about 100 bytes of path: a longer one is reached from inside
  # the data dir, and the agent's directory restored for the Node hook.
  my $path = "$dir/worker.sock";
  return connect($sock, sockaddr_un($path)) ? send_event($sock) : 0 if length($path) < 100;
  opendir(my $cwd, '.') or return 0;
  chdir($dir) or return 0;
  my $connected = connect($sock, sockaddr_un('worker.sock'));
  chdir($cwd) or die "memtrace: cannot return to the agent's directory\n";
  return $connected ? send_event($sock) : 0;
}

sub sockaddr_un {
  my ($path) = @_;
  return $^O eq 'darwin' ? pack('CCa104', 106, 1, $path) : pack('Sa108', 1, $path);
}

sub send_event {
  my ($sock) = @_;
  $SIG{PIPE} = 'IGNORE';
  # The worker answers in milliseconds; a wedged one must not hold the agent.
  $SIG{ALRM} = sub { exit 0 };
  alarm($ENV{MEMTRACE_HOOK_TIMEOUT_S} || 10);
  my $head = "POST /hook/$host/$event HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
    . "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
    . "x-memtrace-hook-via: $via\r\nx-memtrace-hook-uptime: $uptime\r\n"
    . ($here =~ m{^/[^\r\n]*$} ? "x-memtrace-bin: $here\r\n" : '') . "\r\n";
  write_all($sock, $head) or return 1;
  binmode(STDIN);
  while (1) {
    my $got = sysread(STDIN, my $chunk, 65536);
    last unless $got;    # end of input, or a host that closed it early: send what came
    write_all($sock, sprintf('%x', $got) . "\r\n" . $chunk . "\r\n") or return 1;
  }
  write_all($sock, "0\r\n\r\n") or return 1;
  my $reply = '';
  while (sysread($sock, my $buf, 65536)) { $reply .= $buf }
  my ($status, $headers, $body) = $reply =~ m{^HTTP/1\.[01] (\d{3})[^\n]*\n(.*?)\r?\n\r?\n(.*)\z}s or return 1;
  return 1 unless $status =~ /^2/;
  $body = unchunk($body) if $headers =~ /^transfer-encoding:\s*chunked/mi;
  binmode(STDOUT);
  print $body;
  return 1;
}

sub write_all {
  my ($fh, $data) = @_;
  while (length $data) {
    my $n = syswrite($fh, $data);
    return 0 unless defined $n;
    substr($data, 0, $n) = '';
  }
  return 1;
}

sub unchunk {
  my ($chunked) = @_;
  my $out = '';
  while ($chunked =~ s/^([0-9a-fA-F]+)[^\n]*\n//) {
    my $size = hex($1);
    last if $size == 0;
    $out .= substr($chunked, 0, $size, '');
    $chunked =~ s/^\r?\n//;
  }
  return $out;
}

# No worker answered: the Node hook keeps the event in the spool (redacted) and, at session
# start, starts the worker. It runs detached, in a process group of its own: the agent waits
# only for this process, never for Node's start or the worker's, and a host that ends the
# hook's process group on exit does not take the event with it. At session start the context
# the worker kept for this directory is printed first.
sub fallback {
  my @hook = ($node, "$here/memtrace.cjs", 'hook', '--host', $host, $event, '--via', $via);
  my $session_start = $event eq 'session-start' || $event eq 'SessionStart' || $event eq 'sessionStart';
  # A worker that cannot start (its last start failed): the Node hook, in the foreground, prints
  # the kept context with one line saying why and what to do.
  exec(@hook) or exit 0 if $session_start && start_failed();
  push(@hook, '--fired-at', fired_at_ms());
  if ($session_start) {
    print_kept_context();
    push(@hook, '--context-printed');
  }
  # A data dir someone else owns: the Node hook refuses it with a line the user should see.
  exec(@hook) or exit 0 if -e $dir && !-O $dir;
  if ($node =~ m{/} && !-x $node) {
    # Said here: the detached hook's output goes nowhere. (A node moved by a version manager.)
    print STDERR "memtrace: no node at $node, so this $event event was not kept; run 'memtrace install' again\n";
    exit 0;
  }
  $| = 1;
  my $pid = fork();
  exec(@hook) or exit 0 unless defined $pid;    # no fork: run it here rather than lose the event
  if ($pid == 0) {
    setpgrp(0, 0);
    open(STDOUT, '>', '/dev/null');
    open(STDERR, '>', '/dev/null');
    exec(@hook) or exit 0;
  }
  # Its own process group, set on both sides so that it holds before this process exits.
  setpgrp($pid, 0);
  exit 0;
}

sub start_failed {
  open(my $state, '<', "$dir/worker-start.json") or return 0;
  my $line = <$state> // '';
  close($state);
  return $line =~ /"last_error":\{/;
}

# A worker from before take-over (its worker.json names no "package") never reads x-memtrace-bin:
# when this install is newer, `memtrace worker start` of this install runs in the background, and
# the worker it starts asks the old one to hand over (or stops it once its observer calls are
# done). At most once per step of the start schedule the hooks share (worker-start.json).
sub take_over_from_old_worker {
  open(my $info, '<', "$dir/worker.json") or return;
  my $running = do { local $/; <$info> } // '';
  close($info);
  return if $running =~ /"package"/;
  my ($theirs) = $running =~ /"version"\s*:\s*"([^"]*)"/;
  open(my $manifest, '<', "$here/../package.json") or return;
  my ($ours) = (do { local $/; <$manifest> } // '') =~ /"version"\s*:\s*"([^"]*)"/;
  close($manifest);
  return unless defined $theirs && defined $ours && newer_release($ours, $theirs);
  if (open(my $state, '<', "$dir/worker-start.json")) {
    my @next = (<$state> // '') =~ /"next_attempt_at":"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)/;
    close($state);
    if (@next) {
      require Time::Local;
      return if time() < Time::Local::timegm($next[5], $next[4], $next[3], $next[2], $next[1] - 1, $next[0]);
    }
  }
  return unless $node !~ m{/} || -x $node;
  # One hook starts it; the others (fired before that start is under way) see this claim. It
  # expires after a minute, so a start that died is tried again.
  my $claim = "$dir/worker-start.compat";
  unlink($claim) if -e $claim && -M $claim > 60 / 86400;
  require Fcntl;
  sysopen(my $claimed, $claim, Fcntl::O_WRONLY() | Fcntl::O_CREAT() | Fcntl::O_EXCL(), 0600) or return;
  close($claimed);
  my $pid = fork();
  return unless defined $pid && $pid == 0;
  setpgrp(0, 0);
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>>', "$dir/logs/worker.out") or open(STDOUT, '>', '/dev/null');
  open(STDERR, '>&', \*STDOUT);
  exec($node, "$here/memtrace.cjs", 'worker', 'start', '--wait-ms', '180000') or exit 0;
}

# Whether release a.b.c is above x.y.z (pre-release tags are not ordered here: equal triples are not newer).
sub newer_release {
  my @a = $_[0] =~ /^(\d+)\.(\d+)\.(\d+)/ or return 0;
  my @b = $_[1] =~ /^(\d+)\.(\d+)\.(\d+)/ or return 0;
  for my $i (0 .. 2) {
    return 1 if $a[$i] > $b[$i];
    return 0 if $a[$i] < $b[$i];
  }
  return 0;
}

sub print_kept_context {
  # Copilot CLI reads another JSON than the other hosts: its own copy of the kept context.
  my $context = "$dir/context" . agent_dir() . ($host eq 'copilot' ? '/session-start.copilot.json' : '/session-start.json');
  return unless -r $context && -O $dir && open(my $kept, '<', $context);
  binmode($kept);
  binmode(STDOUT);
  local $/;
  print <$kept>;
  close($kept);
}

# Milliseconds since the epoch, for the spool's order: events handed over in the background are
# spooled by processes that may finish in any order.
sub fired_at_ms {
  require Time::HiRes;
  return int(Time::HiRes::time() * 1000);
}

# The agent's directory: $PWD when it names this directory (the shell forwarder exports it), else
# asked of the system (Cwd costs a few milliseconds, and only on this cold path).
sub agent_dir {
  my $pwd = $ENV{PWD};
  if (defined $pwd && $pwd =~ m{^/}) {
    my @said = stat($pwd);
    my @here = stat('.');
    return $pwd if @said && @here && $said[0] == $here[0] && $said[1] == $here[1];
  }
  require Cwd;
  return Cwd::getcwd() // '';
}
