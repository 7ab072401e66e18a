package dev.monoagent.agent;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One running mono-agent per workspace. {@link #acquire} takes an OS file lock on
 * {@code <ws>/.mono-agent/control/instance.lock} (released by the OS even on a crash, so a stale lock cannot block a
 * new start) and then binds the control socket. A second start finds the lock held and gets {@link AlreadyRunning}
 * with whatever the running instance reports.
 */
public final class Instance implements AutoCloseable {
    private final Path workspace;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final ControlServer server;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Instance(Path workspace, FileChannel lockChannel, FileLock lock, ControlServer server) {
        this.workspace = workspace;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.server = server;
    }

    /** Result of trying to become the workspace's instance. */
    public sealed interface Acquisition {}

    /** This process is now the instance; close it on exit. */
    public record Acquired(Instance instance) implements Acquisition {}

    /**
     * Another process holds the workspace.
     *
     * @param status what it reports, or empty when it holds the lock but does not answer yet (still starting)
     */
    public record AlreadyRunning(Optional<InstanceStatus> status) implements Acquisition {}

    /**
     * Tries to become the instance for {@code workspace}. {@code handler} answers control requests; the accept loop
     * runs on {@code executor}.
     */
    public static Acquisition acquire(Path workspace, InstanceHandler handler, Executor executor) throws IOException {
        Path ws = workspace.toAbsolutePath().normalize();
        ControlEndpoint.ensurePrivateDir(ControlEndpoint.controlDir(ws));
        FileChannel ch = FileChannel.open(ControlEndpoint.lockFile(ws), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            return new AlreadyRunning(ControlClient.forWorkspace(ws).status());
        }
        try {
            ControlServer server = ControlServer.bind(ControlEndpoint.socketPath(ws), handler, executor);
            return new Acquired(new Instance(ws, ch, lock, server));
        } catch (IOException | RuntimeException e) {
            lock.release();
            ch.close();
            throw e;
        }
    }

    public Path workspace() {
        return workspace;
    }

    /** The control socket this instance serves. */
    public Path endpoint() {
        return server.socket();
    }

    /** Marks the instance stopped (wakes {@link #awaitStopped}); the owner then closes it. */
    public void signalStop() {
        stopped.countDown();
    }

    /** Blocks until {@link #signalStop} (used by the headless runner). */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
        return stopped.await(timeout, unit);
    }

    @Override
    public void close() throws IOException {
        stopped.countDown();
        server.close();
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
