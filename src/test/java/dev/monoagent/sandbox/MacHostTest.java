package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.common.Violation.Kind;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The macOS host facts that need no Mac to check: platform names, cache/config paths, netstat rows, Seatbelt lines. */
class MacHostTest {
    private static final Path HOME = Path.of("/Users/reviewer");

    @Test
    void osNamesMapToPlatforms() {
        assertEquals(Platform.MACOS, Platform.of("Mac OS X"));
        assertEquals(Platform.MACOS, Platform.of("Darwin"));
        assertEquals(Platform.LINUX, Platform.of("Linux"));
        assertEquals(Platform.OTHER, Platform.of("Windows 11"));
    }

    @Test
    void cacheAndConfigLiveInLibraryOnMacosAndInXdgDirsOnLinux() {
        Map<String, String> none = Map.of();
        assertEquals(HOME.resolve("Library/Caches/mono-agent"), HostEnv.defaultCacheRoot(none, HOME, Platform.MACOS));
        assertEquals(HOME.resolve("Library/Application Support/mono-agent"),
                HostEnv.defaultConfigRoot(none, HOME, Platform.MACOS));
        // XDG variables are a Linux convention: a Mac ignores them
        Map<String, String> xdg = Map.of("XDG_CACHE_HOME", "/xdg/cache", "XDG_CONFIG_HOME", "/xdg/config");
        assertEquals(HOME.resolve("Library/Caches/mono-agent"), HostEnv.defaultCacheRoot(xdg, HOME, Platform.MACOS));
        assertEquals(Path.of("/xdg/cache/mono-agent"), HostEnv.defaultCacheRoot(xdg, HOME, Platform.LINUX));
        assertEquals(Path.of("/xdg/config/mono-agent"), HostEnv.defaultConfigRoot(xdg, HOME, Platform.LINUX));
        assertEquals(HOME.resolve(".cache/mono-agent"), HostEnv.defaultCacheRoot(none, HOME, Platform.LINUX));
        // the explicit overrides win on every platform
        Map<String, String> over = Map.of("MONO_AGENT_CACHE_DIR", "/c", "MONO_AGENT_CONFIG_DIR", "/k");
        assertEquals(Path.of("/c"), HostEnv.defaultCacheRoot(over, HOME, Platform.MACOS));
        assertEquals(Path.of("/k"), HostEnv.defaultConfigRoot(over, HOME, Platform.MACOS));
        // the managed srt install sits below the cache root, so on a Mac it is ~/Library/Caches/mono-agent/tools/srt
        HostEnv mac = new HostEnv(HostEnv.defaultCacheRoot(none, HOME, Platform.MACOS), HOME, "/usr/bin",
                Path.of("/tmp"), none, List.of());
        assertTrue(new SrtRuntime(mac).managedDir().startsWith(HOME.resolve("Library/Caches/mono-agent/tools/srt/"
                + SrtRuntime.VERSION)), new SrtRuntime(mac).managedDir().toString());
    }

    /** Shape of macOS {@code netstat -an -p tcp} (BSD notation: the port follows the last dot). */
    private static final String NETSTAT = String.join("\n",
            "Active Internet connections (including servers)",
            "Proto Recv-Q Send-Q  Local Address          Foreign Address        (state)",
            "tcp4       0      0  127.0.0.1.8080         *.*                    LISTEN",
            "tcp46      0      0  *.3000                 *.*                    LISTEN",
            "tcp6       0      0  ::1.5432               *.*                    LISTEN",
            "tcp4       0      0  192.168.1.20.7000      *.*                    LISTEN",
            "tcp4       0      0  127.0.0.1.52144        127.0.0.1.8080         ESTABLISHED",
            "tcp4       0      0  192.168.1.20.52000     140.82.112.25.443      ESTABLISHED",
            "tcp4       0      0  *.631                  *.*                    LISTEN",
            "udp4       0      0  *.5353                 *.*                    ");

