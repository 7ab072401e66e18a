package dev.monoagent.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The files a host tool reads on its own — from the directory the user runs it in or any ancestor, or from the repository
 * a git hook runs in — and through which it runs a program or loads code that whoever wrote the file chose. It does
 * this even for a command that runs no project code ({@code cargo --version}, {@code mvn -v}, {@code git commit},
 * entering the directory with a shell hook, starting an editor or coding agent there). The agent must never write one: existing ones are
 * literal engine denies, a new one is quarantined after the command.
 *
 * <p>Not in this class, and so not protected: the project's own programs and manifests, which the agent must be able to
 * edit and which a build, test or run command executes by design ({@code Makefile}, {@code build.rs},
 * {@code pom.xml}, {@code build.gradle}, {@code package.json} scripts, {@code conftest.py}, {@code *.config.js} of
 * linters and bundlers), and programs that live in the workspace ({@code .venv/bin/python} and its site-packages
 * {@code .pth} files, {@code node_modules/.bin/*}, {@code ./gradlew}, {@code ./mvnw}): running any of them on the host
 * runs what the agent may have written. The README states that as the reviewer's rule.
 *
 * <p>Each entry is a path segment name, matched at any depth below a writable root ({@code .npmrc} protects
 * {@code app/.npmrc} too), or {@code parent/name} for a name that counts only inside that parent; a protected dir
 * covers everything below it. {@code *} matches within one segment.
 */
final class HostExecuted {
    private HostExecuted() {}

    /** One tool's files and why they are in the class. */
    record Tool(String tool, List<String> names, String why) {}

    /** The catalogue; README's "What is protected" and docs/sandbox-probes.md list the same names. */
    static final List<Tool> TOOLS = List.of(
            new Tool("Claude Code", List.of(".claude/settings.json", ".claude/settings.local.json", ".claude/hooks"),
                    "project settings define hooks run on the host; .claude/hooks is where they conventionally live"),
            new Tool("husky", List.of(".husky", ".huskyrc", ".huskyrc.json", ".huskyrc.js", ".huskyrc.yml",
                    ".huskyrc.yaml", "husky.config.js"),
                    "core.hooksPath .husky/_ runs .husky/<hook>; husky 4's hooks read .huskyrc* on every git hook"),
            new Tool("git hooks dirs", List.of(".githooks", ".git-hooks"),
                    "a core.hooksPath commonly points here; .git-hooks is overcommit's plugin dir"),
            new Tool("lefthook", lefthook(), "lefthook run (from the repo's git hook) reads every config name, in the "
                    + "repo and in .config/, and runs its commands; .lefthook{,-local}/ hold its scripts"),
            new Tool("pre-commit / overcommit", List.of(".pre-commit-config.yaml", ".pre-commit-config.yml",
                    ".overcommit.yml"), "the installed git hook reads the config and runs the commands it names"),
            new Tool("npm / yarn / pnpm", List.of(".npmrc", ".yarnrc", ".yarnrc.yml", ".yarn/releases", ".yarn/plugins",
                    ".pnpmfile.cjs"), "script-shell and node-options (npm), yarnPath and plugins (any yarn command "
                    + "runs the release and plugins .yarnrc.yml names), pnpm's hooks file"),
            new Tool("direnv", List.of(".envrc", ".envrc.local", ".direnv"),
                    "sourced by the user's shell on entering the directory (.envrc.local by the common "
                    + "source_env_if_exists line)"),
            new Tool("rustup / cargo", List.of("rust-toolchain", "rust-toolchain.toml", ".cargo"),
                    "rustup's proxies (cargo, rustc, ...) run <path>/bin/<tool> of a toolchain file's path = in the "
                    + "directory or any ancestor; cargo reads .cargo/config{,.toml} of every ancestor "
                    + "(build.rustc-wrapper, target runners)"),
            new Tool("Maven", List.of(".mvn"), "the mvn launcher prepends .mvn/jvm.config to the JVM options "
                    + "(-agentpath), reads .mvn/maven.config and loads .mvn/extensions.xml, searching upward"),
            new Tool("Gradle", List.of("gradle.properties", "gradle/gradle-daemon-jvm.properties"),
                    "org.gradle.java.home picks the java executable and org.gradle.jvmargs the daemon's options; the "
                    + "daemon-JVM file selects the daemon's toolchain"),
            new Tool("mise / asdf / rtx", List.of("mise.toml", "mise.*.toml", ".mise.toml", ".mise.*.toml", ".mise",
                    "mise/config.toml", "mise/config.*.toml", ".config/mise", ".config/mise.toml",
                    ".config/mise.*.toml", ".rtx.toml", "rtx.toml", ".tool-versions"),
                    "mise's shell hook reads every config of the directory and its ancestors on each prompt ([env] "
                    + "_.source scripts, enter hooks, tools = \"path:...\"); asdf and mise accept path: versions in "
                    + ".tool-versions, which the shims then run"),
            new Tool("version selectors", List.of(".python-version", ".ruby-version", ".node-version", ".nvmrc",
                    ".java-version", ".sdkmanrc"), "a shim or shell hook turns the version string into a directory "
                    + "under its root and runs bin/<tool> there; pyenv 1.2.24-2.3.2 followed ../ (CVE-2022-35861), "
                    + "and we do not depend on the reviewer's manager version refusing it"),
            new Tool("bun", List.of("bunfig.toml", ".bunfig.toml"), "preload scripts and the run shell apply to every "
                    + "bun command in the directory"),
            new Tool(".NET", List.of("global.json"), "the dotnet muxer reads it from the directory or an ancestor; "
                    + ".NET 10's sdk.paths points it at an SDK directory to run"),
            new Tool("Mercurial", List.of(".hg"), "the control dir: .hg/hgrc hooks (pre-status, ...) run on the next "
                    + "hg command, like .git/config"),
            new Tool("AI coding agents and editors", List.of(".gemini", ".codex", ".cursor", ".zed", ".continue",
                    ".opencode", "opencode.json", "opencode.jsonc", ".amazonq", ".kiro", ".roo", ".qwen", ".kilocode",
                    ".windsurf", ".clinerules", ".junie", "crush.json", ".crush.json"),
                    "project settings start MCP servers, hooks, plugins or language-server binaries when the tool "
                    + "opens the directory (Gemini CLI, Codex, Cursor, Zed, Continue, opencode, Amazon Q, Kiro, Roo, "
                    + "Qwen Code, Kilo Code, Windsurf, Cline, Junie, Crush)"),
            new Tool("aider", List.of(".aider.conf.yml", ".aider.model.settings.yml"), "aider reads both from the "
                    + "git root and the current directory: lint-cmd and test-cmd run after its edits; a model "
                    + "setting's extra_params.api_base sends the reviewer's API key to the URL it names"),
            new Tool("Helix", List.of(".helix"), "the workspace's .helix/languages.toml and config.toml name the "
                    + "language-server and formatter commands Helix starts when it opens a file there"),
            new Tool("Emacs", List.of(".dir-locals.el", ".dir-locals-2.el"), "applied to every file visited below "
                    + "the directory: variables marked safe (compile-command, ...) take effect with no prompt, and "
                    + "eval forms are one keystroke away"),
            new Tool("Dev Containers", List.of(".devcontainer", ".devcontainer.json"), "VS Code and the devcontainer "
                    + "CLI run initializeCommand on the host when they open the folder, then build the container "
                    + "the reviewer works in from the rest"),
            new Tool("git-lfs", List.of(".lfsconfig"), "lfs.url and remote.<name>.lfsurl choose the server git lfs "
                    + "pushes objects to and fetches from, with the credentials git's helper gives for that host"),
            new Tool("Jujutsu / Sapling", List.of(".jj", ".sl"), "the control dirs: .jj/repo/config.toml and "
                    + ".sl/config name commands (diff and merge tools, fsmonitor, hooks) the next jj or sl command "
                    + "runs, like .git/config"),
            new Tool("Python debugger", List.of(".pdbrc"), "pdb reads ./.pdbrc whenever it starts in the directory, "
                    + "also for a script elsewhere, and runs its lines (! lines are Python)"),
            new Tool("Ruby REPLs", List.of(".irbrc", ".pryrc"), "irb and pry load the directory's .irbrc / .pryrc as "
                    + "Ruby code when they start there"),
            new Tool("other debuggers and REPLs", List.of(".perldb", ".Rprofile", ".iex.exs", ".ghci", ".ocamlinit",
                    ".octaverc"), "perl -d, R, IEx, GHCi, the OCaml toplevel and Octave run the directory's file as "
                    + "code when they start there"),
            new Tool("Bazel", List.of(".bazelrc", ".bazeliskrc", ".bazelversion"), "every bazel command reads the "
                    + "workspace's .bazelrc (startup --host_jvm_args loads an agent into Bazel's server); bazelisk "
                    + "downloads and runs the version .bazelversion names from the URL .bazeliskrc sets"),
            new Tool("sbt", List.of(".sbtopts", ".jvmopts"), "the sbt launcher adds both files' options to the JVM "
                    + "of every sbt command in the directory (-javaagent runs code)"),
            new Tool("uv", List.of("uv.toml"), "uv reads the project's uv.toml for every command: index URLs get the "
                    + "reviewer's index credentials, and a Python download mirror supplies the interpreter uv runs"));

    /** lefthook's main and -local configs in every format it reads, with and without the dot, and its script dirs. */
    private static List<String> lefthook() {
        List<String> out = new ArrayList<>(List.of(".lefthook", ".lefthook-local"));
        for (String base : List.of("lefthook", ".lefthook", "lefthook-local", ".lefthook-local")) {
            for (String ext : List.of("yml", "yaml", "toml", "json", "jsonc")) {
                out.add(base + "." + ext);
            }
        }
        return List.copyOf(out);
    }

    /** Every entry, in catalogue order. */
    static final List<String> NAMES = names();

    private static final Set<String> LITERAL = new LinkedHashSet<>();
    private static final List<Pattern> GLOBS = new ArrayList<>();
    private static final List<String> GLOB_NAMES = new ArrayList<>();

    static {
        for (String n : NAMES) {
            if (n.contains("*")) {
                GLOBS.add(Pattern.compile(Pattern.quote(n).replace("*", "\\E[^/]*\\Q")));
                GLOB_NAMES.add(n);
            } else {
                LITERAL.add(n);
            }
        }
    }

    private static List<String> names() {
        Set<String> out = new LinkedHashSet<>();
        for (Tool t : TOOLS) {
            out.addAll(t.names());
        }
        return List.copyOf(out);
    }

    /**
     * The entry that segment {@code name} (below segment {@code prev}, null at the top) matches, or null. Literal
     * names first (a set lookup), then the few {@code *} entries.
     */
    static String match(String prev, String name) {
        if (LITERAL.contains(name)) {
            return name;
        }
        String pair = prev == null ? null : prev + "/" + name;
        if (pair != null && LITERAL.contains(pair)) {
            return pair;
        }
        for (int i = 0; i < GLOBS.size(); i++) {
            Pattern g = GLOBS.get(i);
            if (g.matcher(name).matches() || (pair != null && g.matcher(pair).matches())) {
                return GLOB_NAMES.get(i);
            }
        }
        return null;
    }
}
