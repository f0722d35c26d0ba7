package io.lineflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** The objects one kustomize build produced, rendered with the pinned kubectl kustomize. */
final class Rendered {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    final String source;
    final List<ObjectNode> objects;

    private Rendered(String source, List<ObjectNode> objects) {
        this.source = source;
        this.objects = objects;
    }

    static Rendered kustomize(Path dir) {
        return parse(dir.toString(), Repo.run(Repo.KUBECTL.toString(), "kustomize", dir.toString()));
    }

    /** Renders an overlay the way `make render/deploy ENV=… IMAGE=…` does. */
    static Rendered overlay(String env, String image) {
        String script = Repo.ROOT.resolve("scripts/render.sh").toString();
        String yaml = image == null ? Repo.run(script, env) : Repo.run(script, env, image);
        return parse("overlay " + env, yaml);
    }

    static Rendered parse(String source, String yaml) {
        List<ObjectNode> objects = new ArrayList<>();
        try (YAMLParser parser = (YAMLParser) YAML.getFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode node = it.next();
                if (node instanceof ObjectNode o && !o.isEmpty()) {
                    objects.add(o);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Rendered(source, objects);
    }

    List<ObjectNode> ofKind(String kind) {
        return objects.stream()
                .filter(o -> kind.equals(o.path("kind").asText()))
                .toList();
    }

    ObjectNode one(String kind) {
        List<ObjectNode> found = ofKind(kind);
        if (found.size() != 1) {
            throw new AssertionError(source + ": expected one " + kind + ", found " + found.size());
        }
        return found.get(0);
    }

    Optional<ObjectNode> named(String kind, String name) {
        return ofKind(kind).stream()
                .filter(o -> name.equals(id(o).split("/")[1]))
                .findFirst();
    }

    static String id(JsonNode o) {
        return o.path("kind").asText() + "/" + o.path("metadata").path("name").asText();
    }

    /** Every pod spec in the output: workload templates and the FlinkDeployment pod templates. */
    void forEachPodSpec(PodSpecVisitor visitor) {
        for (ObjectNode o : objects) {
            switch (o.path("kind").asText()) {
                case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job" ->
                    visitor.visit(id(o), o.path("spec").path("template").path("spec"));
                case "CronJob" -> visitor.visit(id(o), o.at("/spec/jobTemplate/spec/template/spec"));
                case "Pod" -> visitor.visit(id(o), o.path("spec"));
                case "FlinkDeployment" -> {
                    visitor.visit(id(o), o.at("/spec/podTemplate/spec"));
                    visitor.visit(id(o) + " jobManager", o.at("/spec/jobManager/podTemplate/spec"));
                    visitor.visit(id(o) + " taskManager", o.at("/spec/taskManager/podTemplate/spec"));
                }
                default -> {}
            }
        }
    }

    /** Visits one pod spec (missing nodes for absent templates). */
    interface PodSpecVisitor {
        void visit(String where, JsonNode podSpec);
    }

    static void forEachContainer(JsonNode podSpec, Consumer<JsonNode> action) {
        for (String list : List.of("initContainers", "containers")) {
            podSpec.path(list).forEach(action);
        }
    }
}
