'use strict';
// mono-agent warm shell server: one per run, itself the command srt wraps (so it runs inside bwrap + seccomp with the
// run's mount, network and pid namespaces), runs the run's Bash/Exec commands one at a time. See
// docs/decisions/0021-warm-shell.md.
//
// Isolation from the commands it runs. This server is root of a user namespace of its own (srt wraps `unshare --user
// --map-root-user --mount -- node …`), which owns the mount namespace the commands run in. Each command is started
// by the Perl helper below in a child user namespace (the host's uid/gid mapped): it holds no capability in this one, so
// it cannot ptrace this server or the mounter, read or write their memory, open their descriptors through
// /proc/<pid>/fd (all need CAP_SYS_PTRACE here), or unmount anything here (mounts it copies into a namespace of its
// own come locked). The command's stdout/stderr are pipes this server owns; they are never the control channel.
//
// Protocol. The host's first line on stdin is "KEY <64 hex>" (sent before any command exists, then held only in a
// KeyObject; nothing is answered before it). Requests: "<bytes> <hmac>\n<json>" with hmac = HMAC-SHA256(key, "req\n" + json); a request that fails
// it ends the server. Replies on fd 1 are frames "\x01W <kind> <id> <bytes> <hmac>\n<body>" with hmac =
// HMAC-SHA256(key, "<kind> <id> <nonce>\n" + body), binding each frame to the request's random nonce: kinds r (ready),
// s (about to spawn), o/e (stdout/stderr bytes), d (done: JSON). Nothing else is written to fd 1.
//
// After each command: whatever it left in the sandbox's pid namespace (every process not present when the server
// became ready, identified by pid and start time) is killed before the done frame, so nothing of it runs while the
// host scans or while the next command runs. srt's forwarders, this server and its ancestors were present then.
(function monoAgentWarmShell() {
const fs = require('node:fs');
const crypto = require('node:crypto');
const os = require('node:os');
const { spawn } = require('node:child_process');

const say = (...a) => { try { fs.writeSync(2, a.join(' ') + '\n'); } catch (e) { /* gone */ } };
console.log = console.info = console.warn = console.error = say;

// the key: set from the first stdin line, before any command exists (see the protocol above)
let key = null;
const mac = (...parts) => {
  const h = crypto.createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

// Everything this server runs itself runs with its namespace's capabilities: by absolute path (checked by the host to
// lie outside anything writable inside the sandbox), never looked up on PATH, and with a fixed environment (no PERL5LIB,
// PERL5OPT, LD_*) — a name a command could plant on PATH would otherwise run as root of this namespace.
const OWN_ENV = { PATH: '/usr/bin:/bin', LANG: 'C' };
// this server is root of a user namespace of its own (the wrapped command is `unshare --user --map-root-user --mount
// -- node …`), which owns the mount namespace the commands run in; they get the host's ids back in theirs
const [UID, GID] = String(process.env.MONO_AGENT_IDS || '').split(':');
if (!/^[0-9]+$/.test(UID || '') || !/^[0-9]+$/.test(GID || '')) process.exit(3);
// what srt added to or changed in the environment we were launched with (its proxies, TMPDIR, SRT_*): every command
// gets it on top of the environment the host sends, as a command srt wrapped itself would
let launched = {};
try { launched = JSON.parse(process.env.MONO_AGENT_OWN || '{}'); } catch (e) { process.exit(3); }
const SHELL_ONLY = new Set(['PWD', 'OLDPWD', '_', 'SHLVL']);
const fromSrt = {};
for (const [k, v] of Object.entries(process.env)) {
  if (k.startsWith('MONO_AGENT_') || SHELL_ONLY.has(k) || launched[k] === v) continue;
  fromSrt[k] = v;
}

function writeAll(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off, buf.length - off, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') process.exit(6);
    }
  }
}

function frame(kind, id, nonce, body) {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const h = mac(kind + ' ' + id + ' ' + nonce + '\n', b).toString('hex');
  writeAll(Buffer.concat([Buffer.from('\x01W ' + kind + ' ' + id + ' ' + b.length + ' ' + h + '\n', 'latin1'), b]));
}

// pid -> start time (field 22 of /proc/<pid>/stat) of every process present at ready
function ident(pid) {
  try {
    const s = fs.readFileSync('/proc/' + pid + '/stat', 'latin1');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], start: rest[19] };
  } catch (e) {
    return null;
  }
}
function pids() {
  return fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).map(Number);
}
// /proc here is the sandbox's outer pid namespace, while srt's apply-seccomp starts us one level deeper: kill() takes
// the pid as this namespace numbers it (the NSpid entry at our depth), not the one /proc is listed by
function nspid(p) {
  try {
    const m = /^NSpid:\s+(.*)$/m.exec(fs.readFileSync('/proc/' + p + '/status', 'latin1'));
    return m ? m[1].trim().split(/\s+/).map(Number) : null;
  } catch (e) { return null; }
}
const DEPTH = (nspid('self') || [0]).length;
function ours(p) {
  const ns = nspid(p);
  return ns !== null && ns.length >= DEPTH ? ns[DEPTH - 1] : null;
}
const baseline = new Map();
// each baseline process's /proc/<pid>/stat, held open since ready: a read through it succeeds only while that very
// process exists (once it is reaped it reads ESRCH, whoever has its pid now), so the sweep reads one descriptor for
// each of them instead of opening and parsing its stat
const held = new Map();
const heldBuf = Buffer.alloc(64);
function stillThere(p) {
  const fd = held.get(p);
  if (fd === undefined) return false;
  try { return fs.readSync(fd, heldBuf, 0, heldBuf.length, 0) > 0; } catch (e) { return false; }
}
const nap = new Int32Array(new SharedArrayBuffer(4));