    @Test
    void netstatListenersOnLoopbackOrWildcardAreTheCandidatePorts() {
        assertEquals(List.of(631, 3000, 5432, 8080), MacHost.parseNetstat(NETSTAT, List.of()));
        // excluded ports (the proxy's, the product's own) are never granted
        assertEquals(List.of(3000, 5432), MacHost.parseNetstat(NETSTAT, List.of(631, 8080)));
        assertEquals(List.of(), MacHost.parseNetstat("", List.of()));
    }

    @Test
    void macCommandTextIsTheMarkerAndExecWithoutForwarders() {
        String t = MacHost.command(List.of("/bin/bash", "-c", "echo 'hi'"), "\u0001m\u0001");
        assertEquals("printf '%s' '\u0001m\u0001' >&2\nexec '/bin/bash' '-c' 'echo '\\''hi'\\'''", t);
        assertFalse(t.contains("/proc"), t);
        assertFalse(t.contains("socat"), t);
        assertEquals("exec 'true'", MacHost.command(List.of("true"), null));
    }

    @Test
    void macPrerequisitesAreNodeRgAndBashWithBrewHints(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path bin = java.nio.file.Files.createDirectories(tmp.resolve("bin"));
        java.nio.file.Files.createSymbolicLink(bin.resolve("bash"), Path.of("/bin/bash").toRealPath());
        HostEnv env = new HostEnv(tmp.resolve("cache"), tmp, bin.toString(), tmp, Map.of(), List.of());
        HostTools.Found noNode = HostTools.find(env, List.of(), Platform.MACOS);
        assertEquals("brew install node", ((HostTools.Missing) noNode).installHint());
        Path node = bin.resolve("node");
        java.nio.file.Files.writeString(node, "#!/bin/sh\necho v22.11.0\n");
        java.nio.file.Files.setPosixFilePermissions(node, java.nio.file.attribute.PosixFilePermissions.fromString(
                "rwxr-xr-x"));
        HostTools.Found noRg = HostTools.find(env, List.of(), Platform.MACOS);
        assertEquals("brew install ripgrep", ((HostTools.Missing) noRg).installHint());
        java.nio.file.Files.copy(node, bin.resolve("rg"));
        // no bwrap, no socat: macOS needs neither (Linux would name apt packages here)
        HostTools t = ((HostTools.Ok) HostTools.find(env, List.of(), Platform.MACOS)).tools();
        assertNull(t.bwrap());
        assertNull(t.socat());
        assertEquals("v22.11.0", t.nodeVersion());
        assertTrue(((HostTools.Missing) HostTools.find(env, List.of(), Platform.LINUX)).installHint()
                .startsWith("apt-get install -y bubblewrap socat"));
    }

    @Test
    void validateDescribesTheMacReadScopeOnMacos() {
        String mac = String.join("\n", ReadScope.describe(List.of(Path.of("/Users/reviewer/ws")), List.of(), HOME,
                Platform.MACOS));
        assertTrue(mac.contains("/Users/reviewer/ws (roots)"), mac);
        assertTrue(mac.contains("/private/var/folders"), mac);
        assertTrue(mac.contains("/opt only /opt/homebrew"), mac);
        assertFalse(mac.contains("/lib64"), mac);
        String linux = String.join("\n", ReadScope.describe(List.of(Path.of("/home/r/ws")), List.of(),
                Path.of("/home/r"), Platform.LINUX));
        assertTrue(linux.contains("/lib64"), linux);
        assertFalse(linux.contains("/private/var"), linux);
    }

    @Test
    void macToolsWithoutBwrapOrSocatReachTheBridgeAndTheConfig() {
        HostTools mac = new HostTools(Path.of("/opt/homebrew/bin/node"), null, null, Path.of("/opt/homebrew/bin/rg"),
                Path.of("/bin/bash"), "v22.11.0", "host");
        HostEnv env = new HostEnv(Path.of("/c"), HOME, "/usr/bin:/bin", Path.of("/tmp"), Map.of(), List.of());
        assertEquals("/opt/homebrew/bin:/bin:/usr/bin", SrtBridge.bridgePath(mac, env));
        SrtConfig cfg = new SrtConfig(new SrtConfig.Network(List.of(), List.of(), true),
                new SrtConfig.Filesystem(List.of(), List.of(), List.of(), List.of()),
                new SrtConfig.Ripgrep(mac.rg(), List.of()), 3, null, null, null);
        Map<String, Object> m = cfg.toMap();
        assertFalse(m.containsKey("bwrapPath"));
        assertFalse(m.containsKey("socatPath"));
        assertFalse(m.containsKey("seccomp"));
        assertEquals(List.of("network", "filesystem", "ripgrep", "mandatoryDenySearchDepth"), List.copyOf(m.keySet()));
    }

