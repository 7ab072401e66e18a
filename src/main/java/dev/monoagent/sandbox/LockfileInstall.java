package dev.monoagent.sandbox;

import dev.monoagent.host.HostEnv;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Installs the engine's {@code node_modules} from the shipped lockfile without npm, for hosts whose only Node is the
 * managed one (the npm registry's platform packages carry {@code bin/node} but no npm). It does what
 * {@code npm ci --ignore-scripts} does for our flat lockfile: each {@code node_modules/<name>} entry's tarball is
 * fetched, checked against the lockfile's {@code integrity} and unpacked in place; declared bins are linked under
 * {@code node_modules/.bin} and made executable. No install scripts run. The caller still checks the resulting tree
 * against the pinned {@link SrtRuntime#TREE_DIGEST}, so any difference from a real npm install fails setup.
 */
final class LockfileInstall {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LockfileInstall() {}

    /** Installs into {@code staging} (holding {@code package-lock.json}); null on success, else why not. */
    static String install(HostEnv env, Path staging, Consumer<String> progress) throws IOException, InterruptedException {
        JsonNode packages = JSON.readTree(staging.resolve("package-lock.json").toFile()).path("packages");
        Path downloads = staging.resolve(".downloads");
        SrtRuntime.mkdirsPrivate(downloads);
        Set<String> seen = new HashSet<>();
        try {
            for (Iterator<Map.Entry<String, JsonNode>> it = packages.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String key = e.getKey();
                if (!key.startsWith("node_modules/")) {
                    continue;
                }
                String name = key.substring(key.lastIndexOf("node_modules/") + "node_modules/".length());
                JsonNode pkg = e.getValue();
                String version = pkg.path("version").asText();
                String integrity = pkg.path("integrity").asText();
                if (!name.matches("(@[a-z0-9._-]+/)?[a-z0-9._-]+") || !version.matches("[0-9A-Za-z.+-]+")
                        || key.contains("..")) {
                    return "lockfile entry " + key + " has an unexpected name or version";
                }
                if (integrity.isEmpty()) {
                    return "lockfile entry " + key + " has no integrity";
                }
                String url = RegistryTarball.url(env, name, version);
                progress.accept("  " + name + "@" + version);
                Path tgz = downloads.resolve(seen.size() + ".tgz");
                seen.add(key);
                RegistryTarball.fetch(url, integrity, tgz);
                Path dest = staging.resolve(key);
                SrtRuntime.mkdirsPrivate(dest);
                RegistryTarball.unpack(env, tgz, dest, List.of());
                linkBins(staging, key, pkg.path("bin"));
            }
        } finally {
            SrtRuntime.deleteTree(downloads);
        }
        return seen.isEmpty() ? "the shipped lockfile lists no packages" : null;
    }

    /** {@code node_modules/.bin/<name> -> ../<pkg>/<file>} and the target made executable, as npm links bins. */
    private static void linkBins(Path staging, String key, JsonNode bins) throws IOException {
        if (!bins.isObject()) {
            return;
        }
        Path binDir = staging.resolve("node_modules/.bin");
        SrtRuntime.mkdirsPrivate(binDir);
        String pkgRel = key.substring("node_modules/".length());
        for (Iterator<Map.Entry<String, JsonNode>> it = bins.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> b = it.next();
            String file = Path.of(b.getValue().asText()).normalize().toString();
            if (file.startsWith("..") || Path.of(file).isAbsolute() || !b.getKey().matches("[A-Za-z0-9._-]+")) {
                throw new IOException("bin entry " + b.getKey() + " of " + key + " points outside its package");
            }
            Path target = staging.resolve(key).resolve(file);
            Set<PosixFilePermission> perms = new HashSet<>(Files.getPosixFilePermissions(target));
            perms.add(PosixFilePermission.OWNER_EXECUTE);
            Files.setPosixFilePermissions(target, perms);
            Files.createSymbolicLink(binDir.resolve(b.getKey()), Path.of("..", pkgRel, file));
        }
    }
}
