package io.lineflow.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;

/**
 * A real Kafka broker and PostgreSQL server for one test class, as a JUnit extension: started
 * before the class's {@code @BeforeAll} methods (which may create the schema), stopped after
 * its {@code @AfterAll}; with {@link #emptyingTablesBeforeEach()}, the job's tables are emptied
 * before every test.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestServices SERVICES = TestServices.under(WORK).emptyingTablesBeforeEach();
 * }</pre>
 */
public final class TestServices implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private final Path work;
    private final boolean emptyTables;
    private EmbeddedKafka kafka;
    private EmbeddedPostgresServer postgres;

    private TestServices(Path work, boolean emptyTables) {
        this.work = work;
        this.emptyTables = emptyTables;
    }

    /** The services, their data under {@code work}. */
    public static TestServices under(Path work) {
        return new TestServices(work, false);
    }

    /** The same, truncating {@code device_window_stats} and {@code rejected_events} before each test. */
    public TestServices emptyingTablesBeforeEach() {
        return new TestServices(work, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // A fresh broker directory each run: a broker's old log would hold the last run's topics.
        kafka = EmbeddedKafka.start(work.resolve("kafka-" + System.nanoTime()));
        postgres = EmbeddedPostgresServer.start(work.resolve("postgres"));
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (emptyTables) {
            postgres.truncateTables();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try (EmbeddedKafka k = kafka;
                EmbeddedPostgresServer p = postgres) {
            kafka = null;
            postgres = null;
        }
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    public EmbeddedPostgresServer postgres() {
        return postgres;
    }
}