// A process runs nothing only when every thread of it has exited: a leader that ended with SYS_exit (not exit_group)
// shows Z while its other threads go on, visible only under /proc/<pid>/task.
function dead(pid) {
  let tasks;
  try { tasks = fs.readdirSync('/proc/' + pid + '/task'); } catch (e) { return true; }
  for (const t of tasks) {
    try {
      const s = fs.readFileSync('/proc/' + pid + '/task/' + t + '/stat', 'latin1');
      const st = s.charAt(s.lastIndexOf(')') + 2);
      if (st !== 'Z' && st !== 'X') return false;
    } catch (e) { /* that thread is gone */ }
  }
  return true;
}

function taskStates(pid) {
  try {
    return fs.readdirSync('/proc/' + pid + '/task').map((t) => {
      try {
        const s = fs.readFileSync('/proc/' + pid + '/task/' + t + '/stat', 'latin1');
        return t + ':' + s.charAt(s.lastIndexOf(')') + 2);
      } catch (e) { return t + ':' + e.code; }
    }).join(' ');
  } catch (e) { return e.code; }
}

function sweep() {
  let killed = 0;
  let last = [];
  let lastErr = '';
  for (let round = 0; round < 400; round++) {
    const extra = [];
    for (const p of pids()) {
      if (stillThere(p)) continue; // present at ready
      const id = ident(p);
      if (id === null || ((id.state === 'Z' || id.state === 'X') && dead(p))) continue; // gone: runs nothing
      if (baseline.get(p) === id.start) continue;
      extra.push(p);
    }
    if (extra.length === 0) return { ok: true, killed };
    last = extra;
    for (const p of extra) {
      const k = ours(p);
      if (k === null) { lastErr = 'not in this pid namespace'; continue; }
      try { process.kill(k, 'SIGKILL'); killed++; } catch (e) { lastErr = e.code; }
    }
    Atomics.wait(nap, 0, 0, round < 20 ? 1 : 10);
  }
  say('warm shell: the sweep could not end (' + lastErr + ') ' + last.map((p) => p + ' ' + ((ident(p) || {}).state || '?') + ' ['
    + taskStates(p) + ']').join(', '));
  return { ok: false, killed };
}

// Placeholders. For a denied path that is absent, srt binds a read-only placeholder over its first missing component
// and bubblewrap creates that component on the host, where it stays as long as the sandbox lives — for a warm shell
// the whole run. So the host removes them after each command, which detaches their binds here, and before each command
// the host makes the ones it then sends (an empty read-only file, or an empty directory), and this server binds each
// read-only over itself in its own mount namespace, which the command then runs in without any capability over it
// (its mounts are locked in any namespace the command makes). The mount(2) calls are made by one small Perl process
// that is root of this namespace too, started now so it is part of the baseline; its pipes are this server's alone.
const PERL = process.env.MONO_AGENT_PERL;
const MOUNT_NR = { x64: 165, arm64: 40 }[process.arch];
const PRCTL_NR = { x64: 157, arm64: 167 }[process.arch];
const UNSHARE_NR = { x64: 272, arm64: 97 }[process.arch];
// the rest of what the helper calls directly, as it loads no module (see HELPER): setsid, dup3, exit_group,
// sched_setaffinity, sched_getaffinity, sched_getscheduler, ioprio_get, prlimit64
const MORE_NR = { x64: [112, 292, 231, 203, 204, 145, 252, 302], arm64: [157, 24, 94, 122, 123, 121, 31, 261] }[
  process.arch];
