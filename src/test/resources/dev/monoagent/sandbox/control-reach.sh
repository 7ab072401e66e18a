# From inside the sandbox: can the instance's control socket ($SOCK on the host) be seen or reached, directly or by
# injecting into a process that has no seccomp filter (srt's socat forwarders, bwrap, apply-seccomp)? Prints what it
# finds; the test judges by the host's listener and by these lines.
[ -e "$SOCK" ] && echo "VISIBLE $SOCK"
find / -type s 2>/dev/null | grep -v '^/proc/' | while read -r s; do echo "SOCKET $s"; done
printf '{"op":"stop"}\n' | socat -t1 - "UNIX-CONNECT:$SOCK" 2>/dev/null && echo "CONNECTED socat"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\"op\":\"stop\"}\n"); print("CONNECTED python")' "$SOCK" 2>/dev/null
# every process without a seccomp filter: attach by its pid in this pid namespace (when it has one), open its memory
depth=$(grep NSpid: /proc/self/status | wc -w)
for d in /proc/[0-9]*; do
  grep -q '^Seccomp:[[:space:]]*0' "$d/status" 2>/dev/null || continue
  ns=$(grep NSpid: "$d/status" | awk -v n="$depth" 'NF >= n {print $n}')
  perl -e '
    my ($outer, $inner) = @ARGV;
    my $attach = "no pid here";
    if ($inner ne "") { $attach = syscall(101, 16, $inner, 0, 0) == 0 ? "OK" : "$!"; }    # PTRACE_ATTACH
    my $mem = open(my $f, "+<", "/proc/$outer/mem") ? "OK" : "$!";
    my $cmd = ""; if (open(my $c, "<", "/proc/$outer/cmdline")) { local $/; $cmd = <$c>; $cmd =~ tr/\0/ /; }
    my ($exe) = split / /, $cmd; $exe =~ s{.*/}{};
    print "UNFILTERED $outer attach=$attach mem=$mem $exe ", substr($cmd, 0, 60), "\n";
  ' "${d#/proc/}" "$ns"
done
echo "PROBE DONE"
