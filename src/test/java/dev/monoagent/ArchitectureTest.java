package dev.monoagent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Keeps the layers of ARCHITECTURE.md: javafx only in ui, printing only in cli, no upward imports. */
class ArchitectureTest {
    /** Bottom to top; a layer may import only layers before it in this list. */
    static final List<String> LAYERS =
            List.of("common", "config", "sandbox", "memory", "tools", "model", "agent", "cli", "ui");
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.monoagent");
    }

    @Test
    void javafxOnlyInUi() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.monoagent.ui..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "org.fxmisc..", "org.controlsfx..",
                        "org.kordamp..");
        rule.check(classes);
    }

    @Test
    void onlyCliPrints() {
        ArchRule rule = noClasses().that().resideOutsideOfPackage("dev.monoagent.cli..")
                .should().accessField(System.class, "out").orShould().accessField(System.class, "err");
        rule.check(classes);
    }

    static List<String> layers() {
        return LAYERS;
    }

    @ParameterizedTest
    @MethodSource("layers")
    void noUpwardImports(String layer) {
        int i = LAYERS.indexOf(layer);
        // cli and ui are both top layers: cli starts the workbench (ui), ui never calls cli
        List<String> above = LAYERS.subList(i + 1, LAYERS.size()).stream()
                .filter(l -> !(layer.equals("cli") && l.equals("ui")))
                .map(l -> "dev.monoagent." + l + "..").toList();
        if (above.isEmpty()) {
            return;
        }
        noClasses().that().resideInAPackage("dev.monoagent." + layer + "..")
                .should().dependOnClassesThat().resideInAnyPackage(above.toArray(String[]::new))
                .allowEmptyShould(true)
                .check(classes);
    }

    @Test
    void uiDoesNotCallCli() {
        noClasses().that().resideInAPackage("dev.monoagent.ui..")
                .should().dependOnClassesThat().resideInAPackage("dev.monoagent.cli..")
                .allowEmptyShould(true).check(classes);
    }
}
