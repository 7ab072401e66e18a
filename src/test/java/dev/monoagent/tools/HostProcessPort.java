package dev.monoagent.tools;

import dev.monoagent.sandbox.CommandSpec;
import dev.monoagent.sandbox.ExecOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Test double for {@link SandboxPort}: runs commands directly on the host, no isolation. Used only to test protocol
 * and rendering (NodeRepl semantics, output formatting) without the engine; policy tests use the real sandbox.
 */
final class HostProcessPort implements SandboxPort {
    final List<CommandSpec> specs = new ArrayList<>();
    volatile Process last;

    @Override
    public ExecOutcome exec(CommandSpec spec) {
        specs.add(spec);
        long t0 = System.nanoTime();
        try {
            ProcessBuilder pb = new ProcessBuilder(spec.argv()).directory(spec.workdir().toFile());
            pb.environment().putAll(spec.extraEnv());
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<String> out = read(p.getInputStream());
            CompletableFuture<String> err = read(p.getErrorStream());
            boolean done = p.waitFor(spec.timeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor();
            }
            return new ExecOutcome.Completed(done ? p.exitValue() : 137, done ? 0 : 9, out.join(), err.join(), false,
                    !done, List.of(), (System.nanoTime() - t0) / 1_000_000, dev.monoagent.common.Effective.OFF);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CompletableFuture<String> read(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }

    @Override
    public Started start(CommandSpec spec) {
        specs.add(spec);
        try {
            ProcessBuilder pb = new ProcessBuilder(spec.argv()).directory(spec.workdir().toFile());
            pb.environment().putAll(spec.extraEnv());
            Process p = pb.start();
            last = p;
            return new Started.Running(new LiveProcess() {
                @Override
                public OutputStream stdin() {
                    return p.getOutputStream();
                }

                @Override
                public InputStream stdout() {
                    return p.getInputStream();
                }

                @Override
                public InputStream stderr() {
                    return p.getErrorStream();
                }

                @Override
                public boolean isAlive() {
                    return p.isAlive();
                }

                @Override
                public void close() {
                    p.destroyForcibly();
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
