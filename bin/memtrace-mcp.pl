# memtrace's MCP bridge in Perl: what `bin/memtrace-hook mcp` runs where no native forwarder was
# built and perl is there. Same contract as the native program's bridge mode (memtrace-hook.c):
#   perl memtrace-mcp.pl <data dir> <program> <args>...
# It carries newline-delimited JSON-RPC between stdin/stdout and the MCP server inside this data
# dir's worker (`GET /mcp`, upgraded, on DATA_DIR/worker.sock) and interprets nothing of the
# protocol: it reads only each message's top-level "id", so that every request a wedged or
# vanished worker still owes gets a JSON-RPC error in time. With no worker (or a data dir or
# socket that is not the user's) it becomes <program> (the Node stdio server) before reading a
# byte; after the worker stops answering, it becomes <program> for the rest of the session.
# Built-ins only, plus Time::HiRes (core) for the clock.
my ($dir, @fallback) = @ARGV;
$SIG{INT}  = 'DEFAULT';
$SIG{TERM} = 'DEFAULT';
my $UPGRADE_WAIT_S = 1;
my $timeout_s = ($ENV{MEMTRACE_MCP_TIMEOUT_MS} && $ENV{MEMTRACE_MCP_TIMEOUT_MS} =~ /^\d+$/ && $ENV{MEMTRACE_MCP_TIMEOUT_MS} > 0 ? $ENV{MEMTRACE_MCP_TIMEOUT_MS} : 5000) / 1000;
# fcntl's numbers, as the AF_UNIX ones in memtrace-hook.pl: the same on Linux and macOS but O_NONBLOCK.
my ($F_GETFL, $F_SETFL, $O_NONBLOCK) = (3, 4, $^O eq 'darwin' ? 4 : 2048);

my $from_host   = fresh();
my $from_worker = fresh();
my @in_flight;    # [id, sent at]
my $stdout_mid_line = 0;
my $heard_from_worker = 0;    # a worker streaming a long answer is not a wedged one
my $pending = '';
require Time::HiRes;

my $sock = connect_worker();
hand_over() unless $sock;
$SIG{PIPE} = 'IGNORE';
unless (write_all($sock, "GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: memtrace-mcp\r\n\r\n") && upgraded()) {
  close($sock);
  hand_over();    # nothing of stdin was read: the fallback starts clean
}
my $flags = fcntl($sock, $F_GETFL, 0);
fcntl($sock, $F_SETFL, $flags | $O_NONBLOCK) if defined $flags;
binmode(STDIN);
binmode(STDOUT);

while (1) {
  my ($rin, $win) = ('', '');
  vec($rin, 0, 1) = 1 if $pending eq '';
  vec($rin, fileno($sock), 1) = 1;
  vec($win, fileno($sock), 1) = 1 if $pending ne '';
  my $wait;
  if (@in_flight) {
    my $since = $in_flight[0][1] > $heard_from_worker ? $in_flight[0][1] : $heard_from_worker;
    $wait = $since + $timeout_s - Time::HiRes::time();
    give_up('did not answer in time') if $wait <= 0;
  }
  my $ready = select(my $rout = $rin, my $wout = $win, undef, $wait);
  next if $ready < 0 && $!{EINTR};
  give_up('could not be reached') if $ready < 0;
  # The worker first: one that hung up (stopped) says so before the host's next request is read, so
  # that request goes to the fallback unread and whole instead of being owed an error. After an
  # answer, the next select comes first too: an answer can be the last thing before the hang-up.
  if (vec($rout, fileno($sock), 1)) {
    my $n = sysread($sock, my $back, 65536);
    if ($n) {
      $heard_from_worker = Time::HiRes::time();
      to_host($back);
      next;
    }
    give_up('went away') if defined $n || (!$!{EAGAIN} && !$!{EINTR});
  }
  if ($pending eq '' && vec($rout, 0, 1)) {
    my $n = sysread(STDIN, $pending, 65536);
    if (!defined $n) {
      next if $!{EINTR} || $!{EAGAIN};
      exit 0;
    }
    exit 0 if $n == 0;    # the host closed stdin: the session is over
    scan($from_host, $pending, \&track);
    vec($wout, fileno($sock), 1) = 1;
  }
  if ($pending ne '' && vec($wout, fileno($sock), 1)) {
    my $n = syswrite($sock, $pending);
    if (defined $n) { substr($pending, 0, $n) = '' }
    elsif (!$!{EAGAIN} && !$!{EINTR}) { give_up('went away') }
  }
}

