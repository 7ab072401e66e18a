package dev.monoagent.sandbox;

import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Stops every process of a long-lived sandboxed command (the NodeRepl) between its evaluations, so nothing it does can
 * happen after the host's scan of that evaluation: its timers and detached children only run while the host is
 * watching an evaluation. A freeze is only reported done when it is verified: the control group says it is frozen
 * (cgroup v2 {@code cgroup.events}, v1 {@code freezer.state}) or, with no freezer, every process reads as stopped
 * ({@code SIGSTOP}, repeated until none runs); and every process below the command's root — whatever group it is in —
 * is one of the frozen ones. Anything else is a failed freeze, and the caller ends the process (fail closed).
 */
final class Freezer {
    /** How long a freeze may take before it counts as failed (a task in uninterruptible sleep delays v1). */
    static final long TIMEOUT_MS = 5_000;

    /** The verified result: frozen, or why not. */
    sealed interface Result {
        record Frozen(String how) implements Result {}

        record Failed(String why) implements Result {}
    }

    private Freezer() {}

    /**
     * Freezes through {@code group} ({@code v2}: its {@code cgroup.freeze}; else v1 {@code freezer.state}) or, when
     * {@code group} is null, by SIGSTOP; then checks that every process in {@code root}'s tree is covered.
     */
    static Result freeze(Path group, boolean v2, ProcessHandle root) {
        if (!root.isAlive()) {
            return new Result.Failed("the process has exited");
        }
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        if (group == null) {
            return stopAll(root, deadline);
        }
        try {
            write(v2 ? group.resolve("cgroup.freeze") : group.resolve("freezer.state"), v2 ? "1" : "FROZEN");
        } catch (IOException e) {
            return new Result.Failed("could not write the freezer of " + group + ": " + e.getMessage());
        }
        for (int i = 0; ; i++) {
            if (frozen(group, v2)) {
                break;
            }
            if (System.currentTimeMillis() > deadline) {
                return new Result.Failed("the control group " + group + " did not reach the frozen state");
            }
            pause(i);
            if (!v2) {
                // v1 can stay FREEZING when a task was mid-fork or otherwise not freezable at the first attempt: ask
                // again each round, and now and then thaw and re-freeze to get it unstuck (as container runtimes do)
                try {
                    if (i % 25 == 24) {
                        write(group.resolve("freezer.state"), "THAWED");
                    }
                    write(group.resolve("freezer.state"), "FROZEN");
                } catch (IOException e) {
                    return new Result.Failed("could not write the freezer of " + group + ": " + e.getMessage());
                }
            }
        }
        Set<Long> members = new HashSet<>(Limits.procs(group));
        for (ProcessHandle p : tree(root)) {
            // a child that exited while its parent was being frozen stays a zombie (unreaped) and is no longer a
            // member of any group: it cannot act, so it does not fail the verification
            if (!members.contains(p.pid()) && !gone(p.pid())) {
                return new Result.Failed("process " + p.pid() + " of the command is outside its control group");
            }
        }
        return new Result.Frozen(v2 ? "cgroup v2 freezer" : "cgroup v1 freezer");
    }

    /** Lets the frozen processes run again. */
    static void thaw(Path group, boolean v2, ProcessHandle root) {
        if (group == null) {
            signal("CONT", tree(root));
            return;
        }
        try {
            write(v2 ? group.resolve("cgroup.freeze") : group.resolve("freezer.state"), v2 ? "0" : "THAWED");
        } catch (IOException e) {
            // the group is gone: so are its processes
        }
    }

    private static boolean frozen(Path group, boolean v2) {
        try {
            if (v2) {
                return Files.readAllLines(group.resolve("cgroup.events")).contains("frozen 1");
            }
            return Files.readString(group.resolve("freezer.state")).strip().equals("FROZEN");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * No freezer: SIGSTOP every process of the tree until a pass finds all of them stopped and no new one (a process
     * not yet stopped could fork, or SIGCONT the others). Bounded: a tree that keeps waking itself is a failure.
     */
    private static Result stopAll(ProcessHandle root, long deadline) {
        for (int i = 0; ; i++) {
            List<ProcessHandle> all = tree(root);
            signal("STOP", all);
            pause(0);
            List<ProcessHandle> again = tree(root);
            boolean stable = again.size() == all.size() && again.stream().allMatch(p -> stopped(p.pid()));
            if (stable) {
                return new Result.Frozen("SIGSTOP of " + again.size() + " processes");
            }
            if (System.currentTimeMillis() > deadline) {
                return new Result.Failed("the command's processes did not all stay stopped");
            }
        }
    }

    /** {@code root} and everything below it (orphans inside the sandbox are re-parented to its init, below root). */
    static List<ProcessHandle> tree(ProcessHandle root) {
        List<ProcessHandle> out = new ArrayList<>();
        if (root.isAlive()) {
            out.add(root);
        }
        root.descendants().forEach(out::add);
        return out;
    }

    /**
     * Every thread of {@code pid} stopped ('T'/'t') or exited ('Z'/'X'); a gone process counts as stopped. Per thread
     * ({@code /proc/<pid>/task}): a leader that ended with {@code SYS_exit} shows Z while its other threads run.
     */
    static boolean stopped(long pid) {
        return allThreads(pid, "TtZX");
    }

    /** Every thread of {@code pid} exited ('Z'/'X'), or no such process: it runs nothing. */
    static boolean gone(long pid) {
        return allThreads(pid, "ZX");
    }

    private static boolean allThreads(long pid, String states) {
        List<Path> tasks;
        try (var s = Files.list(Path.of("/proc/" + pid + "/task"))) {
            tasks = s.toList();
        } catch (IOException | RuntimeException e) {
            return true;
        }
        for (Path t : tasks) {
            try {
                String s = Files.readString(t.resolve("stat"), StandardCharsets.ISO_8859_1);
                if (states.indexOf(s.charAt(s.lastIndexOf(')') + 2)) < 0) {
                    return false;
                }
            } catch (IOException | RuntimeException e) {
                // that thread is gone
            }
        }
        return true;
    }

    private static void signal(String sig, List<ProcessHandle> ps) {
        if (ps.isEmpty()) {
            return;
        }
        List<String> cmd = new ArrayList<>(List.of("kill", "-" + sig, "--"));
        ps.forEach(p -> cmd.add(Long.toString(p.pid())));
        try {
            Process k = ChildProcesses.builder(cmd).redirectErrorStream(true).start();
            k.getInputStream().readAllBytes();
            k.waitFor(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            // reported by the verification that follows
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause(int round) {
        try {
            Thread.sleep(round < 10 ? 2 : 10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(Path f, String v) throws IOException {
        Files.writeString(f, v, StandardCharsets.US_ASCII);
    }
}
