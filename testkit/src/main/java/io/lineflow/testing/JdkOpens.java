package io.lineflow.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * The {@code --add-opens} flags a JVM running Flink 1.20 needs on JDK 17: the parent POM's
 * {@code lineflow.jdk.opens}, the same list the test JVMs get, for processes started from Java.
 */
public final class JdkOpens {
    private static final String RESOURCE = "jvm.properties";

    private JdkOpens() {}

    /** The flags, one per element. */
    public static List<String> flags() {
        Properties p = new Properties();
        try (InputStream in = JdkOpens.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the test kit's classes");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String flags = p.getProperty("add-opens", "").trim();
        if (!flags.startsWith("--add-opens=")) {
            throw new IllegalStateException(RESOURCE + " was not filtered by Maven: add-opens=" + flags);
        }
        return Arrays.asList(flags.split("\\s+"));
    }
}