if (!PERL || MOUNT_NR === undefined || UNSHARE_NR === undefined || MORE_NR === undefined) {
  say('warm shell: no perl, or no mount(2) number for ' + process.arch);
  process.exit(7);
}
// Two read-only templates (an empty file, an empty directory) in the sandbox's private /dev/shm, each bound read-only
// over itself once: a bind takes its source mount's flags, so each placeholder then costs one mount(2) call — the
// template bound over it, read-only from the start — instead of a bind and a remount.
const TEMPLATES = fs.mkdtempSync('/dev/shm/.mono-agent-warm-tpl-');
fs.writeFileSync(TEMPLATES + '/f', '', { mode: 0o444, flag: 'wx' });
fs.mkdirSync(TEMPLATES + '/d', 0o555);
// their identities, taken before any command exists: a path whose entry is one of them is under our bind (nothing else
// in the workspace can be this inode of this private tmpfs, and only this namespace's root can bind here)
const TPL = { f: fs.statSync(TEMPLATES + '/f', { bigint: true }), d: fs.statSync(TEMPLATES + '/d', { bigint: true }) };
// The helper: one small Perl process, root of this namespace too, that makes the mount(2) calls and starts each
// command. A command's process is forked from it (a small process, not this server) ahead of the command, when the
// host says one follows (after the previous one was swept): put in a session of its own, moved into a child user
// namespace of its own (unshare(2), the host's uid/gid mapped; no capability in this one), it opens the pipes this
// server opened ahead for it and waits on a pipe of its own for its request; then it takes its cwd, environment and
// stdio (files at paths this server made, each checked to be the one it opened: device and inode) and execs. The
// helper then waits for it and reports its exit status.
//
// Its cost is mostly the fork: every page either process writes afterwards is copied on a fault, and each such fault
// flushes the TLB of every CPU the process ran on (an interrupt to each; costly in a VM). So the helper loads no module
// (POSIX and Fcntl alone made its private memory five times larger: it calls setsid, dup3 and exit_group directly and
// takes the open(2) flags from Node), and it keeps to one CPU, as does each forked process until just before its exec,
// when it gets back every CPU the helper was allowed — the command itself is not confined. Measured on a 2-core VM, old
// and new server in one JVM: 20.6 / 17.3 ms per command before, 18.7 / 15.5 after (ADR 0021).
const OPEN_FLAGS = ['O_RDONLY', 'O_WRONLY', 'O_CREAT', 'O_EXCL', 'O_NOFOLLOW', 'O_DIRECTORY']
  .map((n) => 'sub ' + n + ' () { ' + Number(fs.constants[n]) + ' }').join(' ');
