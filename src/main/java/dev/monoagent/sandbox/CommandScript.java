package dev.monoagent.sandbox;

import java.util.List;

/**
 * The text handed to srt as "the command": optional in-sandbox forwarders for granted host ports, then
 * {@code exec} of the caller's argv (so exit codes and signals pass through unchanged).
 *
 * <p>Forwarders: srt gives the sandbox only {@code lo} and sets NO_PROXY for loopback, so a plain client's
 * {@code connect(127.0.0.1:P)} would fail. For each granted port a socat listener on the sandbox's 127.0.0.1:P tunnels
 * through srt's HTTP proxy (CONNECT 127.0.0.1:P, authenticated with the credentials srt put in {@code HTTP_PROXY}),
 * so the connection is still checked against the allowlist and attributed to this command. The script waits (bounded,
 * 2 s) until the proxy's and the forwarders' listeners are up, so the first connect does not race them.
 */
final class CommandScript {
    private CommandScript() {}

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
        return build(argv, ports, java.util.Set.of(), socat, startMarker);
    }

    /** As above; the forwarders for {@code v6Only} ports (host listener on {@code ::1} only) dial {@code [::1]}. */
    static String build(List<String> argv, List<Integer> ports, java.util.Set<Integer> v6Only, String socat,
                        String startMarker) {
        String start = startMarker == null ? "" : "printf '%s' " + quote(startMarker) + " >&2\n";
        StringBuilder sb = new StringBuilder(start);
        StringBuilder hex = new StringBuilder(String.format("%04X", 3128));
        if (!ports.isEmpty()) {
            // printf -v: no subshell (a fork costs a few ms on a slow host, before every such command)
            sb.append("__mp=${HTTP_PROXY#*://}; __ma=${__mp%@*}; printf -v __ma '%b' \"${__ma//%/\\\\x}\"\n");
            for (int port : ports) {
                sb.append(quote(socat)).append(" TCP-LISTEN:").append(port)
                        .append(",bind=127.0.0.1,fork,reuseaddr PROXY:localhost:")
                        .append(v6Only.contains(port) ? "[::1]" : "127.0.0.1").append(':').append(port)
                        .append(",proxyport=3128,proxyauth=\"$__ma\" >/dev/null 2>&1 &\n");
                hex.append(' ').append(String.format("%04X", port));
            }
        }
        // srt starts its in-sandbox proxy forwarder (127.0.0.1:3128) in the background just before this script, and
        // the forwarders above start here: a command that reaches for the network at once could find nothing
        // listening yet (curl then reports 000 instead of the proxy's answer). Wait for all of them, bounded, when
        // there is a proxy at all.
        sb.append("if [ -n \"${HTTP_PROXY:-}\" ]; then for ((__mi = 0; __mi < 400; __mi++)); do ")
                .append("__mt=$(</proc/net/tcp); __mk=1; ")
                .append("for __mh in ").append(hex)
                .append("; do [[ $__mt == *\":$__mh 00000000:0000 0A\"* ]] || { __mk=0; break; }; done; ")
                .append("[ $__mk = 1 ] && break; sleep 0.005; done; fi\n");
        sb.append("unset __mp __ma __mi __mt __mk __mh\n");
        sb.append(exec(argv));
        return sb.toString();
    }
}