    @Test
    void seatbeltLinesParseIntoKindTargetAndReason() {
        SeatbeltViolation w = SeatbeltViolation.parse("bash(48211) deny(1) file-write-create /Users/r/ws/.env.local");
        assertEquals(new SeatbeltViolation("bash", 48211, "file-write-create", "/Users/r/ws/.env.local"), w);
        assertEquals(Kind.WRITE, w.kind());
        assertEquals("write refused by the sandbox (Seatbelt file-write-create, bash[48211])", w.reason());
        // process names may contain spaces and parentheses; targets may contain spaces
        SeatbeltViolation spaced = SeatbeltViolation.parse(
                "Google Chrome Helper (Renderer)(901) deny(2) file-read-data /Users/r/My Docs/a.txt");
        assertEquals("Google Chrome Helper (Renderer)", spaced.process());
        assertEquals("/Users/r/My Docs/a.txt", spaced.target());
        assertEquals(Kind.READ, spaced.kind());
        assertEquals(Kind.NETWORK, SeatbeltViolation.parse("curl(77) deny(1) network-outbound 1.1.1.1:443").kind());
        SeatbeltViolation mach = SeatbeltViolation.parse("node(5) deny(1) mach-lookup com.apple.coreservicesd");
        assertEquals(Kind.OTHER, mach.kind());
        assertNull(SeatbeltViolation.parse("deny network-outbound example.com:80 (not in allowlist)"));
        assertNull(SeatbeltViolation.parse("deny openat /etc/x"));
        assertNull(SeatbeltViolation.parse("bash(1) allow file-read-data /x"));
        assertTrue(SeatbeltViolation.isRepeat("3 duplicate reports for bash deny(1) file-write-data /x"));
        assertTrue(SeatbeltViolation.isRepeat("1 duplicate report for bash deny(1) file-write-data /x"));
        assertFalse(SeatbeltViolation.isRepeat("bash(48211) deny(1) file-write-data /x"));
    }

    @Test
    void engineLinesOfAllThreeProducersAreClassified() {
        NativeEngine.Classified proxy = NativeEngine.classify("deny network-outbound example.com:80 (not allowed)", Platform.MACOS);
        assertEquals(new NativeEngine.Classified(Kind.NETWORK, "example.com:80", "not allowed"), proxy);
        NativeEngine.Classified seatbelt = NativeEngine.classify("bash(9) deny(1) file-write-data /Users/r/ws/.env",
                Platform.MACOS);
        assertEquals(Kind.WRITE, seatbelt.kind());
        assertEquals("/Users/r/ws/.env", seatbelt.target());
        NativeEngine.Classified linux = NativeEngine.classify("deny openat /home/r/ws/.env", Platform.LINUX);
        assertEquals(new NativeEngine.Classified(Kind.WRITE, "/home/r/ws/.env", "write refused by the sandbox (openat)"),
                linux);
        assertNull(NativeEngine.classify("2 duplicate reports for bash deny(1) file-write-data /Users/r/ws/.env",
                Platform.MACOS));
        assertEquals(Kind.OTHER, NativeEngine.classify("something else", Platform.MACOS).kind());
        // on Linux a seccomp line is read as one whatever the written name looks like
        String planted = "deny openat /home/r/ws/a(1) deny(1) file-read-data b";
        assertEquals(new NativeEngine.Classified(Kind.WRITE, "/home/r/ws/a(1) deny(1) file-read-data b",
                "write refused by the sandbox (openat)"), NativeEngine.classify(planted, Platform.LINUX));
        assertEquals(Kind.OTHER, NativeEngine.classify("2 duplicate reports for x deny(1) y", Platform.LINUX).kind());
    }
}
