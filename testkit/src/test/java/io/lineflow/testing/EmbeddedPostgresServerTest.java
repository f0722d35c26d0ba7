package io.lineflow.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A server killed as a crash would: its commits stay, a new server starts on its data, and the kill is quiet. */
class EmbeddedPostgresServerTest {
    @TempDir
    Path dir;

    @Test
    void aKilledServerIsReleasedWithoutAnErrorAndANewOneRecoversItsCommits() throws Exception {
        // As the soak's: the data is kept when the server goes.
        EmbeddedPostgresServer killed = EmbeddedPostgresServer.start(dir, 0, false, true);
        try (Connection c = killed.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (n int)");
            s.execute("INSERT INTO t VALUES (42)");
        }
        String library = EmbeddedPostgres.class.getName();
        Level before = LogManager.getLogger(library).getLevel();

        Errors errors = new Errors();
        LoggerContext context = LoggerContext.getContext(false);
        LoggerConfig root = context.getConfiguration().getRootLogger();
        errors.start();
        root.addAppender(errors, Level.ERROR, null);
        context.updateLoggers();
        String what;
        try {
            what = killed.kill9();
        } finally {
            root.removeAppender(errors.getName());
            context.updateLoggers();
        }

        assertThat(what).startsWith("postmaster pid ");
        assertThat(errors.logged)
                .as("errors logged while the killed server was released")
                .isEmpty();
        assertThat(LogManager.getLogger(library).getLevel())
                .as("the library's log level after the kill")
                .isEqualTo(before);
        // Starts only if the killed server's lock on its data folder was released.
        try (EmbeddedPostgresServer recovered = EmbeddedPostgresServer.start(dir, 0, false, true);
                Connection c = recovered.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n FROM t")) {
            assertThat(rs.next()).as("the row committed before the kill").isTrue();
            assertThat(rs.getInt(1)).isEqualTo(42);
        }
    }

    /** Every event at ERROR or above, as "logger: message". */
    private static final class Errors extends AbstractAppender {
        final List<String> logged = new CopyOnWriteArrayList<>();

        Errors() {
            super("errors-of-the-test", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            logged.add(event.getLoggerName() + ": " + event.getMessage().getFormattedMessage());
        }
    }
}
