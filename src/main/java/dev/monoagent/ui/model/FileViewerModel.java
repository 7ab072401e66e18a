package dev.monoagent.ui.model;

import dev.monoagent.ui.task.TaskExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The read-only file viewer: loads a file in the background (capped, binary detected), names its language for the
 * highlighter, and finds text (next match after the caret, wrapping). Reading goes through the host file system —
 * the viewer is the reviewer's eyes, not the agent's hands — but protected files are announced as such.
 */
public final class FileViewerModel {
    /** Larger files show only their head. */
    public static final int MAX_BYTES = 2 * 1024 * 1024;

    /**
     * A found range.
     *
     * @param start inclusive offset
     * @param end   exclusive offset
     */
    public record Match(int start, int end) {}

    private final TaskExecutor executor;
    private final ReadOnlyObjectWrapper<Path> path = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper text = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper language = new ReadOnlyStringWrapper("text");
    private final ReadOnlyStringWrapper info = new ReadOnlyStringWrapper("Select a file in the tree.");
    private final StringProperty query = new SimpleStringProperty("");
    private final ReadOnlyObjectWrapper<Match> match = new ReadOnlyObjectWrapper<>();

    public FileViewerModel(TaskExecutor executor) {
        this.executor = executor;
    }

    /** Opens {@code p} (a regular file) in the background. */
    public void open(Path p, boolean protectedPath) {
        info.set("Loading " + p.getFileName() + "…");
        executor.submit("open " + p, () -> read(p), content -> {
            path.set(p);
            language.set(languageOf(p));
            text.set(content.text());
            match.set(null);
            info.set(p + " — " + content.size() + " bytes" + (content.truncated() ? " (first 2 MiB shown)" : "")
                    + (protectedPath ? " — PROTECTED: the sandbox denies writes here" : ""));
        }, e -> info.set("Cannot open " + p + ": " + e.getMessage()));
    }

    record Content(String text, long size, boolean truncated) {}

    static Content read(Path p) throws IOException {
        long size = Files.size(p);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(p)) {
            bytes = in.readNBytes(MAX_BYTES);
        }
        for (int i = 0; i < Math.min(bytes.length, 8000); i++) {
            if (bytes[i] == 0) {
                return new Content("(binary file, " + size + " bytes)", size, false);
            }
        }
        return new Content(new String(bytes, StandardCharsets.UTF_8), size, size > bytes.length);
    }

    /** The language id the highlighter uses, from the file name. */
    public static String languageOf(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = n.lastIndexOf('.');
        String ext = dot >= 0 ? n.substring(dot + 1) : "";
        if (n.startsWith(".env") || n.equals("config") || ext.equals("properties") || ext.equals("ini")) {
            return "conf";
        }
        return switch (ext) {
            case "java", "kt", "scala", "groovy", "c", "h", "cpp", "cc", "hpp", "cs", "go", "rs", "swift" -> "java";
            case "js", "mjs", "cjs", "ts", "tsx", "jsx" -> "js";
            case "json" -> "json";
            case "sh", "bash", "zsh" -> "sh";
            case "py" -> "py";
            case "md", "markdown" -> "md";
            case "xml", "html", "htm", "fxml", "svg" -> "xml";
            case "yml", "yaml", "toml" -> "conf";
            default -> "text";
        };
    }

    /** Finds the next occurrence of the query after {@code from} (case-insensitive, wrapping). */
    public Match findNext(int from) {
        String q = query.get();
        String t = text.get();
        if (q == null || q.isEmpty() || t.isEmpty()) {
            match.set(null);
            return null;
        }
        String lt = t.toLowerCase(Locale.ROOT);
        String lq = q.toLowerCase(Locale.ROOT);
        int i = lt.indexOf(lq, Math.max(0, Math.min(from, lt.length())));
        if (i < 0) {
            i = lt.indexOf(lq);
        }
        Match m = i < 0 ? null : new Match(i, i + q.length());
        match.set(m);
        return m;
    }

    public ReadOnlyObjectProperty<Path> pathProperty() {
        return path.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty textProperty() {
        return text.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty languageProperty() {
        return language.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty infoProperty() {
        return info.getReadOnlyProperty();
    }

    public StringProperty queryProperty() {
        return query;
    }

    public ReadOnlyObjectProperty<Match> matchProperty() {
        return match.getReadOnlyProperty();
    }
}