const HELPER = 'use strict; ' + OPEN_FLAGS + `
my ($nr, $prctl, $unshare, $setsid, $dup3, $exitnr, $setaff, $getaff, $getsched, $ioprio, $prlimit) =
  map { 0 + $_ } splice(@ARGV, 0, 11);
my ($tf, $td, $uid, $gid) = @ARGV; $| = 1;
# not dumpable: a command (no capability in this namespace) then cannot open /proc/<this>/fd, mem or environ
syscall($prctl, 4, 0, 0, 0, 0) == 0 or die "prctl: $!";
# one CPU, the highest this process may use (see above); each forked process gets back all of them before its exec.
# Where the affinity cannot be read or set, nothing is pinned
my $cpus = "\\0" x 128;
my $pinned = 0;
{
  my $n = syscall($getaff, 0, 128, $cpus);
  if ($n > 0) {
    my @bits = split //, unpack('b*', substr($cpus, 0, $n));
    my ($hi) = grep { $bits[$_] } reverse 0 .. $#bits;
    if (defined $hi) {
      my $one = "\\0" x 128; vec($one, $hi, 1) = 1;
      $pinned = syscall($setaff, 0, 128, $one) == 0;
    }
  }
}
# What a command can change on this process although it holds no capability here, being the same user: its nice
# value, scheduling policy, I/O priority, resource limits and OOM score — which every process forked from it would
# inherit, so one command could slow down or limit every later one of the run (renice, chrt -i,
# prlimit --nofile/--fsize on the helper would carry over). Taken now, and compared before each fork: any change ends
# this helper, and with it the server, so the host gives the next command a fresh sandbox and the run a new shell.
my @LIMITS = qw(cpu fsize data stack core rss nproc nofile memlock as locks sigpending msgqueue nice rtprio rttime);
sub own_state {
  my @s = ('nice=' . getpriority(0, 0), 'policy=' . syscall($getsched, 0), 'ioprio=' . syscall($ioprio, 1, 0));
  for my $r (0 .. $#LIMITS) {
    my $b = "\\0" x 16;
    syscall($prlimit, 0, $r, 0, $b) == 0 or return undef;
    push @s, "limit $LIMITS[$r]=" . join(':', unpack('QQ', $b));
  }
  open(my $f, '<', '/proc/self/oom_score_adj') or return undef;
  my $o = <$f>; close $f;
  chomp $o;
  return [@s, "oom_score_adj=$o"];
}
my $own = own_state();
defined $own or die "own state: $!";
my $ro = 32 | 4096 | 1 | 2 | 4;
for my $t ($tf, $td) {
  syscall($nr, $t, $t, 0, 4096, 0) == 0 or die "bind $t: $!";
  syscall($nr, $t, $t, 0, $ro, 0) == 0 or syscall($nr, $t, $t, 0, $ro | 8, 0) == 0 or die "read-only $t: $!";
}
# held open through their read-only binds and bound from by descriptor: a command that renames or replaces the
# template paths in the shared /dev/shm changes nothing here
sysopen(my $tfh, $tf, O_RDONLY | O_NOFOLLOW) or die "open $tf: $!";
sysopen(my $tdh, $td, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) or die "open $td: $!";
my ($sf, $sd) = ('/proc/self/fd/' . fileno($tfh), '/proc/self/fd/' . fileno($tdh));
# Requests are read with sysread into a buffer of our own, never through Perl's buffered <STDIN>: Perl flushes every
# handle before an exec, and for an input handle that read ahead it seeks the descriptor back to what it consumed —
# in a command's process, after its stdin file was dup'ed over fd 0, that put the file's offset past its end, and the
# command read nothing (1 command in 7 with a stdin, WarmShellTest flaked).
my $inbuf = '';
sub in_line {
  my ($fh, $buf) = @_;
  for (;;) {
    my $i = index($$buf, "\\n");
    if ($i >= 0) { my $l = substr($$buf, 0, $i); substr($$buf, 0, $i + 1) = ''; return $l; }
    my $n = sysread($fh, $$buf, 65536, length $$buf);
    return undef unless $n;
  }
}
sub bind_marks {
  my ($n) = @_; my @err;
  for (1 .. $n) {
    my $l = in_line(\\*STDIN, \\$inbuf); last unless defined $l;
    my ($k, $hex) = split / /, $l, 2;
    my $p = pack('H*', $hex);
    if (-l $p) { push @err, "a symlink: $p"; next; }
    if (!-e $p) {
      if ($k ne 'p') { push @err, "missing: $p"; next; }
      if (sysopen(my $fh, $p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0444)) { close $fh; }
      else { push @err, "create $p: $!"; next; }
    }
    my $src = -d $p ? $sd : $sf;
    if (syscall($nr, $src, $p, 0, 4096, 0) != 0) { push @err, "bind $p: $!"; next; }
  }
  print(@err ? 'err ' . join('; ', @err) . "\\n" : "ok\\n");
}
sub child_fail { my ($w, $m) = @_; syswrite($w, $m); syscall($exitnr, 127); }
# one of the command's stdio: $f undef (/dev/null) or, for stdin, [path, "dev:ino"] (the server's file, checked to
# be it); the handle, or undef and why
sub open_io {
  my ($k, $f) = @_; my $h;
  my $mode = !defined $f ? ($k eq 'i' ? O_RDONLY : O_WRONLY) : O_RDONLY | O_NOFOLLOW;
  sysopen($h, defined $f ? $f->[0] : '/dev/null', $mode) or return (undef, "stdio: $!");
  if (defined $f) {
    my @st = stat($h);
    "$st[0]:$st[1]" eq $f->[1] or return (undef, "stdio: not the server's file");
  }
  return ($h, undef);
}
# a start request: lines "c <cwd>", "i <path> <dev:ino>", "o p" / "e p" (the process's own pipe, see prefork), "i|o|e -"
# (/dev/null), "a <arg>", "v <name=value>" (values hex), then "."; undef when malformed
sub parse_start {
  my (@argv, %env, $cwd, %io);
  for my $l (@_) {
    my ($k, $hex) = split / /, $l, 2; $hex = '' unless defined $hex;
    my $v = pack('H*', $hex);
    if ($k eq 'a') { push @argv, $v; }
    elsif ($k eq 'v') { my ($n, $x) = split /=/, $v, 2; $env{$n} = $x; }
    elsif ($k eq 'c') { $cwd = $v; }
    elsif ($k =~ /^[ioe]$/ && $hex eq '-') { $io{$k} = undef; }
    elsif ($k =~ /^[oe]$/ && $hex eq 'p') { $io{$k} = 'p'; }
    elsif ($k eq 'i' && $hex =~ /^([0-9a-f]+) ([0-9]+:[0-9]+)$/) { $io{$k} = [pack('H*', $1), $2]; }
    else { return undef; }
  }
  return undef unless @argv && defined $cwd && 3 == grep { exists $io{$_} } qw(i o e);
  return [\\@argv, \\%env, $cwd, \\%io];
}
# The next command's process, forked ahead (on the host's word, while it does its own work before the command): in a
# session and a child user namespace of its own already (the host's uid/gid mapped: no capability in this one), it
# waits for its start request on a pipe of its own. Only ever one, and only between commands: the host asks for it
# once the previous command was swept, so nothing of that command can reach it.
#
# Its stdout and stderr are two pipes made here, pipe(2), before the fork: it holds their write ends from the start and
# this helper their read ends, whose numbers the fork's answer names; the server opens them through /proc/<helper>/fd
# (see pipeOf there) then, while no command process exists, and this helper closes its own when the command is started.
# Nothing of them has a name a command could reach: no descriptor of this helper or of the server can be opened by a
# command (it holds no capability in their namespace; this helper is not dumpable either).
my $pre;
sub prefork {
  return if $pre;
  # naming what changed, on the server's stderr
  my $now = own_state();
  my @changed = !defined $now ? ("unreadable: $!")
    : map { "$own->[$_] -> $now->[$_]" } grep { $own->[$_] ne $now->[$_] } 0 .. $#$own;
  die "warm shell: the helper's priority, scheduling or limits were changed, by a command: " . join(', ', @changed)
    . "\\n" if @changed;
  pipe(my $cr, my $cw) or die "pipe: $!";
  pipe(my $er, my $ew) or die "pipe: $!";
  pipe(my $or, my $ow) or die "pipe: $!";
  pipe(my $xr, my $xw) or die "pipe: $!";
  my $pid = fork;
  die "fork: $!" unless defined $pid;
  if ($pid == 0) {
    close $cw; close $er; close $or; close $xr;
    syscall($setsid) > 0 or child_fail($ew, "setsid: $!");
    syscall($unshare, 0x10000000) == 0 or child_fail($ew, "unshare: $!");
    for (['setgroups', 'deny'], ['uid_map', "$uid 0 1"], ['gid_map', "$gid 0 1"]) {
      my ($f, $m) = @$_;
      my $h;
      (sysopen($h, "/proc/self/$f", O_WRONLY) && syswrite($h, $m)) or child_fail($ew, "$f: $!");
      close $h;
    }
    my @lines;
    my $cbuf = '';
    while (defined(my $l = in_line($cr, \\$cbuf))) { last if $l eq '.'; push @lines, $l; }
    close $cr;
    my $s = parse_start(@lines) or child_fail($ew, "no start request");
    my ($argv, $env, $cwd, $io) = @$s;
    my @fh;
    my %own = (o => $ow, e => $xw);
    for my $k (qw(i o e)) {
      my $f = $io->{$k};
      if (defined $f && $f eq 'p') { push @fh, $own{$k}; next; }
      my ($h, $why) = open_io($k, $f);
      child_fail($ew, $why) unless $h;
      push @fh, $h;
    }
    for my $i (0 .. 2) {
      my $f = fileno($fh[$i]);
      $f == $i or syscall($dup3, $f, $i, 0) == $i or child_fail($ew, "dup3: $!");
    }
    chdir $cwd or child_fail($ew, "$cwd: $!");
    # the command runs on every CPU the helper was allowed (best effort: a refusal only leaves it on one)
    syscall($setaff, 0, 128, $cpus) if $pinned;
    %ENV = %$env;
    { no warnings; exec { $argv->[0] } @$argv; }
    child_fail($ew, "$argv->[0]: $!");
  }
  close $cr; close $ew; close $ow; close $xw;
  $pre = [$pid, $cw, $er, $or, $xr];
}
sub start {
  my @lines; my $end = 0;
  while (defined(my $l = in_line(\\*STDIN, \\$inbuf))) { if ($l eq '.') { $end = 1; last; } push @lines, $l; }
  die "bad start" unless $end; # the child reads it (parse_start) and reports what it cannot use
  # the server asks for the fork first, always (it has opened the read ends by now)
  die "a start without a process forked ahead" unless $pre;
  my ($pid, $cw, $er, $or, $xr) = @$pre; $pre = undef;
  close $or; close $xr;
  {
    # a child that failed before reading (unshare refused) is reported through its error pipe below
    local $SIG{PIPE} = 'IGNORE';
    my $req = join("\\n", @lines, '.') . "\\n";
    for (my $off = 0; $off < length $req;) { my $n = syswrite($cw, $req, length($req) - $off, $off); last unless $n; $off += $n; }
  }
  close $cw;
  my $why = ''; sysread($er, $why, 4096); close $er;
  if ($why ne '') { waitpid($pid, 0); print 'fail ' . unpack('H*', $why) . "\\n"; return; }
  print "pid $pid\\n";
  waitpid($pid, 0) == $pid or die "waitpid: $!";
  my $w = $?;
  print 'exit ' . (($w & 127) ? 0 : ($w >> 8)) . ' ' . ($w & 127) . "\\n";
}
while (defined(my $l = in_line(\\*STDIN, \\$inbuf))) {
  if ($l =~ /^b ([0-9]+)$/) { bind_marks($1); }
  elsif ($l eq 'r') { start(); }
  elsif ($l eq 'f') {
    prefork();
    print 'forked ' . fileno($pre->[3]) . ' ' . fileno($pre->[4]) . "\\n";
  }
  else { die "bad request"; }
}`;
if (!PERL.startsWith('/')) process.exit(3);
const mounter = spawn(PERL, ['-e', HELPER, String(MOUNT_NR), String(PRCTL_NR), String(UNSHARE_NR), ...MORE_NR.map(String),
  TEMPLATES + '/f', TEMPLATES + '/d', UID, GID], { stdio: ['pipe', 'pipe', 'inherit'], env: OWN_ENV });
