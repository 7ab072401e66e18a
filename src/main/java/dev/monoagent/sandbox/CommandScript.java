package dev.monoagent.sandbox;

import java.util.List;

/**
 * The text handed to srt as "the command": optional in-sandbox forwarders for granted host ports, then
 * {@code exec} of the caller's argv (so exit codes and signals pass through unchanged).
 *
 * <p>Forwarders: srt gives the sandbox only {@code lo} and sets NO_PROXY for loopback, so a plain client's
 * {@code connect(127.0.0.1:P)} would fail. For each granted port a socat listener on the sandbox's 127.0.0.1:P tunnels
 * through srt's HTTP proxy (CONNECT 127.0.0.1:P, authenticated with the credentials srt put in {@code HTTP_PROXY}),
 * so the connection is still checked against the allowlist and attributed to this command. When the sandbox's
 * {@code lo} has {@code ::1} (IPv6 on), a second forwarder per granted port listens on its [::1]:P, so a client dialling
 * {@code [::1]} — or {@code localhost}, which resolves to {@code ::1} first — is served too. Each forwarder dials the
 * host listener of its own family when the port has one, the other family's otherwise ({@link HostPorts.Families}):
 * inside, 127.0.0.1, {@code ::1} and {@code localhost} all reach a port whichever loopback address it listens on, and
 * each reaches its own when two processes share the port number. The script waits (bounded, 2 s) until the proxy's
 * and the forwarders' listeners are up, so the first connect does not race them.
 */
final class CommandScript {
    private CommandScript() {}

    /** The remote address column of a listening socket in /proc/net/tcp6. */
    private static final String V6_ANY_PORT0 = "00000000000000000000000000000000:0000";

    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    static String exec(List<String> argv) {
        StringBuilder sb = new StringBuilder("exec");
        for (String a : argv) {
            sb.append(' ').append(quote(a));
        }
        return sb.toString();
    }

    /** @param socat absolute socat path; {@code ports} the granted host ports (empty: no forwarders) */
    static String build(List<String> argv, List<Integer> ports, String socat) {
        return build(argv, ports, socat, null);
    }

    /**
     * As {@link #build(List, List, String)}, first writing {@code startMarker} to stderr (when not null): proof,
     * unforgeable by the command because it is written before the command exists, that the sandbox was set up and
     * the script started, so a failure without it is bwrap's own and the command may be retried.
     */
    static String build(List<String> argv, List<Integer> ports, String socat, String startMarker) {
        return build(argv, ports, HostPorts.Families.NONE, socat, startMarker);
    }

    /** As above; {@code families} tells which host loopback address each forwarder dials. */
    static String build(List<String> argv, List<Integer> ports, HostPorts.Families families, String socat,
                        String startMarker) {
        String start = startMarker == null ? "" : "printf '%s' " + quote(startMarker) + " >&2\n";
        StringBuilder sb = new StringBuilder(start);
        StringBuilder hex = new StringBuilder(String.format("%04X", 3128));
        StringBuilder hex6 = new StringBuilder();
        if (!ports.isEmpty()) {
            // printf -v: no subshell (a fork costs a few ms on a slow host, before every such command)
            sb.append("__mp=${HTTP_PROXY#*://}; __ma=${__mp%@*}; printf -v __ma '%b' \"${__ma//%/\\\\x}\"\n");
            for (int port : ports) {
                sb.append(quote(socat)).append(" TCP-LISTEN:").append(port)
                        .append(",bind=127.0.0.1,fork,reuseaddr PROXY:localhost:")
                        .append(families.targetOfV4(port)).append(':').append(port)
                        .append(",proxyport=3128,proxyauth=\"$__ma\" >/dev/null 2>&1 &\n");
                hex.append(' ').append(String.format("%04X", port));
            }
            // ::1 exists inside only when the kernel has IPv6 for the sandbox's namespace; without it there is
            // nothing to listen on (and nothing to wait for)
            sb.append("__m6=0; if [ -r /proc/net/if_inet6 ]; then while read -r __ml __mr; do ")
                    .append("[ \"$__ml\" = 00000000000000000000000000000001 ] && __m6=1; done </proc/net/if_inet6; fi\n");
            sb.append("if [ $__m6 = 1 ]; then\n");
            for (int port : ports) {
                sb.append(quote(socat)).append(" TCP6-LISTEN:").append(port)
                        .append(",bind=[::1],ipv6only=1,fork,reuseaddr PROXY:localhost:")
                        .append(families.targetOfV6(port)).append(':').append(port)
                        .append(",proxyport=3128,proxyauth=\"$__ma\" >/dev/null 2>&1 &\n");
                hex6.append(' ').append(String.format("%04X", port));
            }
            sb.append("fi\n");
        }
        // srt starts its in-sandbox proxy forwarder (127.0.0.1:3128) in the background just before this script, and
        // the forwarders above start here: a command that reaches for the network at once could find nothing
        // listening yet (curl then reports 000 instead of the proxy's answer). Wait for all of them, bounded, when
        // there is a proxy at all.
        sb.append("if [ -n \"${HTTP_PROXY:-}\" ]; then for ((__mi = 0; __mi < 400; __mi++)); do ")
                .append("__mt=$(</proc/net/tcp); __mk=1; ")
                .append("for __mh in ").append(hex)
                .append("; do [[ $__mt == *\":$__mh 00000000:0000 0A\"* ]] || { __mk=0; break; }; done; ");
        if (!hex6.isEmpty()) {
            sb.append("if [ $__mk = 1 ] && [ $__m6 = 1 ]; then __mt=$(</proc/net/tcp6); for __mh in").append(hex6)
                    .append("; do [[ $__mt == *\"").append(HostPorts.V6_LOOPBACK).append(":$__mh ")
                    .append(V6_ANY_PORT0).append(" 0A\"* ]] || { __mk=0; break; }; done; fi; ");
        }
        sb.append("[ $__mk = 1 ] && break; sleep 0.005; done; fi\n");
        sb.append("unset __mp __ma __mi __mt __mk __mh __m6 __ml __mr\n");
        sb.append(exec(argv));
        return sb.toString();
    }
}
