package io.lineflow.drill.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Kustomizations the drill writes under {@code work} on top of the e2e overlay {@code base}, with
 * JSON patches on the FlinkDeployment: the deployment as a new release or a pitfall changes it.
 */
record Overlays(Path work, Path base) {
    /** Writes the kustomization {@code name}; returns its folder, for {@code kubectl apply -k}. */
    Path write(String name, List<String> patches) throws IOException {
        Path dir = work.resolve("overlays").resolve(name).toAbsolutePath();
        Files.createDirectories(dir);
        StringBuilder k = new StringBuilder()
                .append("# Written by the Kubernetes drill: the e2e overlay as a new release would change it.\n")
                .append("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ")
                .append(dir.relativize(base.toAbsolutePath()))
                .append("\npatches:\n")
                .append("  - target: {kind: FlinkDeployment, name: lineflow}\n    patch: |-\n");
        for (String p : patches) {
            k.append(p.indent(6));
        }
        Files.writeString(dir.resolve("kustomization.yaml"), k.toString());
        return dir;
    }
}
