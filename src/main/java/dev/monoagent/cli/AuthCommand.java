package dev.monoagent.cli;

import dev.monoagent.common.TaskExecutor;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.monoagent.config.ConfigView;
import dev.monoagent.model.auth.AuthEndpointException;
import dev.monoagent.model.auth.AuthStatus;
import dev.monoagent.model.auth.BrowserLogin;
import dev.monoagent.model.auth.BrowserOpener;
import dev.monoagent.model.auth.CodexAuth;
import dev.monoagent.model.auth.CodexAuthSettings;
import dev.monoagent.model.auth.CodexTokens;
import dev.monoagent.model.auth.DeviceLogin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mono-agent auth login|status|logout|import}: the ChatGPT ("openai-codex") sign-in. API-key providers have
 * nothing to sign in to; they are named with the env var to set instead.
 */
@Command(name = "auth", mixinStandardHelpOptions = true, description = "Sign in to model providers.",
        subcommands = {AuthCommand.Login.class, AuthCommand.Status.class, AuthCommand.Logout.class,
                AuthCommand.Import.class})
final class AuthCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final CliContext ctx;

    AuthCommand(CliContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void run() {
        throw new CliException(ExitCodes.USAGE, "mono-agent auth: choose login, status, logout or import "
                + "(mono-agent auth --help).");
    }

    /** The provider argument: only openai-codex signs in; the rest are explained. */
    static void requireSignInProvider(String provider) {
        if (provider.equals(CodexAuth.PROVIDER)) {
            return;
        }
        String env = ConfigView.PROVIDER_KEY_ENV.get(provider);
        if (env != null) {
            throw new CliException(ExitCodes.USAGE, provider + " uses an API key, not a sign-in: export " + env
                    + " (or put it in the workspace .env).");
        }
        if (List.of("ollama", "lmstudio", "openai_compat").contains(provider)) {
            throw new CliException(ExitCodes.USAGE, provider + " is a local provider; it needs no sign-in.");
        }
        throw new CliException(ExitCodes.USAGE, "Unknown provider for auth: " + provider + ". Sign-in is available "
                + "for openai-codex.");
    }

    static CodexAuth service(CliContext ctx) {
        try {
            return CodexAuth.fromEnv(ctx.env());
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, "mono-agent auth: " + e.getMessage());
        }
    }

    /** {@code auth login openai-codex}. */
    @Command(name = "login", mixinStandardHelpOptions = true,
            description = "Sign in with a ChatGPT account (browser, or --device on machines without one).")
    static final class Login implements Callable<Integer> {
        private final CliContext ctx;

        @Parameters(paramLabel = "PROVIDER", description = "openai-codex")
        String provider;

        @Option(names = "--device", description = "Use a one-time code entered on another device.")
        boolean device;

        @Option(names = "--no-browser", description = "Do not try to open a browser; print the address only.")
        boolean noBrowser;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
                description = "Give up after this many seconds (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        Login(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            requireSignInProvider(provider);
            if (timeoutSeconds < 1) {
                throw new CliException(ExitCodes.USAGE, "--timeout must be at least 1 second.");
            }
            CodexAuth auth = service(ctx);
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            try {
                CodexTokens t = device ? device(auth, timeout) : browser(auth, timeout);
                ctx.out().println("Signed in to openai-codex as " + (t.email() != null ? t.email() : "account "
                        + t.accountId()) + (t.plan() != null ? " (plan " + t.plan() + ")" : "") + ".");
                ctx.out().println("Credentials saved to " + auth.store().file() + " (owner-only).");
                return ExitCodes.OK;
            } catch (AuthEndpointException e) {
                throw new CliException(ExitCodes.ERROR, "Sign-in failed: " + e.getMessage());
            } catch (TimeoutException e) {
                throw new CliException(ExitCodes.ERROR, "Sign-in timed out after " + timeoutSeconds + " s; run `"
                        + CodexAuthSettings.LOGIN_COMMAND + "` again.");
            } catch (UncheckedIOException e) {
                throw new CliException(ExitCodes.ERROR, "Sign-in failed: " + e.getMessage());
            }
        }

        private CodexTokens device(CodexAuth auth, Duration timeout) throws Exception {
            DeviceLogin d = auth.startDeviceLogin();
            ctx.out().println("On any device, open " + d.verificationUrl());
            ctx.out().println("and enter the code: " + d.userCode() + "   (it expires in 15 minutes)");
            ctx.out().println("Waiting for approval...");
            ctx.out().flush();
            return d.await(timeout);
        }

        private CodexTokens browser(CodexAuth auth, Duration timeout) throws Exception {
            try (BrowserLogin login = auth.startBrowserLogin()) {
                ctx.out().println("Open this address in a browser to sign in with your ChatGPT account:");
                ctx.out().println();
                ctx.out().println("  " + login.authorizeUrl());
                ctx.out().println();
                if (!login.callbackListening()) {
                    ctx.out().println("The local callback is not available (" + login.callbackProblem() + ").");
                }
                ctx.out().println("After approving, the browser is sent to " + login.redirectUri() + "."
                        + (login.callbackListening() ? " If that page does not load (browser on another machine), "
                        : " ") + "paste the full address from the browser's address bar here and press Enter.");
                ctx.out().println("No browser at all? Use `" + CodexAuthSettings.LOGIN_COMMAND + " --device`.");
                ctx.out().flush();
                if (!noBrowser) {
                    String how = BrowserOpener.open(ctx.env(), login.authorizeUrl());
                    if (how != null) {
                        ctx.out().println(how);
                        ctx.out().flush();
                    }
                }
                readPastes(login);
                return login.await(timeout);
            }
        }

        /** Feeds stdin lines to the login until it finishes; bad pastes are explained and the user can retry. */
        private void readPastes(BrowserLogin login) {
            TaskExecutor.shared().io("auth-paste-reader", () -> {
                try {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.isBlank()) {
                            continue;
                        }
                        try {
                            login.paste(line);
                            return null;
                        } catch (IllegalArgumentException e) {
                            ctx.err().println(e.getMessage());
                            ctx.err().flush();
                        }
                    }
                } catch (IOException e) {
                    // no usable stdin: the callback can still finish the sign-in
                }
                return null;
            });
        }
    }

    /** {@code auth status}. */
    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show whether the ChatGPT sign-in is present, expired or missing.")
    static final class Status implements Callable<Integer> {
        private final CliContext ctx;

        @Parameters(paramLabel = "PROVIDER", arity = "0..1", defaultValue = CodexAuth.PROVIDER,
                description = "openai-codex (default)")
        String provider;

        @Option(names = "--json", description = "Print one JSON object {provider, state, details}.")
        boolean json;

        Status(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            requireSignInProvider(provider);
            AuthStatus s;
            try {
                s = service(ctx).status();
            } catch (UncheckedIOException e) {
                throw new CliException(ExitCodes.ERROR, e.getMessage());
            }
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("provider", s.provider());
                m.put("state", s.state().word());
                m.put("details", s.details());
                ctx.out().println(JSON.writeValueAsString(m));
            } else {
                ctx.out().println(s.provider() + ": " + s.state().word());
                s.details().forEach(d -> ctx.out().println("  " + d));
            }
            return ExitCodes.OK;
        }
    }

    /** {@code auth logout}. */
    @Command(name = "logout", mixinStandardHelpOptions = true, description = "Forget the stored ChatGPT sign-in.")
    static final class Logout implements Callable<Integer> {
        private final CliContext ctx;

        @Parameters(paramLabel = "PROVIDER", arity = "0..1", defaultValue = CodexAuth.PROVIDER,
                description = "openai-codex (default)")
        String provider;

        Logout(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            requireSignInProvider(provider);
            CodexAuth auth = service(ctx);
            try {
                ctx.out().println(auth.logout() ? "Signed out of openai-codex; removed the tokens from "
                        + auth.store().file() + "." : "Not signed in to openai-codex; nothing to remove.");
            } catch (UncheckedIOException e) {
                throw new CliException(ExitCodes.ERROR, e.getMessage());
            }
            return ExitCodes.OK;
        }
    }

    /** {@code auth import --from-codex}. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = "Copy the Codex CLI's ChatGPT sign-in (read once, never written).")
    static final class Import implements Callable<Integer> {
        private final CliContext ctx;

        @Option(names = "--from-codex", required = true,
                description = "Read $CODEX_HOME/auth.json (default ~/.codex/auth.json).")
        boolean fromCodex;

        Import(CliContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            CodexAuth auth = service(ctx);
            Path source = auth.settings().codexHome().resolve("auth.json");
            CodexTokens t;
            try {
                t = auth.importFromCodex();
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw new CliException(ExitCodes.ERROR, "Import failed: " + e.getMessage());
            }
            ctx.out().println("Imported the ChatGPT sign-in" + (t.email() != null ? " of " + t.email() : "")
                    + " from " + source + " into " + auth.store().file() + ".");
            ctx.err().println("Warning: refresh tokens rotate. After mono-agent's first refresh the Codex CLI's copy "
                    + "stops working and the Codex CLI must sign in again (" + source + " was not changed).");
            return ExitCodes.OK;
        }
    }
}
