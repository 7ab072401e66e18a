package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.config.Enums.NetworkMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A PATH that contains the (fake) home itself must not re-open the home's secrets for reading. */
class HomeOnPathTest {
    @TempDir
    Path tmp;

    @Test
    void homeOnPathDoesNotReallowSecretsUnderHome() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        HostEnv base = TestEngine.env();
        Path home = base.home();
        Files.createDirectories(home.resolve(".aws"));
        Files.writeString(home.resolve(".aws/credentials"), "AWS-CANARY\n");
        Path localBin = Files.createDirectories(home.resolve(".local/bin"));
        Files.writeString(localBin.resolve("hello-tool"), "#!/bin/sh\necho tool-ok\n");
        localBin.resolve("hello-tool").toFile().setExecutable(true);
        HostEnv env = base.withPath(home + ":" + home.resolve(".ssh") + ":" + localBin + ":" + base.path());
        try (Sandbox sb = Sandbox.open(TestEngine.config(ws, NetworkMode.NONE, List.of()), new TestEngine.Events(),
                env)) {
            assertEquals("ready", sb.status().state(), String.valueOf(sb.status().reason()));
            ExecOutcome.Completed c = assertInstanceOf(ExecOutcome.Completed.class, sb.exec(CommandSpec.bash(
                    "cat ~/.aws/credentials; cat ~/.ssh/id_test; ls ~; hello-tool", ws)));
            assertFalse(c.stdout().contains("AWS-CANARY"), c.stdout());
            assertFalse(c.stdout().contains("PRIVATE-KEY-CANARY"), c.stdout());
            assertTrue(c.stdout().contains("tool-ok"), "a tool dir under home stays usable: " + c.stderr());
        }
    }
}
