package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Which host TCP ports a localhost-mode sandbox may reach: every port listening on 127.0.0.1 or 0.0.0.0 at wrap time
 * (read from {@code /proc/net/tcp}, ~0.1 ms), minus the product's own (srt's proxy port and any configured ones).
 * Reading at wrap time means a dev server started after the agent is reachable on its next command; a port that
 * stopped listening is dropped from the grants.
 */
final class HostPorts {
    private HostPorts() {}

    /** IPv4 loopback/any, and their IPv6 forms (v4-mapped 127.0.0.1, {@code ::}) which accept IPv4 connections. */
    private static final java.util.Set<String> ADDRS = java.util.Set.of("0100007F", "00000000",
            "0000000000000000FFFF00000100007F", "00000000000000000000000000000000");
    /** IPv6 loopback {@code ::1} as /proc/net/tcp6 prints it (four little-endian words). */
    static final String V6_LOOPBACK = "00000000000000000000000001000000";
    /** The IPv6 wildcard {@code ::}, which accepts {@code ::1}. */
    private static final String V6_ANY = "00000000000000000000000000000000";

    /** Listening ports (any loopback or wildcard address, {@code ::1} included) from /proc/net/tcp and tcp6. */
    static List<Integer> listening(Path procNetTcp, Collection<Integer> excluded) {
        return List.copyOf(read(procNetTcp, excluded, true));
    }

    private static TreeSet<Integer> read(Path procNetTcp, Collection<Integer> excluded, boolean v6Loopback) {
        TreeSet<Integer> out = new TreeSet<>();
        read(procNetTcp, excluded, out, v6Loopback);
        read(procNetTcp.resolveSibling(procNetTcp.getFileName() + "6"), excluded, out, v6Loopback);
        return out;
    }

    private static void read(Path file, Collection<Integer> excluded, TreeSet<Integer> out, boolean v6Loopback) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 4 || !f[3].equals("0A")) {
                    continue;
                }
                String[] local = f[1].split(":");
                if (local.length != 2) {
                    continue;
                }
                if (ADDRS.contains(local[0]) || (v6Loopback && local[0].equals(V6_LOOPBACK))) {
                    int port = Integer.parseInt(local[1], 16);
                    if (!excluded.contains(port)) {
                        out.add(port);
                    }
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // no /proc (macOS): no host ports granted
        }
    }

    /**
     * Which address families listen on each host loopback port. {@code v4}: 127.0.0.1 or 0.0.0.0, or their IPv6 forms
     * (v4-mapped 127.0.0.1, {@code ::}); {@code v6}: {@code ::1} or {@code ::}. Node's {@code listen(port,
     * "localhost")} binds {@code ::1} only; a dual-stack server binds both.
     */
    record Families(java.util.Set<Integer> v4, java.util.Set<Integer> v6) {
        static final Families NONE = new Families(java.util.Set.of(), java.util.Set.of());

        Families {
            v4 = java.util.Set.copyOf(v4);
            v6 = java.util.Set.copyOf(v6);
        }

        /** The host address the sandbox's 127.0.0.1:{@code port} is forwarded to: IPv4 unless only IPv6 listens. */
        String targetOfV4(int port) {
            return !v4.contains(port) && v6.contains(port) ? "[::1]" : "127.0.0.1";
        }

        /** The host address the sandbox's [::1]:{@code port} is forwarded to: IPv6 unless only IPv4 listens. */
        String targetOfV6(int port) {
            return v6.contains(port) ? "[::1]" : "127.0.0.1";
        }
    }

    /** The families listening on each loopback port now (from /proc/net/tcp and tcp6). */
    static Families families(Path procNetTcp) {
        TreeSet<Integer> v4 = read(procNetTcp, List.of(), false);
        TreeSet<Integer> v6 = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(procNetTcp.resolveSibling(procNetTcp.getFileName() + "6"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 4 || !f[3].equals("0A")) {
                    continue;
                }
                String[] local = f[1].split(":");
                if (local.length == 2 && (local[0].equals(V6_LOOPBACK) || local[0].equals(V6_ANY))) {
                    v6.add(Integer.parseInt(local[1], 16));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // no tcp6: no IPv6 listeners
        }
        return new Families(v4, v6);
    }

    /**
     * The process listening on host loopback {@code port} that a connection to {@code host} (the address the proxy
     * dialled: {@code 127.0.0.1} or {@code ::1}) reached, as "name (pid N)", or null when it cannot be told (another
     * user's process, or it is gone). Only listeners that accept {@code host} count, so when two processes share the
     * port number on 127.0.0.1 and {@code ::1} the one reached is named. Matches the listening socket's inode in
     * /proc/net/tcp[6] against every process's open descriptors; a few ms, run only when a connection is reported.
     */
    static String listener(String host, int port) {
        String h = host == null ? "" : host.replace("[", "").replace("]", "");
        boolean v6 = h.equals("::1");
        boolean v4 = h.equals("127.0.0.1");
        java.util.Set<String> inodes = new java.util.HashSet<>();
        for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(file))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[3].equals("0A") && f[1].endsWith(":" + String.format("%04X", port))) {
                        String addr = f[1].substring(0, f[1].indexOf(':'));
                        boolean accepts = v6 ? addr.equals(V6_LOOPBACK) || addr.equals(V6_ANY)
                                : !v4 || ADDRS.contains(addr);
                        if (accepts) {
                            inodes.add("socket:[" + f[9] + "]");
                        }
                    }
                }
            } catch (IOException ignored) {
                // no such table
            }
        }
        if (inodes.isEmpty()) {
            return null;
        }
        try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try (var fds = Files.newDirectoryStream(proc.resolve("fd"))) {
                    for (Path fd : fds) {
                        try {
                            if (inodes.contains(Files.readSymbolicLink(fd).toString())) {
                                return Files.readString(proc.resolve("comm")).strip() + " (pid "
                                        + proc.getFileName() + ")";
                            }
                        } catch (IOException gone) {
                            // closed meanwhile
                        }
                    }
                } catch (IOException | SecurityException notOurs) {
                    // another user's process, or it exited
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
