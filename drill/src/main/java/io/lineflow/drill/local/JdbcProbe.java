package io.lineflow.drill.local;

import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The database's client connections besides the probe's own: the sink's, which must not grow with restarts. */
record JdbcProbe(TableCheck.Database db) implements SoakSampler.Probe {
    @Override
    public void sample(long now, SoakRecord record) {
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            rs.next();
            record.add(SoakVerdicts.JDBC, "connections", "besides the soak's own", now, rs.getInt(1));
        } catch (SQLException e) {
            // the database is down or cut off: no sample
        }
    }
}