let mounterOut = '';
// one waiter per reply line the helper owes
const mounterWaits = [];
mounter.stdout.on('data', (b) => {
  mounterOut += b.toString('latin1');
  for (let nl; (nl = mounterOut.indexOf('\n')) >= 0;) {
    const line = mounterOut.slice(0, nl);
    mounterOut = mounterOut.slice(nl + 1);
    const w = mounterWaits.shift();
    // the helper answers requests only: anything else (a command that found a way to write to its pipe) is a doubt
    if (!w) process.exit(9);
    w(line);
  }
  if (mounterOut.length > 0 && mounterWaits.length === 0) process.exit(9);
});
// the mounter gone is a doubt like any other: the host sees this server exit and kills the sandbox
mounter.on('exit', () => process.exit(9));
// Whether the entry at p is the read-only template bound over it (a bind the host's removal of its placeholder detached
// is not; one moved to the stash and back still is: the mount sits on the directory entry).
function boundHere(p, dir) {
  let st;
  try { st = fs.lstatSync(p, { bigint: true }); } catch (e) { return false; }
  const t = dir ? TPL.d : TPL.f;
  return st.dev === t.dev && st.ino === t.ino;
}

function bindMarks(all, done) {
  if (!Array.isArray(all) || all.length === 0) { done('ok'); return; }
  // a placeholder whose bind is still in place (back from the stash) is not bound again
  const marks = all.filter((m) => m === null || typeof m.p !== 'string' || m.probe || !boundHere(m.p, m.d === true));
  if (marks.length === 0) { done('ok'); return; }
  const lines = ['b ' + marks.length];
  for (const m of marks) {
    if (m === null || typeof m.p !== 'string' || !m.p.startsWith('/')) { done('err bad mark'); return; }
    lines.push((m.probe ? 'p ' : m.d ? 'd ' : 'f ') + Buffer.from(m.p, 'utf8').toString('hex'));
  }
  mounterWaits.push(done);
  mounter.stdin.write(lines.join('\n') + '\n');
}