sub connect_worker {
  # Only the user's own worker may see the host's messages.
  my @d = lstat($dir);
  return undef unless @d && -d _ && $d[4] == $>;
  my @s = lstat("$dir/worker.sock");
  return undef unless @s && -S _ && $s[4] == $>;
  socket(my $s, 1, 1, 0) or return undef;    # AF_UNIX, SOCK_STREAM
  my $path = "$dir/worker.sock";
  return connect($s, sockaddr_un($path)) ? $s : undef if length($path) < 100;
  opendir(my $cwd, '.') or return undef;
  chdir($dir) or return undef;
  my $connected = connect($s, sockaddr_un('worker.sock'));
  chdir($cwd) or die "memtrace: cannot return to the agent's directory\n";
  return $connected ? $s : undef;
}

sub sockaddr_un {
  my ($path) = @_;
  return $^O eq 'darwin' ? pack('CCa104', 106, 1, $path) : pack('Sa108', 1, $path);
}

sub write_all {
  my ($fh, $data) = @_;
  while (length $data) {
    my $n = syswrite($fh, $data);
    if (!defined $n) {
      return 0 unless $!{EINTR} || $!{EAGAIN};
      # A descriptor a parent left non-blocking: wait until it takes more.
      my $w = '';
      vec($w, fileno($fh), 1) = 1;
      select(undef, $w, undef, undef) if $!{EAGAIN};
      next;
    }
    substr($data, 0, $n) = '';
  }
  return 1;
}

# The worker's 101 within a second; what came after it goes to the host.
sub upgraded {
  my $head = '';
  my $deadline = time() + $UPGRADE_WAIT_S + 1;
  while (index($head, "\r\n\r\n") < 0) {
    my $rin = '';
    vec($rin, fileno($sock), 1) = 1;
    my $left = $deadline - time();
    return 0 if $left <= 0 || select(my $rout = $rin, undef, undef, $UPGRADE_WAIT_S) <= 0;
    my $n = sysread($sock, $head, 4096, length $head);
    return 0 unless $n;
    return 0 if length($head) > 8192;
  }
  my ($status, $rest) = $head =~ m{^(HTTP/1\.1 \d{3})[^\r]*\r\n.*?\r\n\r\n(.*)\z}s or return 0;
  return 0 unless $status eq 'HTTP/1.1 101';
  binmode($sock);
  to_host($rest) if length $rest;
  return 1;
}

sub hand_over {
  return exit 75 unless @fallback;
  $SIG{PIPE} = 'DEFAULT';
  exec { $fallback[0] } @fallback;
  print STDERR "memtrace: cannot start $fallback[0] for the MCP server: $!\n";
  exit 1;
}

# The worker stopped answering or went away: every request it still owed gets a JSON-RPC error,
# and the fallback serves what the host sends next.
sub give_up {
  my ($why) = @_;
  close($sock);
  # The rest of a request the host is half-way through writing, up to its newline and no further.
  my $deadline = Time::HiRes::time() + $timeout_s;
  while ($from_host->{started}) {
    my $rin = '';
    vec($rin, 0, 1) = 1;
    my $left = $deadline - Time::HiRes::time();
    last if $left <= 0 || select(my $rout = $rin, undef, undef, $left) <= 0;
    my $n = sysread(STDIN, my $c, 1);
    next if !defined $n && ($!{EINTR} || $!{EAGAIN});
    exit 0 unless $n;
    scan($from_host, $c, \&track);
  }
  write_all(\*STDOUT, "\n") if $stdout_mid_line;
  for my $request (@in_flight) {
    write_all(\*STDOUT, qq({"jsonrpc":"2.0","id":$request->[0],"error":{"code":-32000,"message":"memtrace's worker $why"}}\n)) or exit 0;
  }
  @in_flight = ();
  hand_over();
}

sub to_host {
  my ($data) = @_;
  scan($from_worker, $data, \&answered);
  $stdout_mid_line = substr($data, -1) ne "\n";
  write_all(\*STDOUT, $data) or exit 0;    # the host is gone
}

# A message from the host: a request is owed an answer; a cancellation (a notification naming a
# requestId) releases the worker from one, since the SDK sends nothing for a cancelled request.
sub track {
  my ($s) = @_;
  return unless $s->{object} && $s->{has_method};
  if ($s->{id}{state} != 3) {
    forget($s->{rid}{text}) if $s->{rid}{state} == 3;
    return;
  }
  push(@in_flight, [$s->{id}{text}, Time::HiRes::time()]);
  shift(@in_flight) if @in_flight > 64;
}

sub answered {
  my ($s) = @_;
  forget($s->{id}{text}) if $s->{object} && $s->{id}{state} == 3 && !$s->{has_method};
}

sub forget {
  my ($id) = @_;
  for my $i (0 .. $#in_flight) {
    next unless $in_flight[$i][0] eq $id;
    splice(@in_flight, $i, 1);
    return;
  }
}

