package dev.monoagent.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * What a running instance says about itself over the control endpoint; also what {@code status} prints.
 *
 * @param workspace  the agent folder the instance owns
 * @param configPath the config file it loaded
 * @param pid        the instance's process id
 * @param startedAt  ISO-8601 start time
 * @param frontend   {@code window} or {@code headless}
 * @param endpoint   the control socket path
 * @param sandbox    the sandbox block as the instance sees it
 */
public record InstanceStatus(String workspace, String configPath, long pid, String startedAt, String frontend,
                             String endpoint, SandboxSummary sandbox) {

    /** The {@code instance} block for a running instance. */
    public List<String> instanceLines() {
        List<String> out = new ArrayList<>();
        out.add("config: " + configPath);
        out.add("state: running (pid " + pid + ", " + frontend + ", since " + startedAt + ")");
        out.add("workspace: " + workspace);
        out.add("control: " + endpoint);
        return out;
    }

    /** The {@code instance} block when nothing runs for the workspace. */
    public static List<String> notRunningLines(String configPath) {
        return List.of("config: " + configPath, "state: stopped");
    }
}
