package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import dev.monoagent.common.ChildProcesses;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fetches one package tarball from the npm registry and refuses it unless its bytes match the SRI integrity string
 * pinned in our source (or in the lockfile we ship), then unpacks it with the host's {@code tar}. The integrity is
 * checked on the downloaded file before anything is unpacked, so a tampered mirror or a man in the middle can at
 * worst make setup fail. The registry is the npm default unless {@code npm_config_registry} points elsewhere (a
 * company mirror; tests use a loopback one).
 */
final class RegistryTarball {
    static final String DEFAULT_REGISTRY = "https://registry.npmjs.org/";

    private RegistryTarball() {}

    /** The registry base URL with a trailing slash. */
    static String registry(HostEnv env) {
        String r = env.hostEnv().getOrDefault("npm_config_registry", "");
        if (r.isBlank()) {
            r = DEFAULT_REGISTRY;
        }
        return r.endsWith("/") ? r : r + "/";
    }

    /** {@code <registry>/<name>/-/<basename>-<version>.tgz}, the registry's tarball address (scoped names too). */
    static String url(HostEnv env, String name, String version) {
        String base = name.contains("/") ? name.substring(name.indexOf('/') + 1) : name;
        return registry(env) + name + "/-/" + base + "-" + version + ".tgz";
    }

    /**
     * Downloads {@code url} into {@code dest} and checks it against {@code integrity} ({@code sha512-<base64>}).
     * Throws with a one-line reason on any HTTP error or mismatch; a mismatching file is deleted.
     */
    static void fetch(String url, String integrity, Path dest) throws IOException, InterruptedException {
        if (!integrity.startsWith("sha512-")) {
            throw new IOException("unsupported integrity " + integrity + " (only sha512 is accepted)");
        }
        // a registry that is busy for a moment (HTTP 5xx or 429, a refused or timed-out connection) is asked again,
        // three times in all, 1 s and 3 s apart; anything else (404, an integrity mismatch) fails at once
        for (int attempt = 1; ; attempt++) {
            try {
                fetchOnce(url, integrity, dest);
                return;
            } catch (Transient e) {
                if (attempt == 3) {
                    throw new IOException(e.getMessage() + " (3 attempts)");
                }
                Thread.sleep(attempt == 1 ? 1_000 : 3_000);
            }
        }
    }

    /** A failure worth one more try: the registry answered 5xx or 429, or the connection was refused or timed out. */
    private static final class Transient extends IOException {
        Transient(String message) {
            super(message);
        }
    }

    private static void fetchOnce(String url, String integrity, Path dest) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(20)).build();
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(10)).GET().build();
        HttpResponse<InputStream> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
            throw new Transient("GET " + url + " failed: " + e.getMessage());
        }
        MessageDigest md = sha512();
        try (InputStream in = resp.body(); OutputStream out = Files.newOutputStream(dest)) {
            int code = resp.statusCode();
            if (code != 200) {
                String why = "GET " + url + " answered HTTP " + code;
                throw code >= 500 || code == 429 ? new Transient(why) : new IOException(why);
            }
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
                out.write(buf, 0, n);
            }
        }
        String got = "sha512-" + Base64.getEncoder().encodeToString(md.digest());
        if (!got.equals(integrity)) {
            Files.deleteIfExists(dest);
            throw new IOException("integrity mismatch for " + url + ": got " + got.substring(0, 20) + "…, pinned "
                    + integrity.substring(0, 20) + "…");
        }
    }

    /**
     * Unpacks {@code tgz} into {@code dir}, dropping the tarball's top directory ({@code package/}); {@code members}
     * limits it to those paths (relative to the top directory), empty for all. Owners are not restored.
     */
    static void unpack(HostEnv env, Path tgz, Path dir, List<String> members) throws IOException, InterruptedException {
        Path tar = env.which("tar");
        if (tar == null) {
            throw new IOException("tar not found on PATH");
        }
        List<String> cmd = new ArrayList<>(List.of(tar.toString(), "-xzf", tgz.toString(), "-C", dir.toString(),
                "--no-same-owner", "--strip-components=1"));
        // npm tarballs put everything under "package/"; members are named with that prefix
        members.forEach(m -> cmd.add("package/" + m));
        Process p = ChildProcesses.builder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("tar timed out on " + tgz.getFileName());
        }
        if (p.exitValue() != 0) {
            String text = new String(out, StandardCharsets.UTF_8).trim();
            throw new IOException("tar failed on " + tgz.getFileName() + ": "
                    + text.substring(0, Math.min(300, text.length())));
        }
    }

    private static MessageDigest sha512() {
        try {
            return MessageDigest.getInstance("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
