package dev.monoagent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The workspaces opened lately, newest first, for the start page: {@code <config dir>/recent-workspaces.json}. At most
 * {@link #MAX} entries; a folder that no longer exists is dropped when read. A damaged file reads as empty and is
 * replaced on the next open (it holds nothing that cannot be rebuilt).
 */
public final class RecentWorkspaces {
    public static final int MAX = 10;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;

    public RecentWorkspaces(Path configDir) {
        this.file = configDir.resolve("recent-workspaces.json");
    }

    public Path file() {
        return file;
    }

    public List<Path> list() {
        List<Path> out = new ArrayList<>();
        try {
            JsonNode n = JSON.readTree(file.toFile());
            for (JsonNode e : n.path("workspaces")) {
                Path p = Path.of(e.asText());
                if (p.isAbsolute() && Files.isDirectory(p) && !out.contains(p) && out.size() < MAX) {
                    out.add(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // missing or damaged: no recents
        }
        return out;
    }

    /** Moves {@code workspace} to the front and saves (atomically: a crash never leaves half a file). */
    public void opened(Path workspace) throws IOException {
        Path ws = workspace.toAbsolutePath().normalize();
        List<Path> all = new ArrayList<>(list());
        all.remove(ws);
        all.add(0, ws);
        while (all.size() > MAX) {
            all.remove(all.size() - 1);
        }
        Files.createDirectories(file.getParent());
        var root = JSON.createObjectNode();
        var arr = root.putArray("workspaces");
        all.forEach(p -> arr.add(p.toString()));
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
