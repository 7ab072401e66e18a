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

    /** Listening ports from {@code /proc/net/tcp} and the {@code tcp6} file next to it. */
    static List<Integer> listening(Path procNetTcp, Collection<Integer> excluded) {
        TreeSet<Integer> out = new TreeSet<>();
        read(procNetTcp, excluded, out);
        read(procNetTcp.resolveSibling(procNetTcp.getFileName() + "6"), excluded, out);
        return List.copyOf(out);
    }

    private static void read(Path file, Collection<Integer> excluded, TreeSet<Integer> out) {
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
                if (ADDRS.contains(local[0])) {
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
}