for (const p of pids()) {
  const id = ident(p);
  if (id === null) continue;
  baseline.set(p, id.start);
  try { held.set(p, fs.openSync('/proc/' + p + '/stat', 'r')); } catch (e) { /* gone: its start time decides */ }
}

let busy = false;

// A command's stdout/stderr are pipes, pipe(2), not the socketpairs Node's 'pipe' stdio makes: a per-command sandbox
// gives real pipes, and reopening one (`> /dev/stdout`, `tee /proc/self/fd/1`) fails with ENXIO on a socket. The
// helper makes them when it forks the command's process (which holds their write ends from then on) and holds their
// read ends; this server opens those through /proc/<helper>/fd/<n> at once, while no command process exists — a pipe
// opened there is the pipe itself, and no command may open a descriptor of the helper (it holds no capability in this
// namespace; the helper is not dumpable either). A failure there is a doubt before the next command's start frame, so
// that command runs on a fresh per-command sandbox (opened after the command started, they would let a command lower
// this server's descriptor limit, so that the next command started and was killed). They have no name anywhere, so a
// command cannot plant, replace or join another command's pipes (as it could with FIFOs in /dev/shm), and no
// write-intent call is made for them (FIFOs cost 8 such calls per command — mkfifo, opens for writing, unlinks —
// each reported by srt's observer to the host, which drops them; ADR 0021).
const net = require('node:net');
// the command's stdin file, when it has one, and the start-up probe's bind target: in the sandbox's private /dev/shm
const IO_DIR = fs.mkdtempSync('/dev/shm/.mono-agent-warm-');
const idOf = (st) => st.dev + ':' + st.ino;
// the helper's pid as /proc here numbers it (the sandbox's outer pid namespace, see nspid), found once
let helperProc = null;
function pipeOf(fd) {
  if (helperProc === null) {
    for (const p of pids()) {
      if (ours(p) === mounter.pid) { helperProc = p; break; }
    }
    if (helperProc === null) throw new Error('the helper is not in /proc');
  }
  const h = fs.openSync('/proc/' + helperProc + '/fd/' + fd, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const st = fs.fstatSync(h, { bigint: true });
  if (!st.isFIFO()) {
    fs.closeSync(h);
    throw new Error('not a pipe: the helper\'s descriptor ' + fd);
  }
  return { fd: h, id: idOf(st) };
}
function unlinkIo(io) {
  for (const f of io) {
    if (f && f.path) { try { fs.unlinkSync(f.path); } catch (e) { /* gone */ } f.path = null; }
  }
}
function stdinFile(text) {
  if (typeof text !== 'string') return null;
  const p = IO_DIR + '/i' + crypto.randomBytes(12).toString('hex');
  fs.writeFileSync(p, text, { mode: 0o600, flag: 'wx' });
  return { path: p, id: idOf(fs.lstatSync(p, { bigint: true })) };
}

// The pipes of the process the helper forked ahead, opened (see above); null: none forked yet
let nextPipes = null;
// the calls waiting for the helper's answer to a fork request (null: none is owed)
let forkOwed = null;
// Has the helper fork the next command's process (and make its pipes) unless that is done or under way; then(), once
// it is done. The helper's answer names the pipes' read ends, opened at once.
function forkAhead(then) {
  if (nextPipes !== null && forkOwed === null) { if (then) then(); return; }
  if (forkOwed !== null) { if (then) forkOwed.push(then); return; }
  forkOwed = then ? [then] : [];
  mounterWaits.push((line) => {
    const m = /^forked ([0-9]+) ([0-9]+)$/.exec(line);
    if (!m) process.exit(9);
    try {
      const out = pipeOf(Number(m[1]));
      const err = pipeOf(Number(m[2]));
      if (out.id === err.id) throw new Error('stdout and stderr are one pipe');
      nextPipes = { out, err };
    } catch (e) {
      say('warm shell: the next command\'s pipes cannot be opened: ' + e.message);
      process.exit(9);
    }
    const queued = forkOwed;
    forkOwed = null;
    queued.forEach((f) => f());
  });
  mounter.stdin.write('f\n');
}
function takePipes() {
  const p = nextPipes;
  nextPipes = null;
  if (p === null) throw new Error('no process forked ahead');
  return p;
}

// Starts the process forked ahead as a command: its stdin is a file at a path this server made, checked by the helper
// to be the one this server saw (device and inode; null: /dev/null), its stdout/stderr 'p', the pipes the helper made
// for it (taken by takePipes), or null (/dev/null). started(pid) once it was exec'ed, or failed(why) when it could not be
// (nothing of it ran); then exited(code, signo).
const hex = (v) => Buffer.from(String(v), 'utf8').toString('hex');
// a file of a command's stdio as the helper checks it: its path and the identity this server saw (device:inode)
const ioRef = (f) => hex(f.path) + ' ' + f.id;
function launch(argv, env, cwd, fds, started, failed, exited) {
  const lines = ['r', 'c ' + hex(cwd)];
  for (const [k, f] of Object.entries(fds)) lines.push(k + ' ' + (f === null ? '-' : f === 'p' ? 'p' : ioRef(f)));
  for (const a of argv) lines.push('a ' + hex(a));
  for (const [k, v] of Object.entries(env)) lines.push('v ' + hex(k + '=' + v));
  lines.push('.');
  mounterWaits.push((line) => {
    if (line.startsWith('fail ')) {
      failed(Buffer.from(line.slice(5), 'hex').toString('utf8'));
      return;
    }
    const m = /^pid ([0-9]+)$/.exec(line);
    if (!m) process.exit(9);
    mounterWaits.push((end) => {
      const e = /^exit ([0-9]+) ([0-9]+)$/.exec(end);
      if (!e) process.exit(9);
      exited(Number(e[1]), Number(e[2]));
    });
    started(Number(m[1]));
  });
  mounter.stdin.write(lines.join('\n') + '\n');
}

// the server is ready only once a bind made here is proven read-only: a placeholder that would not hold is no
// placeholder, and then no command runs warm
let mountsProven = false;
let keyed = false;
{
  const probeAt = IO_DIR + '/probe';
  bindMarks([{ p: probeAt, d: false, probe: true }], (r) => {
    let refused = false;
    if (r === 'ok') {
      try { fs.writeFileSync(probeAt, 'x'); } catch (e) { refused = e.code === 'EROFS'; }
    }
    if (!refused) {
      say('warm shell: a read-only bind did not hold (' + r + ')');
      process.exit(7);
    }
    // and once a command started the way every command is (its own session, user namespace and pipes) ran
    forkAhead(() => {
      const pipes = takePipes();
      launch(['/bin/true'], OWN_ENV, '/', { i: null, o: 'p', e: 'p' }, () => {}, (why) => {
        say('warm shell: the launch probe failed (' + why + ')');
        process.exit(7);
      }, (code, signo) => {
        fs.closeSync(pipes.out.fd);
        fs.closeSync(pipes.err.fd);
        if (code !== 0 || signo !== 0) {
          say('warm shell: the launch probe failed (exit ' + code + ', signal ' + signo + ')');
          process.exit(7);
        }
        mountsProven = true;
        announce();
      });
    });
  });
}
function announce() {
  if (mountsProven && keyed) {
    frame('r', 0, 'ready', JSON.stringify({ pid: process.pid, baseline: baseline.size }));
  }
}

function run(req) {
  bindMarks(req.marks, (r) => {
    if (r !== 'ok') {
      // nothing of the command ran: the host sees the server gone before the command's start frame and runs it on
      // a fresh per-command sandbox
      say('warm shell: placeholders not bound: ' + r);
      process.exit(9);
    }
    runNow(req);
  });
}

function runNow(req) {
  const { id, nonce } = req;
  const max = req.maxBytes;
  const counts = { o: 0, e: 0 };
  let truncated = false;
  let timedOut = false;
  let sent = 0;
  let exited = null;
  const open = new Set(['o', 'e']);
  let finished = false;
  let pipeWait = null;
  const readers = [];
  let input = null;
  let pid = null;
  let pipes = null;
  try {
    pipes = takePipes();
    input = stdinFile(req.stdin);
  } catch (e) {
    // its stdin's name was taken (a command may write in that directory) or a file cannot be made: a doubt, before
    // the command's start frame, so the host runs it on a fresh per-command sandbox and replaces this shell
    say('warm shell: the command\'s stdio cannot be set up: ' + e.message);
    process.exit(9);
  }
  frame('s', id, nonce, '');
  function finish(r) {
    if (finished) return;
    finished = true;
    const s = sweep();
    for (const r of readers) r.destroy();
    if (!s.ok) process.exit(8); // something outran the sweep: the host kills the whole sandbox
    const note = r.note ? Buffer.from(r.note, 'utf8') : null;
    if (note) frame('e', id, nonce, note);
    frame('d', id, nonce, JSON.stringify({ exit: r.exit, signal: r.signal, timedOut, truncated,
      swept: s.killed, sweepOk: s.ok }));
    busy = false;
  }
  function maybeDone() {
    if (exited === null || open.size > 0) return;
    clearTimeout(pipeWait);
    finish(exited);
  }
  const pump = (stream, kind) => {
    readers.push(stream);
    stream.on('data', (b) => {
      if (finished) return;
      const room = max - counts[kind];
      if (room <= 0) { truncated = true; return; }
      const part = b.length > room ? b.subarray(0, room) : b;
      if (b.length > room) truncated = true;
      counts[kind] += part.length;
      frame(kind, id, nonce, part);
    });
    stream.on('close', () => { open.delete(kind); maybeDone(); });
    stream.on('error', () => { /* closed by a kill */ });
  };
  // the command holds the write ends: the reads end when it and all it started have closed them; output written
  // before the pumps run waits in the pipes
  pump(new net.Socket({ fd: pipes.out.fd, readable: true, writable: false }), 'o');
  pump(new net.Socket({ fd: pipes.err.fd, readable: true, writable: false }), 'e');
  const group = (sig) => {
    try { process.kill(-pid, sig); } catch (e) { /* gone */ }
  };
  let timer = null;
  launch(req.argv, { ...req.env, ...fromSrt }, req.cwd, { i: input, o: 'p', e: 'p' }, (p) => {
    pid = p;
    unlinkIo([input]);
    timer = setTimeout(() => {
      timedOut = true;
      sent = 15;
      group('SIGTERM');
      setTimeout(() => {
        if (exited === null) { sent = 9; group('SIGKILL'); }
      }, 1000).unref();
    }, req.timeoutMs);
  }, (why) => {
    unlinkIo([input]);
    exited = { exit: 127, signal: 0, note: 'mono-agent: cannot start command: ' + why + '\n' };
    open.clear();
    maybeDone();
  }, (code, signo) => {
    clearTimeout(timer);
    const exit = signo ? 128 + signo : code;
    exited = { exit, signal: timedOut ? sent : (exit > 128 && exit < 128 + 65 ? exit - 128 : 0) };
    // like a per-command sandbox: a background process may hold the pipes open for up to 2 s, then it is killed
    pipeWait = setTimeout(() => { open.clear(); maybeDone(); }, 2000);
    maybeDone();
  });
}

let pending = Buffer.alloc(0);
function parse() {
  if (key === null) {
    const nl = pending.indexOf(10);
    if (nl < 0) {
      if (pending.length > 80) process.exit(3);
      return;
    }
    const line = pending.toString('latin1', 0, nl);
    pending.fill(0, 0, nl);
    pending = pending.subarray(nl + 1);
    if (!/^KEY [0-9a-f]{64}$/.test(line)) process.exit(3);
    const raw = Buffer.from(line.slice(4), 'hex');
    key = crypto.createSecretKey(raw);
    raw.fill(0);
    keyed = true;
    announce();
  }
  for (;;) {
    const nl = pending.indexOf(10);
    if (nl < 0) {
      if (pending.length > 128) process.exit(4);
      return;
    }
    const m = /^([0-9]{1,9}) ([0-9a-f]{64})$/.exec(pending.toString('latin1', 0, nl));
    if (!m) process.exit(4);
    const len = Number(m[1]);
    if (pending.length - (nl + 1) < len) return;
    const body = Buffer.from(pending.subarray(nl + 1, nl + 1 + len));
    pending = pending.subarray(nl + 1 + len);
    if (!crypto.timingSafeEqual(mac('req\n', body), Buffer.from(m[2], 'hex'))) process.exit(4);
    let req;
    try { req = JSON.parse(body.toString('utf8')); } catch (e) { process.exit(4); }
    if (req === null || typeof req !== 'object' || busy || !mountsProven) process.exit(4);
    if (req.op === 'fork') {
      // a command follows: its process (and its pipes) are made now, while the host does its own work; the next
      // command waits for the helper's answer: a helper that ended instead (own_state) ends this server before that
      // command's start frame, so the host runs it on a fresh sandbox instead of reporting it killed
      forkAhead(null);
      continue;
    }
    if (req.op !== 'run' || !Number.isSafeInteger(req.id) || typeof req.nonce !== 'string' || !Array.isArray(req.argv)) {
      process.exit(4);
    }
    busy = true;
    forkAhead(() => run(req));
  }
}
process.stdin.on('data', (chunk) => { pending = Buffer.concat([pending, chunk]); parse(); });
process.stdin.on('end', () => { sweep(); process.exit(0); });
process.stdin.on('error', () => process.exit(5));
})();
