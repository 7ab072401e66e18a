package dev.monoagent.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.monoagent.ui.task.DirectTaskExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileViewerModelTest {
    @TempDir
    Path ws;

    @Test
    void findWrapsAroundCaseInsensitively() throws Exception {
        FileViewerModel m = new FileViewerModel(new DirectTaskExecutor());
        m.open(Files.writeString(ws.resolve("a.txt"), "Foo bar foo"), false);
        m.queryProperty().set("foo");
        assertEquals(new FileViewerModel.Match(0, 3), m.findNext(0));
        assertEquals(new FileViewerModel.Match(8, 11), m.findNext(1));
        assertEquals(new FileViewerModel.Match(0, 3), m.findNext(9));
        m.queryProperty().set("zzz");
        assertNull(m.findNext(0));
    }

    @Test
    void binaryFilesAreNotShownAsText() throws Exception {
        FileViewerModel m = new FileViewerModel(new DirectTaskExecutor());
        m.open(Files.write(ws.resolve("b.bin"), new byte[] {1, 0, 2}), false);
        assertEquals("(binary file, 3 bytes)", m.textProperty().get());
    }

    @Test
    void protectedFilesAreAnnounced() throws Exception {
        FileViewerModel m = new FileViewerModel(new DirectTaskExecutor());
        m.open(Files.writeString(ws.resolve(".env"), "A=1\n"), true);
        assertTrue(m.infoProperty().get().contains("PROTECTED"));
        assertEquals("conf", m.languageProperty().get());
    }

    @ParameterizedTest
    @CsvSource({"Main.java,java", "app.ts,js", "package.json,json", "run.sh,sh", "x.py,py", "README.md,md",
            "pom.xml,xml", ".env.local,conf", "LICENSE,text"})
    void languageFollowsTheFileName(String name, String lang) {
        assertEquals(lang, FileViewerModel.languageOf(Path.of(name)));
    }
}
