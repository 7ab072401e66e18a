package dev.monoagent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.monoagent.common.TaskExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keeps the layers of ARCHITECTURE.md (at the repository root): javafx only in ui, printing only in cli, no upward
 * imports; threads only from the core task executor; host programs and the process environment only through the host
 * layer.
 */
class ArchitectureTest {
    /** Bottom to top; a layer may import only layers before it in this list. */
    static final List<String> LAYERS =
            List.of("common", "host", "config", "sandbox", "memory", "tools", "model", "agent", "cli", "ui");
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

    /**
     * Memory and the model providers never reach the engine's package: what they need of the host (the user's dirs,
     * the platform) is in {@code host}, below everything.
     */
    @Test
    void memoryAndModelNeverReachTheSandbox() {
        noClasses().that().resideInAnyPackage("dev.monoagent.memory..", "dev.monoagent.model..")
                .should().dependOnClassesThat().resideInAPackage("dev.monoagent.sandbox..")
                .check(classes);
    }

    /**
     * Host programs come from {@code HostTools} (never a raw PATH lookup): the tools, the agent and the frontends never
     * read the process environment themselves (an {@code rg} planted in a workspace {@code bin/} on PATH would run on
     * the host). Entry points hand the environment down explicitly ({@code HostEnv}, the CLI's context).
     */
    @Test
    void onlyTheHostLayerReadsTheProcessEnvironment() {
        noClasses().that().resideInAnyPackage("dev.monoagent.tools..", "dev.monoagent.ui..")
                .should().callMethod(System.class, "getenv")
                .orShould().callMethod(System.class, "getenv", String.class)
                .check(classes);
    }

    /**
     * Nothing creates threads except {@code common.TaskExecutor} (workers with cancellation, and the named I/O pumps
     * for process pipes): no {@code new Thread}, no {@code Thread.ofVirtual/ofPlatform}, no {@code Executors.*}, no
     * {@code CompletableFuture.supplyAsync/runAsync} on the common pool.
     */
    @Test
    void onlyTheTaskExecutorCreatesThreads() {
        noClasses().that().doNotHaveFullyQualifiedName(TaskExecutor.class.getName())
                .and().doNotHaveFullyQualifiedName(TaskExecutor.Task.class.getName())
                .should().callConstructorWhere(JavaConstructorCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(Thread.class))))
                .orShould().callMethod(Thread.class, "ofVirtual")
                .orShould().callMethod(Thread.class, "ofPlatform")
                .orShould().callMethod(Thread.class, "startVirtualThread", Runnable.class)
                .orShould().callMethodWhere(JavaMethodCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.equivalentTo(Executors.class))))
                .orShould().callMethod(CompletableFuture.class, "supplyAsync", java.util.function.Supplier.class)
                .orShould().callMethod(CompletableFuture.class, "runAsync", Runnable.class)
                .check(classes);
    }

    /**
     * Every host process starts from {@code common.ChildProcesses}, which keeps the loader's search variables to
     * absolute entries: a child never loads a library from its working directory, often the workspace.
     */
    @Test
    void onlyChildProcessesCreatesProcessBuilders() {
        noClasses().that().doNotHaveFullyQualifiedName(dev.monoagent.common.ChildProcesses.class.getName())
                .should().callConstructorWhere(JavaConstructorCall.Predicates.target(
                        HasOwner.Predicates.With.owner(JavaClass.Predicates.equivalentTo(ProcessBuilder.class))))
                .check(classes);
    }

    @Test
    void uiDoesNotCallCli() {
        noClasses().that().resideInAPackage("dev.monoagent.ui..")
                .should().dependOnClassesThat().resideInAPackage("dev.monoagent.cli..")
                .allowEmptyShould(true).check(classes);
    }
}
