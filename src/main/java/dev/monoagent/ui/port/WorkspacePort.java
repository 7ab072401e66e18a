package dev.monoagent.ui.port;

import dev.monoagent.common.ProbeResult;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the start page needs from outside the window: the recent workspaces, whether a folder is set up, the two
 * set-up steps ({@code init --preset code-sandbox --model REF}, then {@code sandbox setup}) and opening a workspace
 * (which re-opens the service core for it). The app uses {@link LocalWorkspaces}; tests may record calls.
 */
public interface WorkspacePort {
    List<Path> recents();

    /** The folder has a {@code mono-agent.config.json}. */
    boolean configured(Path folder);

    /** Why the folder's config cannot be loaded (its first errors, each naming its field), or null when it loads. */
    default String configProblem(Path folder) {
        return null;
    }

    /** Scaffolds the folder with the {@code code-sandbox} preset and {@code model}; throws with a one-line reason. */
    void init(Path folder, String model) throws Exception;

    /** Installs (or repairs) and proves the sandbox for the folder's config. Blocking. */
    CheckReport setupSandbox(Path folder, Consumer<String> onStep, Consumer<ProbeResult> onProbe) throws Exception;

    /** Switches the window to the folder's workbench; throws with a one-line reason (e.g. opened elsewhere). */
    void open(Path folder) throws Exception;
}
