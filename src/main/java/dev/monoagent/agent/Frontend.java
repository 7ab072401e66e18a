package dev.monoagent.agent;

/**
 * Runs an instance in the current process until it is stopped. The workbench (package {@code ui}) registers one in
 * {@code META-INF/services/dev.monoagent.agent.Frontend}, so this layer and the CLI never import JavaFX;
 * {@link HeadlessFrontend} is the built-in one for CI and machines without a display.
 */
public interface Frontend {
    /** {@code window} or {@code headless}. */
    String kind();

    /**
     * Becomes the workspace's instance and serves until stopped.
     *
     * @return the process exit code (0 after an orderly stop; 1 when the workspace is already held)
     */
    int run(StartOptions options) throws Exception;
}
