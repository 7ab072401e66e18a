package dev.monoagent.config;

import dev.monoagent.host.UserConfigRoot;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The reviewer's acceptances of workspace settings, kept in the user config dir ({@link UserConfigRoot}), never in the
 * workspace: one file per workspace ({@code trust/<sha256 of its real path>.json}) listing the digests of the
 * accepted {@link TrustItem}s with what they said and when. An item is in effect only while its exact digest is here.
 */
public final class TrustStore {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;

    public TrustStore(Path userConfigRoot) {
        this.dir = userConfigRoot.resolve("trust");
    }

    /** The store of the reviewer whose exported environment is {@code env}. */
    public static TrustStore of(Map<String, String> env) {
        return new TrustStore(UserConfigRoot.of(env, Path.of(System.getProperty("user.home"))));
    }

    /** The record file for {@code workspace}. */
    public Path fileFor(Path workspace) {
        return dir.resolve(TrustItem.sha256(key(workspace)).substring(0, 32) + ".json");
    }

    /** The digests accepted for {@code workspace} (empty when none or unreadable). */
    public Set<String> accepted(Path workspace) {
        Set<String> out = new HashSet<>();
        JsonNode root = read(workspace);
        if (root != null && key(workspace).equals(root.path("workspace").asText())) {
            root.path("accepted").forEach(n -> out.add(n.path("digest").asText()));
        }
        return out;
    }

    /** Records {@code items} as accepted for {@code workspace} (atomically; owner-only). */
    public void accept(Path workspace, List<TrustItem> items) throws IOException {
        if (items.isEmpty()) {
            return;
        }
        JsonNode old = read(workspace);
        ObjectNode root = JSON.createObjectNode();
        root.put("workspace", key(workspace));
        ArrayNode list = root.putArray("accepted");
        Set<String> seen = new HashSet<>();
        if (old != null && key(workspace).equals(old.path("workspace").asText())) {
            old.path("accepted").forEach(n -> {
                if (seen.add(n.path("digest").asText())) {
                    list.add(n);
                }
            });
        }
        String now = Instant.now().toString();
        for (TrustItem i : items) {
            if (seen.add(i.digest())) {
                ObjectNode n = list.addObject();
                n.put("digest", i.digest());
                n.put("key", i.key());
                n.put("value", i.value());
                n.put("source", i.source());
                n.put("at", now);
            }
        }
        Files.createDirectories(dir);
        ownerOnly(dir.getParent());
        ownerOnly(dir);
        Path f = fileFor(workspace);
        Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        ownerOnly(tmp);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private JsonNode read(Path workspace) {
        Path f = fileFor(workspace);
        try {
            return Files.isRegularFile(f) ? JSON.readTree(Files.readString(f)) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void ownerOnly(Path p) {
        try {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(
                    Files.isDirectory(p) ? "rwx------" : "rw-------"));
        } catch (IOException | UnsupportedOperationException e) {
            // not a POSIX file system: the dir keeps its default permissions
        }
    }

    /** The workspace as recorded: its real path when it exists. */
    static String key(Path workspace) {
        try {
            return workspace.toRealPath().toString();
        } catch (IOException e) {
            return workspace.toAbsolutePath().normalize().toString();
        }
    }
}
