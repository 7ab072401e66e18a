package dev.monoagent.sandbox;

import dev.monoagent.host.Platform;
import dev.monoagent.host.HostEnv;
import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The host facts the engine reads differently on macOS: which loopback ports are listening (no {@code /proc} there),
 * and the text of the command srt wraps.
 *
 * <p>Why the command text is simpler: on Linux the sandbox has its own network namespace, so a granted host port is
 * reached through an in-sandbox socat forwarder bound to the same port number. A Seatbelt sandbox shares the host's
 * network stack: the port is taken by the host listener itself, and srt 0.0.78 either lets the sandbox reach every
 * loopback port ({@code allowLocalBinding}) or none but its proxy. mono-agent keeps {@code allowLocalBinding} off, so
 * on macOS a granted host port is reached through srt's proxy (an HTTP {@code CONNECT 127.0.0.1:<port>}, which the
 * allowlist checks), not by a plain {@code connect}; see {@code docs/sandbox-probes.md}, "macOS".
 */
final class MacHost {
    /** The system netstat (SIP-protected on macOS, so not agent-replaceable). */
    static final Path NETSTAT = Path.of("/usr/sbin/netstat");

    /** Homebrew's util-linux is keg-only (not linked onto PATH): where its {@code setsid} lives instead. */
    static final List<Path> KEG_SETSID = List.of(Path.of("/opt/homebrew/opt/util-linux/bin/setsid"),
            Path.of("/usr/local/opt/util-linux/bin/setsid"));

    static final java.util.Map<Platform, String> SETSID_HINT = java.util.Map.of(
            Platform.LINUX, "apt-get install -y util-linux",
            Platform.MACOS, "brew install util-linux",
            Platform.OTHER, "util-linux (setsid)");

    private MacHost() {}

    /**
     * The {@code setsid} that puts each command in its own process group: the first trusted one on PATH, and on macOS
     * (which ships none) Homebrew's keg-only util-linux one when it is safely owned.
     */
    static Path setsid(HostEnv env, Collection<Path> untrusted) {
        Path onPath = env.which("setsid", untrusted);
        if (onPath != null || Platform.current() != Platform.MACOS) {
            return onPath;
        }
        for (Path p : KEG_SETSID) {
            try {
                Path real = p.toRealPath();
                if (HostTools.unsafe(real) == null) {
                    return real;
                }
            } catch (IOException e) {
                // not installed there
            }
        }
        return null;
    }

    /** Listening loopback/wildcard TCP ports on this host, minus {@code excluded}: /proc on Linux, netstat on macOS. */
    static List<Integer> listening(Collection<Integer> excluded) {
        if (Platform.current() != Platform.MACOS) {
            return HostPorts.listening(Path.of("/proc/net/tcp"), excluded);
        }
        return parseNetstat(netstat(), excluded);
    }

    private static String netstat() {
        try {
            Process p = ChildProcesses.builder(NETSTAT.toString(), "-an", "-p", "tcp").redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * The LISTEN rows of macOS {@code netstat -an -p tcp} whose local address is loopback or wildcard
     * ({@code 127.0.0.1.8080}, {@code ::1.5432}, {@code *.3000}): the same set Linux reads from /proc/net/tcp{,6}.
     * The port is what follows the last dot (netstat's BSD notation).
     */
    static List<Integer> parseNetstat(String out, Collection<Integer> excluded) {
        TreeSet<Integer> ports = new TreeSet<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || !f[0].startsWith("tcp") || !f[f.length - 1].equals("LISTEN")) {
                continue;
            }
            String local = f[3];
            int dot = local.lastIndexOf('.');
            if (dot <= 0) {
                continue;
            }
            String host = local.substring(0, dot);
            if (!(host.equals("127.0.0.1") || host.equals("::1") || host.equals("*") || host.equals("::")
                    || host.equals("0.0.0.0"))) {
                continue;
            }
            try {
                int port = Integer.parseInt(local.substring(dot + 1));
                if (port > 0 && port < 65536 && !excluded.contains(port)) {
                    ports.add(port);
                }
            } catch (NumberFormatException ignored) {
                // "*.*" and the like: not a listening port
            }
        }
        return List.copyOf(ports);
    }

    /**
     * The command text on macOS: the start marker (see {@link CommandScript#build}) and {@code exec} of the argv. No
     * forwarders and no wait for them: srt's proxy already listens on the host when the command starts.
     */
    static String command(List<String> argv, String startMarker) {
        String start = startMarker == null ? "" : "printf '%s' " + CommandScript.quote(startMarker) + " >&2\n";
        return start + CommandScript.exec(argv);
    }
}
