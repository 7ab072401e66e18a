package dev.monoagent.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The config syntax git accepts for the keys that send it elsewhere, each spelling read as git reads it. */
class GitConfigRefsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[core]\\n\\thooksPath = h2\\n|h2",
        "[CORE]\\nHOOKSPATH=h2|h2",
        "[core] hookspath = h2|h2",
        "[core]\\n\\thooksPath = \"my hooks\" # note\\n|my hooks",
        "[core]\\n\\thooksPath = a\\\\\\nb\\n|ab",
        "[core]\\n\\thooksPath = a  b ; c\\n|a  b",
        "[core \"x\"]\\n\\thooksPath = no\\n[core]\\nhooksPath = yes|yes",
        "\uFEFF[core]\\nhooksPath = bom|bom",
    })
    void hooksPathIsReadAsGitReadsIt(String text, String expected) {
        assertEquals(List.of(expected), GitConfigRefs.parse(unescape(text)).hooksPaths());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[include]\\n\\tpath = ../.gitconfig.local\\n|../.gitconfig.local",
        "[Include]\\nPath=a|a",
        "[includeIf \"gitdir:~/w/\"]\\n\\tpath = ../conf/x.cfg|../conf/x.cfg",
        "[includeIf \"onbranch:main\"] path = b|b",
        "[includeif.onbranch]\\npath = c|c",
    })
    void includePathsAreReadWhateverTheCondition(String text, String expected) {
        assertEquals(List.of(expected), GitConfigRefs.parse(unescape(text)).includes());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[core]\\n\\t# hooksPath = h\\n",
        "[core]\\nhooksPathx = h",
        "[hooks]\\npath = h",
        "[include \"x\"]\\npath = h",
        "hooksPath = h",
        "[includeif.gitdir:/x]\\npath = c",
        "[core]\\n\\tbad line ! \\nhooksPath = h",
    })
    void otherTextNamesNothing(String text) {
        GitConfigRefs refs = GitConfigRefs.parse(unescape(text));
        assertEquals(List.of(), refs.hooksPaths());
        assertEquals(List.of(), refs.includes());
    }

    private static String unescape(String s) {
        return s.replace("\\\\", "\u0000").replace("\\n", "\n").replace("\\t", "\t").replace("\u0000", "\\");
    }
}
