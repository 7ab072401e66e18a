package dev.monoagent.memory;

import dev.monoagent.config.MonoConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Builds the configured {@link Embedder} from {@code memory.embeddings}. */
final class Embedders {
    static final String LOCAL = "local";
    static final List<String> PROVIDERS = List.of(LOCAL, "ollama", "lmstudio", "openai");

    private Embedders() {}

    /** An embedder that never works, for a config we cannot honour (reported, never silently replaced). */
    record Broken(String id, String reason) implements Embedder {
        @Override
        public boolean inProcess() {
            return false;
        }

        @Override
        public List<float[]> embed(List<String> texts) throws Unavailable {
            throw new Unavailable(reason);
        }
    }

    static Embedder of(MonoConfig.Embeddings e, Map<String, String> env, Path cacheDir) {
        String provider = e.provider() == null ? LOCAL : e.provider();
        String model = e.model();
        boolean defaultModel = model == null || model.equals(LocalMiniLm.MODEL);
        switch (provider) {
            case LOCAL -> {
                if (!defaultModel) {
                    return new Broken("local:" + model, "memory.embeddings.model \"" + model + "\" is not built in; "
                            + "the in-process model is " + LocalMiniLm.MODEL);
                }
                return new LocalMiniLm(cacheDir);
            }
            case "ollama" -> {
                return new HttpEmbedder("ollama", HttpEmbedder.Wire.OLLAMA,
                        orDefault(e.endpoint(), "http://127.0.0.1:11434"),
                        defaultModel ? "all-minilm" : model, e.dim(), key(e, env, null), e.timeoutMs());
            }
            case "lmstudio" -> {
                return new HttpEmbedder("lmstudio", HttpEmbedder.Wire.OPENAI,
                        orDefault(e.endpoint(), "http://127.0.0.1:1234/v1"),
                        defaultModel ? "text-embedding-all-minilm-l6-v2-embedding" : model, e.dim(),
                        key(e, env, null), e.timeoutMs());
            }
            case "openai" -> {
                String keyEnv = e.apiKeyEnv() == null ? "OPENAI_API_KEY" : e.apiKeyEnv();
                String key = env.get(keyEnv);
                String id = "openai:" + (defaultModel ? "text-embedding-3-small" : model);
                if (key == null || key.isBlank()) {
                    return new Broken(id, keyEnv + " is not set (memory.embeddings.apiKeyEnv)");
                }
                return new HttpEmbedder("openai", HttpEmbedder.Wire.OPENAI,
                        orDefault(e.endpoint(), "https://api.openai.com/v1"),
                        defaultModel ? "text-embedding-3-small" : model, e.dim(), key, e.timeoutMs());
            }
            default -> {
                return new Broken(provider + ":" + model, "memory.embeddings.provider \"" + provider
                        + "\" is unknown; use one of " + String.join(", ", PROVIDERS));
            }
        }
    }

    private static String key(MonoConfig.Embeddings e, Map<String, String> env, String fallbackEnv) {
        String name = e.apiKeyEnv() != null ? e.apiKeyEnv() : fallbackEnv;
        return name == null ? null : env.get(name);
    }

    private static String orDefault(String v, String d) {
        return v == null || v.isBlank() ? d : v;
    }
}
