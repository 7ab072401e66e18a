# unshare(CLONE_NEWUSER | CLONE_NEWNS) through libc, map this uid/gid to root there, then exec the arguments
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000 | 0x00020000) != 0:
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"0 {uid} 1\n"),
                   ("/proc/self/gid_map", f"0 {gid} 1\n")):
    with open(path, "w") as f:
        f.write(text)
os.execvp(sys.argv[1], sys.argv[1:])
