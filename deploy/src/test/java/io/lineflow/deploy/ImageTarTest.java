package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * `make image-tar` (scripts/image.sh tar) builds an image whose layers hold the shaded job jar at
 * the path the FlinkDeployment names, runs as the flink user, and carries nothing else of ours.
 * Built on the `scratch` base, which needs no registry; the Flink base only adds its own layers.
 */
class ImageTarTest {
    private static final String JAR = "opt/flink/usrlib/lineflow-job.jar";

    @Test
    void imageTarHoldsTheShadedJobJarAtTheFlinkDeploymentPath() throws IOException {
        Path tar = Repo.ROOT.resolve("deploy/target/lineflow-job-image.tar");
        Files.deleteIfExists(tar);
        Repo.run(
                Map.of("BASE_IMAGE", "scratch", "MVN", "mvn -B -ntp -q"),
                Repo.ROOT.resolve("scripts/image.sh").toString(),
                "tar",
                "lineflow-job:test",
                tar.toString());

        Map<String, byte[]> top = untar(Files.newInputStream(tar), name -> true);
        JsonNode manifest =
                new ObjectMapper().readTree(top.get("manifest.json")).get(0);
        JsonNode config =
                new ObjectMapper().readTree(top.get(manifest.path("Config").asText()));
        assertThat(config.at("/config/User").asText()).isEqualTo("9999:9999");

        Map<String, byte[]> files = new LinkedHashMap<>();
        for (JsonNode layer : manifest.path("Layers")) {
            files.putAll(untar(new GZIPInputStream(new ByteArrayInputStream(top.get(layer.asText()))), name -> true));
        }
        assertThat(files).containsKey(JAR);
        assertThat(files.keySet())
                .as("only the jar and its folders: no Jib classes/libs copies on the user classpath")
                .allMatch(n -> n.equals(JAR) || "opt/flink/usrlib/".startsWith(n));

        Map<String, Boolean> entries = jarEntries(files.get(JAR));
        assertThat(entries)
                .containsKey("io/lineflow/job/LineflowJob.class")
                .as("shaded: the Kafka connector travels inside")
                .containsKey("org/apache/flink/connector/kafka/source/KafkaSource.class");
    }

    private static Map<String, Boolean> jarEntries(byte[] jar) throws IOException {
        Map<String, Boolean> names = new HashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                names.put(e.getName(), true);
            }
        }
        return names;
    }

    /** A small reader for ustar/pax archives as Jib writes them (regular files and folders). */
    static Map<String, byte[]> untar(InputStream raw, java.util.function.Predicate<String> keep) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        try (InputStream in = raw) {
            byte[] header = new byte[512];
            String paxPath = null;
            while (in.readNBytes(header, 0, 512) == 512) {
                if (header[0] == 0) {
                    break;
                }
                String name = field(header, 0, 100);
                String prefix = field(header, 345, 155);
                if (!prefix.isEmpty()) {
                    name = prefix + "/" + name;
                }
                long size = Long.parseLong(
                        field(header, 124, 12).trim().isEmpty()
                                ? "0"
                                : field(header, 124, 12).trim(),
                        8);
                char type = (char) header[156];
                byte[] body = in.readNBytes((int) size);
                in.skipNBytes((512 - size % 512) % 512);
                if (type == 'x') {
                    paxPath = paxValue(new String(body, StandardCharsets.UTF_8), "path");
                    continue;
                }
                if (paxPath != null) {
                    name = paxPath;
                    paxPath = null;
                }
                if (name.startsWith("./")) {
                    name = name.substring(2);
                }
                if (keep.test(name)) {
                    out.put(name, body);
                }
            }
        }
        return out;
    }

    private static String field(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) {
            end++;
        }
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static String paxValue(String records, String key) {
        for (String record : records.split("\n")) {
            int space = record.indexOf(' ');
            if (space > 0 && record.substring(space + 1).startsWith(key + "=")) {
                return record.substring(space + 1 + key.length() + 1);
            }
        }
        return null;
    }
}