sub members { return { expect_key => 0, reading_key => 0, key => '', wanted => '' } }

sub fresh {
  return {
    depth         => 0,
    in_string     => 0,
    escape        => 0,
    started       => 0,
    object        => 0,
    params_object => 0,
    has_method    => 0,
    top           => members(),
    params        => members(),
    id            => { state => 0, text => '' },    # 0 not seen, 1 in a string, 2 in a bare token, 3 done, -1 not usable
    rid           => { state => 0, text => '' },
  };
}

# Where a stream of newline-delimited JSON is, as the native bridge's scan_byte: each message's
# top-level "id", whether it has a "method", and the "requestId" in its "params". Runs of
# ordinary bytes are taken by one match, so a message of megabytes costs a few matches.
sub scan {
  my ($s, $data, $on_end) = @_;
  pos($data) = 0;
  my $length = length $data;
  while (pos($data) < $length) {
    my $bare = $s->{id}{state} == 2 ? $s->{id} : $s->{rid}{state} == 2 ? $s->{rid} : undef;
    if ($bare) {
      if ($data =~ /\G([^,}\]\s\n]+)/gc) { $bare->{text} .= $1; next }
      $bare->{state} = 3;
    }
    my $level = $s->{depth} == 1 ? $s->{top} : $s->{depth} == 2 && $s->{params_object} ? $s->{params} : undef;
    if ($s->{in_string}) {
      my $open = $s->{id}{state} == 1 ? $s->{id} : $s->{rid}{state} == 1 ? $s->{rid} : undef;
      if ($s->{escape}) {
        $s->{escape} = 0;
        if ($data =~ /\G([^\n])/gcs) {
          $level->{key} .= "\\$1" if $level && $level->{reading_key};
          $open->{text} .= $1 if $open;
          next;
        }
      }
      # A whole run of the string, escapes included: one match, not one per character.
      if ($data =~ /\G((?:[^"\\\n]+|\\[^\n])+)/gc) {
        $level->{key} .= $1 if $level && $level->{reading_key};
        $open->{text} .= $1 if $open;
        next;
      }
      if ($data =~ /\G\\/gc) {
        $s->{escape} = 1;
        $open->{text} .= '\\' if $open;
        next;
      }
      if ($data =~ /\G"/gc) {
        $s->{in_string} = 0;
        $level->{reading_key} = 0 if $level;
        if ($open) { $open->{text} .= '"'; $open->{state} = 3 }
        next;
      }
    }
    if ($data =~ /\G\n/gc) {
      $on_end->($s);
      %$s = %{ fresh() };
      next;
    }
    next if $data =~ /\G[ \t\r]+/gc;
    my $target;
    if ($level && !$level->{expect_key}) {
      $target = $s->{id}  if $level == $s->{top}    && $level->{wanted} eq 'id';
      $target = $s->{rid} if $level == $s->{params} && $level->{wanted} eq 'requestId';
    }
    my $first_of_value = $target && $target->{state} == 0;
    $data =~ /\G(.)/gcs;
    my $c = $1;
    if ($c eq '"') {
      $s->{in_string} = 1;
      if ($level && $level->{expect_key}) { $level->{reading_key} = 1; $level->{key} = '' }
      elsif ($first_of_value) { $target->{state} = 1; $target->{text} = '"' }
    } elsif ($c eq '{' || $c eq '[') {
      if ($s->{depth} == 0 && !$s->{started}) { $s->{object} = $c eq '{'; $s->{top}{expect_key} = 1 }
      elsif ($level && $level == $s->{top} && !$level->{expect_key} && $level->{wanted} eq 'params' && $c eq '{') {
        $s->{params_object} = 1;
        $s->{params} = members();
        $s->{params}{expect_key} = 1;
      } elsif ($first_of_value) { $target->{state} = -1 }
      $s->{depth}++;
    } elsif ($c eq '}' || $c eq ']') {
      $s->{depth}--;
      $s->{params_object} = 0 if $s->{depth} <= 1;
    } elsif ($c eq ':') {
      if ($level && $level->{expect_key}) {
        $level->{expect_key} = 0;
        my $key = $level->{key};
        $level->{wanted} = $level == $s->{top} ? ($key eq 'id' || $key eq 'method' || $key eq 'params' ? $key : '') : ($key eq 'requestId' ? $key : '');
        $s->{has_method} = 1 if $level->{wanted} eq 'method';
      }
    } elsif ($c eq ',') {
      if ($level) { $level->{expect_key} = 1; $level->{wanted} = '' }
    } elsif ($first_of_value) {
      $target->{state} = 2;
      $target->{text} = $c;
    }
    $s->{started} = 1;
  }
}
