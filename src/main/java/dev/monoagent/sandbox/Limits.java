package dev.monoagent.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-command process and memory limits, and the guarantee that nothing a command started outlives it. Each sandboxed
 * command (bwrap and everything below it, srt's in-sandbox socat included) runs in a control group of its own, entered
 * by a host-side shell before bwrap starts: cgroup v2 where the host delegates the {@code pids} and {@code memory}
 * controllers to us, else cgroup v1's {@code pids} and {@code memory} hierarchies, else rlimits. When the command ends
 * every process left in its group is killed and the group removed. The per-file size cap ({@code RLIMIT_FSIZE}) is set
 * in every mode. What is in force is {@link #describe()}, shown by {@code sandbox status}.
 *
 * <p>Rlimits are the weak fallback and say so: {@code RLIMIT_NPROC} is not enforced for root (the kernel exempts uid 0
 * however it is namespaced) and counts all of the user's processes, and nothing kills a detached leftover.
 */
final class Limits {
    /** Processes (and threads) one command may have at once. */
    static final int DEFAULT_PIDS = 1024;
    /** Memory (RSS + page cache + its private tmpfs, /dev/shm included) one command may use. */
    static final long DEFAULT_MEMORY = 4L << 30;
    /** Largest file one command may write (RLIMIT_FSIZE; a bigger write gets EFBIG/SIGXFSZ). */
    static final long DEFAULT_MAX_FILE = 2L << 30;
    /** What the session temp dir ({@code TMPDIR}) may hold after a command; over it, it is emptied and recorded. */
    static final long DEFAULT_TMP = 1L << 30;

    enum Kind {
        CGROUP_V2("cgroup v2"), CGROUP_V1("cgroup v1"), RLIMITS("rlimits");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    private static final AtomicLong SEQ = new AtomicLong();
    /** Engines in one JVM (tests open many) each get their own base group, so one closing never touches another. */
    private static final AtomicLong ENGINES = new AtomicLong();

    private final Kind kind;
    /** v2: one base group; v1: the pids base and the memory base. */
    private final List<Path> bases;
    private final int pids;
    private final long memory;
    private final long maxFile;
    private final long tmp;
    private final boolean root;
    /** cgroup v1: the base in the {@code freezer} hierarchy (null when the host mounts none). */
    private final Path freezerBase;

    private Limits(Kind kind, List<Path> bases, int pids, long memory, long maxFile, long tmp) {
        this.kind = kind;
        this.freezerBase = kind == Kind.CGROUP_V1 && bases.size() > 2 ? bases.get(2) : null;
        this.bases = bases;
        this.pids = pids;
        this.memory = memory;
        this.maxFile = maxFile;
        this.tmp = tmp;
        this.root = "0".equals(HostTools.currentUid());
    }

    Kind kind() {
        return kind;
    }

    long tmpCap() {
        return tmp;
    }

    /** Detects the strongest mechanism this host offers, with the default limits. */
    static Limits detect() {
        return detect(DEFAULT_PIDS, DEFAULT_MEMORY, DEFAULT_MAX_FILE, DEFAULT_TMP);
    }

    static Limits detect(int pids, long memory, long maxFile, long tmp) {
        String name = "mono-agent-" + ProcessHandle.current().pid() + "-" + ENGINES.incrementAndGet();
        Path v2 = v2Base(name);
        if (v2 != null) {
            return new Limits(Kind.CGROUP_V2, List.of(v2), pids, memory, maxFile, tmp);
        }
        List<Path> v1 = v1Bases(name);
        if (v1 != null) {
            return new Limits(Kind.CGROUP_V1, v1, pids, memory, maxFile, tmp);
        }
        return new Limits(Kind.RLIMITS, List.of(), pids, memory, maxFile, tmp);
    }

    /** The rlimits fallback whatever the host offers (tests of the no-cgroup path: SIGSTOP freezing). */
    static Limits rlimitsOnly() {
        return new Limits(Kind.RLIMITS, List.of(), DEFAULT_PIDS, DEFAULT_MEMORY, DEFAULT_MAX_FILE, DEFAULT_TMP);
    }

    private static volatile String hostSummary;

    /**
     * What commands on this host get (the mechanism {@link #detect()} picks, with the default limits), for status
     * surfaces that have no engine of their own; probed once per JVM.
     */
    static String hostSummary() {
        String s = hostSummary;
        if (s == null) {
            Limits l = detect();
            s = l.describe();
            l.close();
            hostSummary = s;
        }
        return s;
    }

    /** The status line: which mechanism, which limits, and what is not enforced. */
    String describe() {
        String sizes = pids + " processes, " + gib(memory) + " memory, " + gib(maxFile) + " per file, " + gib(tmp)
                + " temp dir";
        return switch (kind) {
            case CGROUP_V2, CGROUP_V1 -> kind.label + " per command: " + sizes
                    + "; leftover processes are killed when the command ends";
            case RLIMITS -> "rlimits per command: " + (root ? "process limit NOT enforced (running as root), "
                    : pids + " processes (counted per user), ") + gib(memory) + " data, " + gib(maxFile)
                    + " per file, " + gib(tmp) + " temp dir; no cgroup, so leftovers are only stopped by the "
                    + "sandbox's PID namespace";
        };
    }

    private static String gib(long bytes) {
        return bytes % (1L << 30) == 0 ? (bytes >> 30) + " GiB" : (bytes >> 20) + " MiB";
    }

    /** One command's group (null for rlimits): {@link #wrap} puts the command in it, {@link #release} ends it. */
    /** How long a freeze waits for a just-spawned command to enter its group. */
    private static final long ENTER_WAIT_NANOS = 2_000_000_000L;

    final class Slot {
        private final List<Path> groups;
        /** The group whose freezer stops the command (v2: its group; v1: the freezer group), null: SIGSTOP. */
        private final Path freezeGroup;
        private volatile ProcessHandle frozenRoot;

        private Slot(List<Path> groups) {
            this.groups = groups;
            this.freezeGroup = kind == Kind.CGROUP_V2 ? groups.get(0)
                    : kind == Kind.CGROUP_V1 && groups.size() > 2 ? groups.get(2) : null;
        }

        /**
         * Stops every process of the command rooted at {@code root} ({@link Freezer}), verified; until
         * {@link #thaw()} none of them runs.
         */
        Freezer.Result freeze(ProcessHandle root) {
            if (freezeGroup != null) {
                awaitEntered(root);
            }
            Freezer.Result r = Freezer.freeze(freezeGroup, kind == Kind.CGROUP_V2, root);
            frozenRoot = root;
            return r;
        }

        /**
         * A command spawned a moment ago enters the group in its host-side wrapper's first step ({@link #wrap}), before
         * anything of it runs sandboxed; until then its root is outside the group, and a freeze then (a repository
         * appearing right after the start) failed its verification and the command was killed. Waits, bounded, for the
         * root to be in the freezer's group; a root that never enters still fails the verification.
         */
        private void awaitEntered(ProcessHandle root) {
            long deadline = System.nanoTime() + ENTER_WAIT_NANOS;
            while (root.isAlive() && !procs(freezeGroup).contains(root.pid()) && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Whether {@link #freeze} stopped the command and nothing thawed it since. */
        boolean frozen() {
            return frozenRoot != null;
        }

        void thaw() {
            ProcessHandle r = frozenRoot;
            frozenRoot = null;
            if (r != null) {
                Freezer.thaw(freezeGroup, kind == Kind.CGROUP_V2, r);
            }
        }

        /**
         * {@code argv} run by a host-side {@code bash} that first enters the group and sets the rlimits, then
         * {@code exec}s it. Entering the group failing is fatal (exit 125): the command never runs without the limits
         * the status claims.
         */
        List<String> wrap(Path bash, List<String> argv) {
            StringBuilder sb = new StringBuilder();
            for (Path g : groups) {
                sb.append("echo $$ > ").append(CommandScript.quote(g.resolve("cgroup.procs").toString()))
                        .append(" || { echo 'mono-agent: could not enter the command'\\''s control group' >&2; "
                                + "exit 125; }\n");
            }
            sb.append("ulimit -S -H -f ").append(maxFile / 1024).append(" || exit 125\n");
            if (kind == Kind.RLIMITS) {
                sb.append("ulimit -S -H -u ").append(pids).append(" || exit 125\n");
                sb.append("ulimit -S -H -d ").append(memory / 1024).append(" || exit 125\n");
            }
            sb.append("exec \"$@\"");
            List<String> out = new ArrayList<>(List.of(bash.toString(), "-c", sb.toString(), "mono-agent-limits"));
            out.addAll(argv);
            return out;
        }

        /** The processes (tgids) in the command's group now; null for rlimits (no group to ask). */
        List<Long> members() {
            return groups.isEmpty() ? null : procs(groups.get(0));
        }

        /** Kills whatever is still in the group and removes it; returns how many processes were left. */
        int release() {
            int left = 0;
            ProcessHandle r = frozenRoot;
            if (r != null) {
                // a frozen (v1) task dies of SIGKILL only once thawed: kill first, then let it run into the signal
                Freezer.tree(r).forEach(ProcessHandle::destroyForcibly);
                groups.forEach(g -> procs(g).forEach(pid -> ProcessHandle.of(pid).ifPresent(
                        ProcessHandle::destroyForcibly)));
                thaw();
            }
            for (Path g : groups) {
                left = Math.max(left, killAll(g));
            }
            for (Path g : groups) {
                removeGroup(g);
            }
            return left;
        }
    }

    /** A fresh group for one command (for rlimits a slot with no group). */
    Slot acquire() throws IOException {
        if (kind == Kind.RLIMITS) {
            return new Slot(List.of());
        }
        String name = "c" + SEQ.incrementAndGet();
        List<Path> groups = new ArrayList<>();
        try {
            if (kind == Kind.CGROUP_V2) {
                Path g = Files.createDirectory(bases.get(0).resolve(name));
                groups.add(g);
                write(g.resolve("pids.max"), Integer.toString(pids));
                write(g.resolve("memory.max"), Long.toString(memory));
                tryWrite(g.resolve("memory.swap.max"), "0");
            } else {
                Path p = Files.createDirectory(bases.get(0).resolve(name));
                groups.add(p);
                write(p.resolve("pids.max"), Integer.toString(pids));
                Path m = Files.createDirectory(bases.get(1).resolve(name));
                groups.add(m);
                write(m.resolve("memory.limit_in_bytes"), Long.toString(memory));
                if (freezerBase != null) {
                    groups.add(Files.createDirectory(freezerBase.resolve(name)));
                }
            }
        } catch (IOException e) {
            groups.forEach(Limits::removeGroup);
            throw new IOException("could not create the command's control group: " + e.getMessage(), e);
        }
        return new Slot(groups);
    }

    private static int killAll(Path group) {
        int seen = 0;
        tryWrite(group.resolve("cgroup.kill"), "1");
        for (int round = 0; round < 100; round++) {
            List<Long> pids = procs(group);
            if (pids.isEmpty()) {
                return seen;
            }
            seen = Math.max(seen, pids.size());
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            try {
                Thread.sleep(round < 10 ? 5 : 20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return seen;
            }
        }
        return seen;
    }

    /** The processes (tgids) in a control group; empty when it is gone or unreadable. */
    static List<Long> procs(Path group) {
        List<Long> out = new ArrayList<>();
        try {
            for (String l : Files.readAllLines(group.resolve("cgroup.procs"))) {
                if (!l.isBlank()) {
                    out.add(Long.parseLong(l.strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the group is gone or unreadable: nothing more we can kill through it
        }
        return out;
    }

    private static void removeGroup(Path g) {
        for (int i = 0; i < 50; i++) {
            try {
                Files.deleteIfExists(g);
                return;
            } catch (IOException busy) {
                // the kernel frees the group a moment after its last process is reaped
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void write(Path f, String v) throws IOException {
        Files.writeString(f, v, StandardCharsets.US_ASCII);
    }

    private static void tryWrite(Path f, String v) {
        try {
            write(f, v);
        } catch (IOException ignored) {
            // optional knob (cgroup.kill needs Linux 5.14; swap accounting may be off)
        }
    }

    /** Our own cgroup v2 path with pids+memory delegated to a child we own, or null. */
    private static Path v2Base(String name) {
        Path root = Path.of("/sys/fs/cgroup");
        try {
            if (!Files.isRegularFile(root.resolve("cgroup.controllers"))) {
                return null;
            }
            String own = null;
            for (String l : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (l.startsWith("0::")) {
                    own = l.substring(3);
                }
            }
            if (own == null) {
                return null;
            }
            Path parent = root.resolve(own.replaceFirst("^/", ""));
            String ctl = Files.readString(parent.resolve("cgroup.controllers"));
            if (!ctl.contains("pids") || !ctl.contains("memory")) {
                return null;
            }
            // a group with processes cannot delegate controllers (no internal processes), except the root
            write(parent.resolve("cgroup.subtree_control"), "+pids +memory");
            Path base = parent.resolve(name);
            Files.createDirectories(base);
            write(base.resolve("cgroup.subtree_control"), "+pids +memory");
            return base;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Writable cgroup v1 {@code pids} and {@code memory} hierarchies (bases below our own groups), or null. */
    private static List<Path> v1Bases(String name) {
        try {
            Path pidsMount = null;
            Path memMount = null;
            Path freezerMount = null;
            for (String l : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = l.split(" ");
                if (f.length < 4 || !f[2].equals("cgroup")) {
                    continue;
                }
                List<String> opts = List.of(f[3].split(","));
                if (opts.contains("pids")) {
                    pidsMount = Path.of(f[1]);
                }
                if (opts.contains("memory")) {
                    memMount = Path.of(f[1]);
                }
                if (opts.contains("freezer")) {
                    freezerMount = Path.of(f[1]);
                }
            }
            if (pidsMount == null || memMount == null) {
                return null;
            }
            String pidsOwn = null;
            String memOwn = null;
            String freezerOwn = null;
            for (String l : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = l.split(":", 3);
                if (f.length == 3 && List.of(f[1].split(",")).contains("pids")) {
                    pidsOwn = f[2];
                }
                if (f.length == 3 && List.of(f[1].split(",")).contains("memory")) {
                    memOwn = f[2];
                }
                if (f.length == 3 && List.of(f[1].split(",")).contains("freezer")) {
                    freezerOwn = f[2];
                }
            }
            Path p = under(pidsMount, pidsOwn).resolve(name);
            Path m = under(memMount, memOwn).resolve(name);
            Files.createDirectories(p);
            Files.createDirectories(m);
            if (!Files.isWritable(p.resolve("cgroup.procs")) || !Files.isWritable(m.resolve("cgroup.procs"))) {
                return null;
            }
            if (freezerMount != null) {
                // optional: without it a long-lived command is stopped by SIGSTOP between its evaluations
                try {
                    Path fz = under(freezerMount, freezerOwn).resolve(name);
                    Files.createDirectories(fz);
                    if (Files.isWritable(fz.resolve("freezer.state"))) {
                        return List.of(p, m, fz);
                    }
                    removeGroup(fz);
                } catch (IOException | RuntimeException e) {
                    // no usable freezer hierarchy
                }
            }
            return List.of(p, m);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Our group's directory under a v1 mount; "/" when the group is not visible there (cgroup namespace). */
    private static Path under(Path mount, String own) {
        if (own == null) {
            return mount;
        }
        Path p = mount.resolve(own.replaceFirst("^/", ""));
        return Files.isDirectory(p) ? p : mount;
    }

    /**
     * Empties {@code dir} when it holds more than the temp cap; returns the size found when it did, else -1. Run
     * after each command, when nothing of it is left running (its group was killed).
     */
    long enforceTmp(Path dir) {
        // by descriptor, never following a link: another command of the workspace may still be running and swapping
        // a directory here for a symlink to ~/.ssh; a path walk would delete through it
        long total;
        try {
            total = NoFollowFs.size(dir);
        } catch (IOException e) {
            return -1;
        }
        if (total <= tmp) {
            return -1;
        }
        try {
            NoFollowFs.deleteContents(dir);
        } catch (IOException ignored) {
            // best effort: reported with the size found
        }
        return total;
    }

    /** Removes this JVM's base groups (at engine close; empty by then). */
    void close() {
        for (Path b : bases) {
            try (var s = Files.list(b)) {
                s.filter(Files::isDirectory).forEach(g -> {
                    killAll(g);
                    removeGroup(g);
                });
            } catch (IOException ignored) {
                // gone already
            }
            removeGroup(b);
        }
    }
}
