package io.lineflow.drill.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Kustomizations the drill writes under {@code work} on top of the e2e overlay {@code base}, with
 * JSON patches on the FlinkDeployment: the deployment as a new release or a pitfall changes it.
 * Patches are objects, written by a JSON writer (JSON is YAML), so that a value or a key is quoted
 * and escaped by the writer and never by string concatenation.
 */
record Overlays(Path work, Path base) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One JSON patch operation (RFC 6902) on lineflow's FlinkDeployment; the path as its keys. */
    record Patch(String op, List<String> path, Object value) {
        /** Sets the value at {@code path} (which must exist). */
        static Patch replace(Object value, String... path) {
            return new Patch("replace", List.of(path), value);
        }

        /** Adds (or replaces) the key at {@code path}, whose parent must exist. */
        static Patch add(Object value, String... path) {
            return new Patch("add", List.of(path), value);
        }

        /** Removes the key at {@code path}. */
        static Patch remove(String... path) {
            return new Patch("remove", List.of(path), null);
        }

        /** The path as a JSON pointer (RFC 6901): a {@code ~} or {@code /} inside a key escaped. */
        String pointer() {
            return path.stream()
                    .map(k -> "/" + k.replace("~", "~0").replace("/", "~1"))
                    .collect(Collectors.joining());
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("op", op);
            m.put("path", pointer());
            if (!op.equals("remove")) {
                m.put("value", value);
            }
            return m;
        }
    }

    /** Writes the kustomization {@code name}; returns its folder, for {@code kubectl apply -k}. */
    Path write(String name, List<Patch> patches) throws IOException {
        return write(name, List.of(), patches);
    }

    /**
     * Writes the kustomization {@code name}, with the shipped kustomize components named (folders
     * of {@code kustomize/components} beside the base overlay's) applied before the patches.
     */
    Path write(String name, List<String> components, List<Patch> patches) throws IOException {
        Path dir = work.resolve("overlays").resolve(name).toAbsolutePath();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), kustomization(dir, components, patches));
        return dir;
    }

    /** The shipped component {@code name}: kustomize/components/NAME, two folders above the base overlay. */
    Path component(String name) {
        Path folder = base.toAbsolutePath()
                .normalize()
                .getParent()
                .getParent()
                .resolve("components")
                .resolve(name);
        if (!Files.isRegularFile(folder.resolve("kustomization.yaml"))) {
            throw new IllegalStateException("no kustomize component '" + name + "' at " + folder);
        }
        return folder;
    }

    /**
     * The kustomization in {@code dir}: the base overlay, the components, and the patches on the
     * FlinkDeployment.
     */
    String kustomization(Path dir, List<String> components, List<Patch> patches) throws JsonProcessingException {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("apiVersion", "kustomize.config.k8s.io/v1beta1");
        k.put("kind", "Kustomization");
        k.put("resources", List.of(dir.relativize(base.toAbsolutePath()).toString()));
        if (!components.isEmpty()) {
            k.put(
                    "components",
                    components.stream()
                            .map(c -> dir.relativize(component(c)).toString())
                            .toList());
        }
        k.put(
                "patches",
                List.of(Map.of(
                        "target",
                        Map.of("kind", "FlinkDeployment", "name", FlinkCluster.NAME),
                        "patch",
                        JSON.writeValueAsString(
                                patches.stream().map(Patch::json).toList()))));
        return "# Written by the Kubernetes drill: the e2e overlay as a new release or a pitfall would change it.\n"
                + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(k) + "\n";
    }
}
